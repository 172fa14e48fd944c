"""One autograding worker: runs nbgrader's autograde in this process for a list of submissions.

    python -m autograder.grading_worker COURSE_ROOT CHAPTER:STUDENT [CHAPTER:STUDENT ...]

Started by `autograder.class_grading` (two at a time, one per core) so that nbgrader's start-up,
configuration and gradebook connection are paid once per worker, not once per student; its
kernels are forked from a warm template (`autograder.warm_kernels`), so that ipykernel, PyTorch
and matplotlib are imported once per worker, not once per notebook. Prints one JSON line per
submission: {"chapter", "student", "success", "error"}.
"""

import json
import os
import sys
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets.config.loader import PyFileConfigLoader

from autograder.forkserver import relay_command, serving
from autograder.warm_kernels import SOCKET_VARIABLE


class WarmKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels are forked from the worker's template (when one is running)."""

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The relay's command line in place of the kernel spec's, with the same arguments."""
        command = super().format_kernel_cmd(extra_arguments)
        template = os.environ.get(SOCKET_VARIABLE)
        if not template or "ipykernel_launcher" not in command:
            return command
        arguments = command[command.index("ipykernel_launcher") :]
        return relay_command(template, [0, 1, 2], arguments)


def warm_preprocessors() -> list[type]:
    """nbgrader's autograde preprocessors, with Execute replaced by one that uses warm kernels."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    class WarmExecute(Execute):
        """nbgrader's Execute (same configuration), its kernels started by WarmKernelManager."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            kwargs.setdefault("kernel_manager_class", WarmKernelManager)
            super().__init__(*args, **kwargs)

    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return [WarmExecute if step is Execute else step for step in default]


def main() -> None:
    """Autograde each CHAPTER:STUDENT given on the command line."""
    root = Path(sys.argv[1]).resolve()
    os.chdir(root)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.Autograde.autograde_preprocessors = warm_preprocessors()
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    with serving("autograder.warm_kernels") as template:
        if template is not None:  # else nbgrader starts every kernel anew
            os.environ[SOCKET_VARIABLE] = template
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        for job in sys.argv[2:]:
            chapter, student = job.split(":", 1)
            result = api.autograde(chapter, student, force=True, create=True)
            error = "" if result["success"] else (result.get("error") or "")[-2000:]
            print(
                json.dumps(
                    {
                        "chapter": chapter,
                        "student": student,
                        "success": result["success"],
                        "error": error,
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
