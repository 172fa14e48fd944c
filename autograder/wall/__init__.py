"""The wall: the OS sandbox, the grading process, what is mounted, the reading of what comes back."""
