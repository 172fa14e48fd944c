"""The student kit: what an instructor hands out, and nothing of the grader's.

    python -m autograder.kit.build DIR [--server URL] [--course COURSE] [--answers-through CHAPTER]

DIR holds the released notebooks (`notebooks/`, made by nbgrader as in `make chapters`), the
library `proof_lm/` with a pyproject of its own (holding back what answers an exercise not yet due:
`autograder.kit.stages`), the names corpus it reads (`data/`), the pinned
requirements a student needs, a README (set-up in two commands, how to hand in), the page of
measurements the chapters cite (`docs/verdicts.md`: their verdicts over seeds) and the client
that hands a notebook in to the course's submission server (`submit.py`, standard library only, with
its `submit.toml`: the server's address, when given, and a place for the student's token), and beside
it JupyterLab's Hand In button (`proof_lm_handin/`: it saves the open notebook and runs `submit.py`
on it), which the kit's pyproject installs with the library. It holds no
source notebook, no hidden test and nothing of `autograder`: the released notebooks' visible tests
need only `proof_lm`, NumPy and PyTorch, so students grade nothing themselves with the kit.
"""

import argparse
import ast
import itertools
import re
import shutil
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.course.release import student_notebooks
from autograder.kit.stages import hold_back, released, stage_table
from autograder.paths import REPO

# What students run beside the library's own dependencies: JupyterLab and the notebooks' kernel.
TOOLS = ("jupyterlab", "ipykernel")
README = Path(__file__).resolve().parent / "student_readme.md"
SUBMIT = Path(__file__).resolve().parent / "client.py"  # shipped as the kit's submit.py
HAND_IN = Path(__file__).resolve().parent / "proof_lm_handin"  # shipped as is, beside submit.py
SERVER_CONFIG = "etc/jupyter/jupyter_server_config.d/proof_lm_handin.json"  # enables its endpoint
UNWANTED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def _project() -> dict:
    """The repository's [project] table."""
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def library_dependencies() -> list[str]:
    """The repository's dependencies that `proof_lm` imports (not the grader's or the server's)."""
    imported = set()
    for path in (REPO / "proof_lm").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    providers = metadata.packages_distributions()
    used = {canonicalize_name(d) for module in imported for d in providers.get(module, [])}
    return [s for s in _project()["dependencies"] if canonicalize_name(Requirement(s).name) in used]


def student_requirements() -> list[str]:
    """Pins for the library's dependencies and TOOLS with all they pull in (as installed here).

    What they pull in is read from the installed packages' metadata, for this platform (a package
    only Windows or macOS needs is left to pip there, unpinned). Versions are the repository's requirements.txt pins; a package it leaves out (pip freeze omits
    setuptools, which PyTorch needs) is pinned at the version installed in this environment.
    """
    pins = _pins()
    wanted = [Requirement(spec) for spec in library_dependencies()]
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


def _pins() -> dict[str, str]:
    """The repository's requirements.txt: canonical name -> its pin."""
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pins[canonicalize_name(Requirement(line).name)] = line.strip()
    return pins


def _pyproject() -> str:
    """A pyproject.toml that installs `proof_lm` and the Hand In button, with the library's dependencies.

    The build backend is hatchling because its editable install (`pip install -e .`) also puts the
    button's files where Jupyter finds them (setuptools' leaves data files out), so the kit's one
    install command sets up the library, JupyterLab and the button alike.
    """
    project = _project()
    dependencies = "".join(f'    "{spec}",\n' for spec in library_dependencies())
    shared = {
        "proof_lm_handin/labextension": "share/jupyter/labextensions/proof-lm-hand-in",
        "proof_lm_handin/proof_lm_handin.json": SERVER_CONFIG,
    }
    return (
        f'[build-system]\nrequires = ["{_pins()["hatchling"]}"]\n'
        'build-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{project["name"]}"\nversion = "{project["version"]}"\n'
        f'description = "{project["description"]}"\n'
        f'requires-python = "{project["requires-python"]}"\n'
        f"dependencies = [\n{dependencies}]\n\n"
        '[tool.hatch.build.targets.wheel]\npackages = ["proof_lm", "proof_lm_handin"]\n'
        # editable: the kit's folder on the path (so no `editables` package to fetch for the build)
        'dev-mode-dirs = ["."]\n\n'
        "[tool.hatch.build.targets.wheel.shared-data]\n"
        + "".join(f'"{source}" = "{target}"\n' for source, target in shared.items())
    )


def submit_config(server: str | None, token: str = "") -> str:
    """The kit's submit.toml: the submission server's address (when given) and the token (empty in
    the kit; a student's own in the file `tokens --submit-toml` writes for them)."""
    if server is not None and not re.fullmatch(
        r"https?://[A-Za-z0-9.:\[\]_-]+(/[\w./-]*)?", server
    ):
        raise ValueError(f"{server!r}: expected the server's address, e.g. https://host[:port]")
    if not re.fullmatch(r"[A-Za-z0-9_-]*", token):
        raise ValueError("expected a token as `tokens` issues it (letters, digits, _ and -)")
    return (
        "# Where `python submit.py NOTEBOOK` hands in (PROOF_LM_SERVER / PROOF_LM_TOKEN override).\n"
        f'server = "{server or ""}"\n'
        "# Your own token, from your instructor: keep it secret (a new one replaces the old).\n"
        f'token = "{token}"\n'
    )


# chapters whose written answers ask students to predict or work out the figures of their section
PREDICTED = ("08_gpt", "09_tokenization")


def kit_verdicts(page: str, released_chapters: list[str]) -> str:
    """docs/verdicts.md as a kit of this stage carries it: the section of a chapter in PREDICTED
    only once its deadline has passed (before, its heading and when it comes)."""
    heading = r"## Chapter (\d\d)[ \t\r]*\n"  # a stray space or CR must not ship a section early
    starts = [0] + [m.start() for m in re.finditer(rf"(?m)^{heading}", page)] + [len(page)]
    parts = [page[a:b] for a, b in itertools.pairwise(starts)]  # empty ones join to ""
    numbers = [re.match(heading, part) for part in parts]
    found = [number[1] for number in numbers if number]
    if found != sorted(set(found)):  # a heading out of order would end a held section early
        raise ValueError(
            f"the verdicts page's chapter headings must be unique and in order: {found}"
        )
    for chapter in PREDICTED:
        if found.count(chapter[:2]) != 1:
            raise ValueError(
                f"the verdicts page must have exactly one heading line '## Chapter {chapter[:2]}' "
                f"(it has {found.count(chapter[:2])}): the kit holds that section back by it"
            )
    for i, number in enumerate(numbers):
        chapter = next((c for c in PREDICTED if number and c.startswith(number[1])), None)
        if chapter is not None and chapter not in released_chapters:
            parts[i] = (
                f"## Chapter {number[1]}\n\nIn the kit issued after chapter {number[1]}'s deadline: its written "
                "answers ask you to predict\nor work out these figures yourself.\n\n"
            )
    kit = "".join(parts).rstrip("\n") + "\n"
    held = [c[:2] for c in PREDICTED if c not in released_chapters]
    for number in held:  # a held chapter named anywhere but its own heading's placeholder
        if len(re.findall(rf"(?i)chapter\W{{0,3}}0?{int(number)}\b", kit)) != 2:
            raise ValueError(f"the verdicts page names chapter {number} outside its own section")
    return kit


def build_kit(
    target: Path, server: str | None = None, released_chapters: list[str] | None = None
) -> Path:
    """Write the student kit into the new folder `target` and beside it `target`.zip; return the folder.

    `server`: the submission server's address written into the kit's submit.toml (else left empty).
    `released_chapters`: the chapters whose answers the library may hold (none by default).
    """
    config = submit_config(server)
    if target.exists():
        raise ValueError(f"{target} exists: expected a path for a new folder (the student kit)")
    student_notebooks(target / "notebooks")
    shutil.copytree(REPO / "proof_lm", target / "proof_lm", ignore=UNWANTED)
    stage = list(released_chapters or [])
    held = hold_back(target / "proof_lm", stage)
    shutil.copytree(REPO / "data", target / "data", ignore=UNWANTED)
    (target / "docs").mkdir()
    (target / "docs" / "verdicts.md").write_text(
        kit_verdicts((REPO / "docs" / "verdicts.md").read_text(), stage)
    )
    (target / "pyproject.toml").write_text(_pyproject())
    (target / "requirements.txt").write_text("".join(f"{pin}\n" for pin in student_requirements()))
    count = len(list((target / "notebooks").glob("*.ipynb")))
    readme = README.read_text().replace("{NOTEBOOKS}", str(count))
    (target / "README.md").write_text(readme.replace("{ANSWERS}", stage_table(stage, held)))
    shutil.copyfile(SUBMIT, target / "submit.py")
    shutil.copytree(HAND_IN, target / "proof_lm_handin", ignore=UNWANTED)
    (target / "submit.toml").write_text(config)
    shutil.make_archive(str(target), "zip", root_dir=target.parent, base_dir=target.name)
    return target


def main(argv: list[str] | None = None) -> None:
    """The command line: build the kit of the stage the course's deadlines (or the instructor) set."""
    parser = argparse.ArgumentParser(prog="python -m autograder.kit.build", description=__doc__)
    parser.add_argument("target", type=Path, help="a new folder for the student kit")
    parser.add_argument("--server", help="the submission server's address, e.g. https://host")
    parser.add_argument(
        "--course", type=Path, help="the course directory whose deadlines set the stage"
    )
    parser.add_argument(
        "--answers-through",
        help="carry the answers of every chapter up to this one, whatever the deadlines",
    )
    args = parser.parse_args(argv)
    try:
        stage = released(args.course, args.answers_through or None)
        kit = build_kit(args.target, args.server or None, stage)
    except ValueError as error:
        sys.exit(str(error))
    print(f"student kit in {kit}/ and {kit}.zip: answers of {', '.join(stage) or 'no chapter'}")


if __name__ == "__main__":
    main()
