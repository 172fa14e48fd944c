"""The proof-lm autograder: hidden checks per exercise, a trusted runner, and nbgrader glue."""
