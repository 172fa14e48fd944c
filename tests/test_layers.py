"""The package's layers: every import goes down, never up or around a circle.

From the bottom: what runs inside a sandbox (`sandbox.guest`, which imports nothing else of the
project) and the repository's paths; what builds and talks to a sandbox (`sandbox.host`); the
grading core (`judge`, with one check module per exercise); the hidden-test cells' entry point
(`kernel`) and the instructor's nbgrader flow (`course`); the student kit and the submission
server, which grade through `course`; the command lines (`cli`) on top.
"""

import ast
from pathlib import Path

from conftest import REPO

LAYERS = {
    "autograder": 0,  # the package's __init__: one environment variable, set before NumPy loads
    "autograder.paths": 0,
    "autograder.sandbox": 0,
    "autograder.sandbox.guest": 0,
    "autograder.sandbox.host": 1,
    "autograder.judge": 2,
    "autograder.kernel": 3,
    "autograder.course": 3,
    "autograder.kit": 4,
    "autograder.server": 4,
    "autograder.cli": 5,
    "autograder.__main__": 6,
}


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((REPO / "autograder").rglob("*.py")):
        name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    return modules


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `path` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name.startswith("autograder"):
                found.add(name)
    return found


def _layer(module: str) -> tuple[str, int]:
    """The layer a module belongs to: its longest prefix in LAYERS."""
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return prefix, LAYERS[prefix]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(p, modules) - {m} for m, p in modules.items()}


def test_every_import_goes_down_a_layer_or_stays_in_its_package():
    upward = []
    for module, imported in _graph().items():
        package, level = _layer(module)
        for other in imported:
            other_package, other_level = _layer(other)
            if other_package == package or other in ("autograder",):
                continue
            if other_level >= level:
                upward.append(f"{module} -> {other}")
    assert upward == []


def test_no_module_imports_itself_around_a_circle():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = 1
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                return [*path, module, other]
            if other not in state and (circle := visit(other, [*path, module])):
                return circle
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            assert (circle := visit(module, [])) is None, " -> ".join(circle)


def test_the_layers_name_every_package():
    for module in _graph():
        assert _layer(module)[0], module
