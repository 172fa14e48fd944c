"""The student kit: what it holds at each stage, how it is built, and its hand-in client."""
