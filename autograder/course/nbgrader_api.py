"""nbgrader on a course directory: its API in this process, or its command line as an instructor types it."""

import os
import subprocess
import sys
from pathlib import Path


def _tools_first(path: str) -> str:
    """`path` (a PATH) with this environment's tools first: nbgrader runs `alembic` by name."""
    tools = str(Path(sys.executable).parent)
    return path if tools in path.split(os.pathsep) else tools + os.pathsep + path


def nbgrader_api(root: Path, settings: dict | None = None) -> object:
    """nbgrader's API on the course in `root`, configured by its nbgrader_config.py (and `settings`:
    class name -> {trait: value}), in this process: no command line to start for each step."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    for section, traits in (settings or {}).items():
        for name, value in traits.items():
            setattr(config[section], name, value)
    config.CourseDirectory.root = str(root)
    os.environ["PATH"] = _tools_first(os.environ.get("PATH", ""))  # a new gradebook runs alembic
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def nbgrader(root: Path, step: str, chapter: str, student: str | None = None) -> None:
    """Run an nbgrader step (generate_assignment, autograde, generate_feedback) in the course root;
    a RuntimeError with the end of nbgrader's log when it fails."""
    api = nbgrader_api(root)
    result = getattr(api, step)(chapter, *([student] if student else []), force=True)
    if not result["success"]:
        from autograder.course.printable import printable

        log = (result.get("error") or "") + (result.get("log") or "")
        log = "\n".join(map(printable, log[-3000:].splitlines()))  # may quote a student
        raise RuntimeError(f"nbgrader {step} {chapter} failed:\n{log}")


def nbgrader_command(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`nbgrader ARGS` run in the course root as an instructor types it (its own process, this
    environment's tools on PATH): what the benchmarks time as plain nbgrader."""
    env = dict(os.environ, PATH=_tools_first(os.environ.get("PATH", "")))
    env.pop("NBGRADER_EXECUTION", None)
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"nbgrader {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return done
