"""The sandboxes' environment policy, its one home: threads, plotting backend, what each environment holds.

Every process that runs numerical code for grading uses one thread per library (a grading worker,
the warm-kernel template, every kernel and grading process), so that two cores shared by several
sandboxes are not oversubscribed. Sandboxed code gets nothing of the grader's environment but what
is written here.
"""

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from autograder.kernel import HIDDEN_CHECKS

HOME = "/home/student"  # the sandbox's private home (a size-limited tmpfs)
THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
KERNEL_BACKEND = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}
GRADING_BACKEND = {"MPLBACKEND": "Agg"}


def sandbox_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of sandboxed code: nothing of the grader's, plus `env`."""
    return {
        "HOME": HOME,
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "MPLCONFIGDIR": f"{HOME}/.matplotlib",
        **THREADS,
        **(env or {}),
    }


def grading_launch(parent: Mapping[str, str]) -> dict[str, str]:
    """What the grading process is started with (bwrap clears it inside): `parent` without PYTHON*."""
    env = {key: value for key, value in parent.items() if not key.startswith("PYTHON")}
    return {**env, **THREADS, **GRADING_BACKEND}


def kernel_environment() -> dict[str, str]:
    """What a notebook's kernel adds to `sandbox_environment`: nbgrader's mode, the inline backend,
    and whether its hidden-test cells defer to the trusted grader (as this worker says)."""
    return {
        "NBGRADER_EXECUTION": "autograde",
        **KERNEL_BACKEND,
        HIDDEN_CHECKS: os.environ.get(HIDDEN_CHECKS, ""),
    }


def template_environment() -> dict[str, str]:
    """What the warm-kernel template imports its libraries under: as a cold kernel."""
    return {**THREADS, **KERNEL_BACKEND}


def worker_environment() -> dict[str, str]:
    """What every grading worker sets for itself: one thread per library, hidden checks left to the
    trusted grader."""
    return {**THREADS, HIDDEN_CHECKS: "trusted"}
