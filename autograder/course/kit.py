"""The student kit: what an instructor hands out, and nothing of the grader's.

    python -m autograder.course.kit DIR     # writes DIR/ and DIR.zip

DIR holds the released notebooks (`notebooks/`, made by nbgrader as in `make chapters`), the
library `proof_lm/` with a pyproject of its own, the names corpus it reads (`data/`), the pinned
requirements a student needs and a README (set-up in two commands, how to hand in). It holds no
source notebook, no hidden test and nothing of `autograder`: the released notebooks' visible tests
need only `proof_lm`, NumPy and PyTorch, so students grade nothing themselves with the kit.
"""

import shutil
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.course.release import student_notebooks
from autograder.wall.paths import REPO

# What students run beside the library's own dependencies: JupyterLab and the notebooks' kernel.
TOOLS = ("jupyterlab", "ipykernel")
README = Path(__file__).resolve().parent / "student_readme.md"
UNWANTED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def _project() -> dict:
    """The repository's [project] table."""
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def student_requirements() -> list[str]:
    """Pins for the library's dependencies and TOOLS with all they pull in (as installed here).

    What they pull in is read from the installed packages' metadata, for this platform (a package
    only Windows or macOS needs is left to pip there, unpinned). Versions are the repository's requirements.txt pins; a package it leaves out (pip freeze omits
    setuptools, which PyTorch needs) is pinned at the version installed in this environment.
    """
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pins[canonicalize_name(Requirement(line).name)] = line.strip()
    wanted = [Requirement(spec) for spec in _project()["dependencies"]]
    wanted += [Requirement(tool) for tool in TOOLS]
    needed: dict[str, set[str]] = {}  # name: the extras asked of it
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in needed and requirement.extras <= needed[name]:
            continue
        extras = needed.setdefault(name, set())
        extras |= requirement.extras
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            raise ValueError(
                f"{name}, which the student kit needs, is not installed here: expected the "
                "environment of requirements.txt (make venv)"
            ) from None
        for spec in requires:
            dependency = Requirement(spec)
            marker = dependency.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in {"", *extras}):
                wanted.append(dependency)
    return [pins.get(name) or f"{name}=={metadata.version(name)}" for name in sorted(needed)]


def _pyproject() -> str:
    """A pyproject.toml that installs `proof_lm` alone, with the repository's name and dependencies."""
    project = _project()
    dependencies = "".join(f'    "{spec}",\n' for spec in project["dependencies"])
    return (
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{project["name"]}"\nversion = "{project["version"]}"\n'
        f'description = "{project["description"]}"\n'
        f'requires-python = "{project["requires-python"]}"\n'
        f"dependencies = [\n{dependencies}]\n\n"
        '[tool.setuptools]\npackages = ["proof_lm"]\n'
    )


def build_kit(target: Path) -> Path:
    """Write the student kit into the new folder `target` and beside it `target`.zip; return the folder."""
    if target.exists():
        raise ValueError(f"{target} exists: expected a path for a new folder (the student kit)")
    student_notebooks(target / "notebooks")
    shutil.copytree(REPO / "proof_lm", target / "proof_lm", ignore=UNWANTED)
    shutil.copytree(REPO / "data", target / "data", ignore=UNWANTED)
    (target / "pyproject.toml").write_text(_pyproject())
    (target / "requirements.txt").write_text("".join(f"{pin}\n" for pin in student_requirements()))
    shutil.copyfile(README, target / "README.md")
    shutil.make_archive(str(target), "zip", root_dir=target.parent, base_dir=target.name)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m autograder.course.kit DIR   (a new folder for the student kit)")
    try:
        kit = build_kit(Path(sys.argv[1]))
    except ValueError as error:
        sys.exit(str(error))
    print(f"student kit in {kit}/ and {kit}.zip")
