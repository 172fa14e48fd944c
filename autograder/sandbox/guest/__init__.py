"""What a grading sandbox contains, whole: the grading process, its probes, what its cells show. It imports nothing else of the project."""
