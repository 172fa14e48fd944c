"""Everything that builds or talks to a sandbox: bubblewrap, the environment policy, the grading process."""
