"""The wall: the OS sandbox, the warm-kernel template, what is mounted, the reading of what comes back."""
