"""One autograding worker: runs nbgrader's autograde in this process for a list of submissions.

    python -m autograder.grading_worker COURSE_ROOT CHAPTER:STUDENT [CHAPTER:STUDENT ...]

Started by `autograder.class_grading` (two at a time, one per core) so that nbgrader's start-up,
configuration and gradebook connection are paid once per worker, not once per student. Prints
one JSON line per submission: {"chapter", "student", "success", "error"}.
"""

import json
import os
import sys
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader


def main() -> None:
    """Autograde each CHAPTER:STUDENT given on the command line."""
    root = Path(sys.argv[1]).resolve()
    os.chdir(root)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

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
