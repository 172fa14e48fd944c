"""What a grading sandbox contains, whole: the grading process, its probes, the kernel's boot. It imports nothing else of the project."""
