"""Finding the student's code in a notebook: the solution cells, whatever happened to their metadata."""

import ast
import json
import threading
from pathlib import Path

# CPython 3.11 can raise a spurious "AST constructor recursion depth mismatch" SystemError when
# threads build ASTs at once (python/cpython#106905); NumPy's .npy header reader builds one too.
# Grading threads in one process take this lock around anything that parses.
PARSING = threading.Lock()


def read_notebook(path: str | Path) -> dict:
    """The notebook as a dict; ValueError when the file is not a notebook."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {path}")
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a Jupyter notebook (invalid JSON: {error})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError(f"{path} is not a Jupyter notebook (no list of cells)")
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


def solution_sources(notebook: dict, function_names: set[str]) -> list[str]:
    """Sources of the solution cells; when nbgrader metadata is gone, the code cells that define an exercise."""
    code_cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    marked = [
        cell_source(cell)
        for cell in code_cells
        if isinstance(cell.get("metadata", {}).get("nbgrader"), dict)
        and cell["metadata"]["nbgrader"].get("solution") is True
    ]
    if marked:
        return marked
    return [cell_source(cell) for cell in code_cells if _defines(cell_source(cell), function_names)]
