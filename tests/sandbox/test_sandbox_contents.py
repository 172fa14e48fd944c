"""The trust boundary is a folder: `autograder/sandbox/guest` is everything a sandbox holds of the grader.

A grading process sees `autograder.sandbox.guest` copied whole; nothing of the judge, the checks, the references or the exercise list. These tests fail when a module of `autograder.sandbox.guest` imports
anything of the project outside it, or when the copy a sandbox mounts is not the whole folder.
"""

import ast
import importlib.util
import json
import marshal
import os
import site
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder.judge import mounted
from autograder.paths import GUEST, REPO

PROJECT = {"autograder", "proof_lm"}


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an `import` statement of `path` names (relative imports resolved), with its line."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}".rstrip(".")
            names = [f"{base}.{alias.name}" for alias in node.names]
            found += [(node.lineno, base if base != "autograder" else name) for name in names]
    return found


def test_inside_imports_nothing_of_the_project_outside_itself() -> None:
    outside = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for path in sorted(GUEST.rglob("*.py"))
        for line, name in _imports(path)
        if name.split(".")[0] in PROJECT
        and not (name == "autograder.sandbox.guest" or name.startswith("autograder.sandbox.guest."))
    ]
    assert not outside, outside


def test_the_sandbox_copy_is_the_whole_folder() -> None:
    inside = {p.relative_to(GUEST) for p in GUEST.rglob("*.py")}
    package = mounted.grading_package("softmax")
    copied = {
        p.relative_to(package / "sandbox" / "guest")
        for p in (package / "sandbox" / "guest").rglob("*.py")
    }
    assert copied == inside
    for path in copied:
        assert (package / "sandbox" / "guest" / path).read_bytes() == (GUEST / path).read_bytes()
    assert {p.name for p in package.glob("*.py")} == {"__init__.py"}


def test_what_answers_the_exercise_is_cut_from_its_copy_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """linear_loss_and_grad's sandbox holds every module, but the sgd_train probe's softmax
    regression in it refuses (the answer-key rule); its other problems still work."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # the copy stays as a sandbox mounts it
    package = mounted.grading_package("linear_loss_and_grad")
    assert {p.relative_to(package) for p in package.rglob("*.py")} == {
        p.relative_to(mounted.grading_package("softmax"))
        for p in mounted.grading_package("softmax").rglob("*.py")
    }
    spec = importlib.util.spec_from_file_location(
        "copied_probes", package / "sandbox" / "guest" / "probes.py"
    )
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    X, Y = np.eye(3), np.arange(3)
    with pytest.raises(RuntimeError, match="answer-key rule"):
        probes.softmax_regression({"W": np.zeros((3, 3)), "b": np.zeros(3)}, X, Y)
    loss, _ = probes.PROBLEMS["least_squares"]({"w": np.ones(3), "c": np.array(0.0)}, X, 1.0 * Y)
    assert loss == pytest.approx(0.5 * np.mean((1 - Y) ** 2))


PROBE = """
import importlib, json, sys
sys.path[:] = [*json.loads(sys.argv[1]), *sys.path]  # python -S: the standard library alone
names = json.loads(sys.argv[2])
for name in names:
    importlib.import_module(name)
loaded = {n: getattr(m, "__file__", None) for n, m in sys.modules.items()}
print(json.dumps({n: f for n, f in loaded.items() if n.split(".")[0] in ("autograder", "proof_lm")}))
"""


def test_the_sandbox_copy_imports_alone() -> None:
    """Every module of the copy a grading process mounts imports with only it, site-packages and the
    standard library on sys.path (`-S`: no .pth file, so no editable install's finder, reaches the
    project)."""
    package = mounted.grading_package("softmax")
    modules = sorted(
        "autograder." + ".".join(p.relative_to(package).with_suffix("").parts)
        for p in (package / "sandbox" / "guest").rglob("*.py")
    )
    modules = [name.removesuffix(".__init__") for name in modules]
    path = [str(package.parent), *site.getsitepackages()]
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", PROBE, json.dumps(path), json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout)
    assert set(modules) <= set(loaded)
    for name, file in loaded.items():
        assert name.split(".")[0] == "autograder", name  # no proof_lm
        assert name in ("autograder", "autograder.sandbox") or name.startswith(
            "autograder.sandbox.guest"
        )
        assert file and Path(file).is_relative_to(package), (name, file)


def test_the_contract_is_data_only_and_the_trusted_side_takes_it_from_there() -> None:
    """`protocol.py` holds what both sides agree on (frames, `Call`, `Outcome`): it imports the
    standard library alone and defines no function of its own; no module outside the guest imports
    the contract's types from the module that runs student code (`calls.py`)."""
    contract = GUEST / "protocol.py"
    tree = ast.parse(contract.read_text())
    imported = {name.split(".")[0] for _, name in _imports(contract)}
    assert imported and imported <= sys.stdlib_module_names, imported
    assert not [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert {"Call", "Outcome"} <= classes
    through_calls = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path in sorted((REPO / "autograder").rglob("*.py"))
        if GUEST not in path.parents
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and node.module == "autograder.sandbox.guest.calls"
        and {alias.name for alias in node.names} & classes
    ]
    assert through_calls == []


def test_the_pytorch_stand_in_refuses_only_where_it_stands_in() -> None:
    """Mounted as `torch`, the guest's `no_torch` turns every use of PyTorch into NoPyTorch; imported
    under its own name (the guest is copied whole), it changes nothing."""
    code = (
        "import importlib, importlib.util, sys\n"
        "stand_in = importlib.import_module('autograder.sandbox.guest.no_torch')\n"
        "assert stand_in.Finder not in map(type, sys.meta_path), 'installed under its own name'\n"
        "spec = importlib.util.spec_from_file_location('torch', stand_in.__file__)\n"
        "module = sys.modules['torch'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "import torch.nn.functional as F\n"
        "try:\n"
        "    F.softmax\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("NoPyTorch PyTorch is not available"), done.stdout


def test_the_bytecode_beside_a_cut_copy_is_compiled_from_the_copy_as_cut() -> None:
    """A grading process loads the bytecode compiled beside the copies it mounts (read-only: it
    could not write its own): each module's is the copy's source as cut, up to date, so nothing
    cut from a module comes back through its `.pyc`; it names its source by the path the sandbox
    mounts, never by where the host keeps its copies."""
    copies = {  # each copy, and what it is a copy of
        mounted.library_without("bigram_counts"): REPO / "proof_lm",
        mounted.grading_package("linear_loss_and_grad") / "sandbox": REPO
        / "autograder"
        / "sandbox",
    }
    host_folder = Path(os.path.commonpath(list(copies)))  # where the host keeps every copy
    assert host_folder.name.startswith("proof-lm-answer-key-"), host_folder
    cut = 0
    for package, original in copies.items():
        for source in sorted(package.rglob("*.py")):
            data = Path(importlib.util.cache_from_source(str(source))).read_bytes()
            stat = source.stat()
            header = int(stat.st_mtime).to_bytes(4, "little") + stat.st_size.to_bytes(4, "little")
            assert data[8:16] == header, (
                f"the bytecode of {source} is stale: it would be compiled again"
            )
            code = marshal.loads(data[16:])
            assert code == compile(source.read_bytes(), str(source), "exec")
            seen_at = original / source.relative_to(package)  # where the sandbox mounts it
            assert code.co_filename == str(seen_at), code.co_filename
            assert str(host_folder).encode() not in data, (
                f"the bytecode of {source} records the host's folder of answer-key copies"
            )
            cut += source.read_bytes() != (original / source.relative_to(package)).read_bytes()
    assert cut >= 2, "no module of the copies was cut: the test compares nothing that matters"
