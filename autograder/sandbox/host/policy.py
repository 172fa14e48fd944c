"""The sandboxes' environment policy, its one home: threads, plotting backend, what each environment holds.

Every process that runs numerical code for grading uses one thread per library (a grading worker
and every grading process), so that two cores shared by several sandboxes are not oversubscribed. Sandboxed code gets nothing of the grader's environment but what
is written here.
"""

import sys
from collections.abc import Mapping
from pathlib import Path

HOME = "/home/student"  # the sandbox's private home (a size-limited tmpfs)
THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
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
