"""A normal (non-editable) install holds every module: a wheel is built and imported on its own.

`pip wheel` builds the project's wheel; it is unpacked into a temporary folder and a fresh
interpreter imports every module of `proof_lm` and `autograder` from there (and from nowhere else:
each module's file must lie in the unpacked wheel, not in the repository the editable install
points at). Every module of the repository must be in the wheel, and the student kit's README and Hand In button too,
and the server's alembic scripts (files alembic runs, in folders that are not packages): the
unpacked wheel makes a database with them.
"""

import json
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow
PACKAGES = ("proof_lm", "autograder")

IMPORT_ALL = """
import importlib, importlib.util, json, pkgutil, sys
root = sys.argv[1]
sys.path.insert(0, root)
names, outside = [], []
for package in ("proof_lm", "autograder"):
    module = importlib.import_module(package)
    names.append(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # importing it would run the command line
        names.append(info.name)
        if info.name != "autograder.course.nbgrader_config":  # a traitlets config file
            importlib.import_module(info.name)
        else:
            importlib.util.find_spec(info.name)
for name in names:
    path = importlib.util.find_spec(name).origin
    if not path.startswith(root):
        outside.append((name, path))
from autograder.server.db import open_database
open_database(f"sqlite:///{root}/submissions.db")  # alembic's scripts, from the wheel
print(json.dumps({"names": sorted(names), "outside": outside}))
"""


def _repo_modules() -> set[str]:
    """Every module of the two packages in the repository (but __main__, and the scripts alembic
    runs, which lie in folders that are not packages)."""
    found = set()
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[-1] == "__main__" or not (path.parent / "__init__.py").exists():
                continue
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_a_wheel_holds_and_imports_every_module(tmp_path):
    source = tmp_path / "source"  # a clean copy: no build/ left by an earlier build, none made here
    source.mkdir()
    shutil.copy(REPO / "pyproject.toml", source)
    for package in PACKAGES:
        shutil.copytree(
            REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation"),
            *("-w", str(tmp_path / "dist"), "--quiet", "--disable-pip-version-check"),
        ],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("proof_lm-*.whl")
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
        members = set(archive.namelist())
    assert "autograder/kit/student_readme.md" in members
    assert "autograder/sandbox/guest/torch_refused.json" in members  # the attention guard's table
    button = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "autograder/kit/proof_lm_handin").rglob("*.*")
        if "__pycache__" not in p.parts
    }
    assert len(button) == 5 and button <= members, button - members  # the kit's Hand In button
    templates = {
        p.relative_to(REPO).as_posix() for p in (REPO / "autograder/server/templates").iterdir()
    }
    assert templates and templates <= members, templates - members  # the web pages' templates
    migrations = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "autograder/server/migrations").rglob("*.*")
        if "__pycache__" not in p.parts
    }
    assert len(migrations) >= 2 and migrations <= members, migrations - members  # alembic's
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(unpacked)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["outside"] == [], seen["outside"]
    assert set(seen["names"]) == _repo_modules()


def _declared() -> dict[str, str]:
    """pyproject.toml's runtime dependencies: canonical name -> pinned version."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        (spec,) = requirement.specifier  # one pin each
        assert spec.operator == "==", f"{line}: pin it (==) as requirements.txt does"
        declared[canonicalize_name(requirement.name)] = spec.version
    return declared


def test_every_imported_distribution_is_a_pinned_dependency():
    """`pip install .` gives what the packages import: every third-party distribution a module of
    `proof_lm` or `autograder` imports (function-level imports included) is in pyproject.toml's
    dependencies, pinned to the version requirements.txt pins."""
    import ast
    import importlib.metadata

    from packaging.utils import canonicalize_name

    owners = importlib.metadata.packages_distributions()
    imported = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top in PACKAGES:
                        continue
                    for distribution in owners[top]:
                        imported.setdefault(canonicalize_name(distribution), path.name)
    assert len(imported) >= 15  # the scan sees the imports (numpy, torch, nbgrader, ...)
    declared = _declared()
    missing = {name: where for name, where in imported.items() if name not in declared}
    assert not missing, f"imported but not in pyproject.toml's dependencies: {missing}"
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        pins[canonicalize_name(name)] = version
    assert {name: pins.get(name) for name in declared} == declared
