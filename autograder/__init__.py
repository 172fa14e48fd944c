"""The proof-lm autograder, in layers from the bottom: `sandbox.guest` (all a sandbox holds),
`sandbox.host` (what builds and talks to one), `judge` (exercises, checks, the grading API),
`course` (the instructor's nbgrader flow), `kit` and `server`, and the command lines in `cli`.
Every import goes down (tests/test_layers.py; docs/development.md draws the table)."""

import os

# One BLAS thread in every process that runs the grader, set before NumPy loads. Grading threads
# start their sandboxes with fork (subprocess with preexec_fn), and OpenBLAS shuts its thread pool
# down at every fork: a BLAS call that another grading thread is making at that moment then waits
# for ever for workers that are gone (a CI run hung on it; tests/judge/test_blas_fork.py).
os.environ.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
