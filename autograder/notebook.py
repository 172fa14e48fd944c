"""Finding the student's code in a notebook: the solution cells, whatever happened to their metadata."""

import ast
import threading
from pathlib import Path

import nbformat

# CPython 3.11 can raise a spurious "AST constructor recursion depth mismatch" SystemError when
# threads build ASTs at once (python/cpython#106905); NumPy's .npy header reader builds one too.
# Grading threads in one process take this lock around anything that parses.
PARSING = threading.Lock()


MAX_NOTEBOOK_BYTES = 64 * 1024**2


def read_notebook(path: str | Path) -> dict:
    """The notebook as a dict of nbformat 4; ValueError saying why when the file is not one."""
    path = Path(path)
    if path.is_symlink():
        raise ValueError(f"{path} is a symbolic link, not a notebook")
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {path}")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{path} is larger than {MAX_NOTEBOOK_BYTES // 1024**2} MB")
    try:
        with PARSING:
            notebook = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    except Exception as error:  # JSON, encoding, unknown nbformat: all mean "not a notebook"
        raise ValueError(
            f"{path} is not a Jupyter notebook ({type(error).__name__}: {error})"
        ) from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(
        isinstance(cell, dict)
        and isinstance(cell.get("cell_type"), str)
        and isinstance(cell.get("source", ""), str | list)
        and all(
            isinstance(line, str)
            for line in cell.get("source", [])
            if isinstance(cell.get("source"), list)
        )
        for cell in cells
    ):
        raise ValueError(f"{path} is not a Jupyter notebook (malformed cells)")
    return notebook


def cell_source(cell: dict) -> str:
    """A cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _defines(source: str, names: set[str]) -> bool:
    try:
        with PARSING:
            tree = ast.parse(source)
    except SyntaxError:
        return any(f"def {name}(" in source for name in names)
    return any(isinstance(node, ast.FunctionDef) and node.name in names for node in tree.body)


def _nbgrader(cell: dict) -> dict:
    meta = (
        cell.get("metadata", {}).get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
    )
    return meta if isinstance(meta, dict) else {}


def _locked_sources(notebook: dict) -> set[str]:
    """Sources of the code cells a notebook marks as locked (set-up, demonstrations, tests)."""
    return {
        cell_source(cell).strip()
        for cell in notebook["cells"]
        if cell.get("cell_type") == "code"
        and (_nbgrader(cell).get("locked") or _nbgrader(cell).get("grade"))
    }


def student_sources(
    notebook: dict, function_names: set[str], released: dict | None = None
) -> list[str]:
    """The student's code, in notebook order: what grading runs before the checks.

    The rule: every code cell except the locked ones (the set-up, the instructor's demonstrations
    and the test cells), whether a cell is locked being read from its nbgrader metadata and, when
    the released notebook is given, from the released locked cells' sources as well (so stripping
    metadata changes nothing). Solution cells and cells the student added are all kept. When no
    cell carries nbgrader metadata and no released notebook is given, the cells defining an
    exercise are taken.
    """
    code_cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    locked = _locked_sources(released) if released else set()
    if not locked and not any(_nbgrader(cell) for cell in code_cells):
        return [
            cell_source(cell) for cell in code_cells if _defines(cell_source(cell), function_names)
        ]
    return [
        cell_source(cell)
        for cell in code_cells
        if not (_nbgrader(cell).get("locked") or _nbgrader(cell).get("grade"))
        and cell_source(cell).strip() not in locked
    ]
