"""Finding the student's code in a notebook: the solution cells, whatever happened to their metadata."""

import ast
import re
import threading
from pathlib import Path

# CPython 3.11 can raise a spurious "AST constructor recursion depth mismatch" SystemError when
# threads build ASTs at once (python/cpython#106905); NumPy's .npy header reader builds one too.
# Grading threads in one process take this lock around anything that parses.
PARSING = threading.Lock()


MAX_NOTEBOOK_BYTES = 64 * 1024**2

# nbformat and nbgrader are imported where notebooks are read, never at import: this module is
# loaded by the notebooks' hidden-test cells (through autograder.kernel) and by the tamper scan,
# and nbformat alone takes a second.


def read_notebook(path: str | Path) -> dict:
    """The notebook as nbformat 4 (a NotebookNode); ValueError saying why when the file is not one."""
    import nbformat

    path = Path(path)
    if path.is_symlink():
        raise ValueError(f"{path} is a symbolic link, not a notebook")
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {path}")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{path} is larger than {MAX_NOTEBOOK_BYTES // 1024**2} MB")
    try:
        with PARSING, path.open(encoding="utf-8") as handle:
            notebook = nbformat.read(handle, as_version=4)
    except Exception as error:  # JSON, encoding, unknown nbformat: all mean "not a notebook"
        raise ValueError(
            f"{path} is not a Jupyter notebook ({type(error).__name__}: {error})"
        ) from None
    if not _well_formed(notebook):
        raise ValueError(
            f"{path} is not a Jupyter notebook (expected a list of cells, each with a type, "
            "its source as text and its metadata, nbgrader's a mapping with a text grade id)"
        )
    if not _unicode(notebook):
        raise ValueError(
            f"{path} is not a Jupyter notebook (expected text; it holds a lone surrogate, "
            "an escape such as \\ud800 that is half of a character and cannot be written as UTF-8)"
        )
    return notebook


def _unicode(notebook: dict) -> bool:
    """Whether every text of the notebook (keys and values) can be written as UTF-8: JSON's
    escapes can spell half a character (a lone surrogate), which every page and file writer then
    fails on; Jupyter never writes one."""
    pending: list[object] = [notebook]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending += value.keys()
            pending += value.values()
        elif isinstance(value, list):
            pending += value
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def _well_formed(notebook: object) -> bool:
    """Whether every cell has what grading reads: a type, text source, metadata (nbgrader's a dict, its grade id text)."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    return isinstance(cells, list) and all(
        isinstance(cell, dict)
        and isinstance(cell.get("cell_type"), str)
        and isinstance(cell.get("source"), str)
        and isinstance(cell.get("metadata"), dict)
        and isinstance(cell["metadata"].get("nbgrader", {}), dict)
        and isinstance(cell["metadata"].get("nbgrader", {}).get("grade_id", ""), str)
        for cell in cells
    )


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


def _locked_sources(notebook: dict) -> set[str]:
    """Sources of the code cells a notebook marks as locked (set-up, demonstrations, tests)."""
    from nbgrader.utils import is_locked

    return {
        cell_source(cell).strip()
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and is_locked(cell)
    }


def checksum(cell: dict) -> str | None:
    """nbgrader's checksum of a cell (source, type, grading metadata); None when it cannot be computed."""
    import nbformat
    from nbgrader.utils import compute_checksum

    try:
        return compute_checksum(nbformat.from_dict({**cell, "source": cell_source(cell)}))
    except Exception:  # metadata a student mangled: not the released cell
        return None


def _is_draft(cell: dict) -> bool:
    """A locked cell that hands out a debug exercise's draft: definitions only."""
    grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
    return cell["cell_type"] == "code" and grade_id.endswith("_draft")


def _unedited_draft(cell: dict) -> bool:
    """A draft cell as released: its source still matches the checksum the release gave it."""
    recorded = cell["metadata"].get("nbgrader", {}).get("checksum")
    return _is_draft(cell) and recorded is not None and checksum(cell) == recorded


def student_sources(
    notebook: dict, function_names: set[str], released: dict | None = None
) -> list[str]:
    """The student's code, in notebook order: what grading runs before the checks (`student_cells`)."""
    return [source for _, source in student_cells(notebook, function_names, released)]


def student_cells(
    notebook: dict, function_names: set[str], released: dict | None = None
) -> list[tuple[int, str]]:
    """The student's code cells, in notebook order: each one's number in the notebook (1 for its
    first cell, markdown cells counted, as the student counts them) and its source.

    The rule: every code cell except the locked ones (the set-up, the instructor's demonstrations
    and the test cells), whether a cell is locked being read from its nbgrader metadata and, when
    the released notebook is given, from the released locked cells' sources as well (so stripping
    metadata changes nothing). Solution cells and cells the student added are all kept, and so
    are the unedited drafts of the debug exercises (locked, but only definitions a solution may
    call, as it can when the notebook runs top to bottom): unedited means the release's source or,
    without a release, the checksum nbgrader gave the cell. When no cell carries nbgrader metadata and no
    released notebook is given, the cells defining an exercise are taken. Both notebooks are as
    `read_notebook` returns them.
    """
    from nbgrader.utils import is_locked

    code_cells = [
        (number, cell)
        for number, cell in enumerate(notebook["cells"], start=1)
        if cell["cell_type"] == "code"
    ]
    locked = _locked_sources(released) if released else set()
    drafts = (
        {cell_source(cell).strip() for cell in released["cells"] if _is_draft(cell)}
        if released
        else set()
    )
    if not locked and not any("nbgrader" in cell["metadata"] for _, cell in code_cells):
        return [
            (number, cell_source(cell))
            for number, cell in code_cells
            if _defines(cell_source(cell), function_names)
        ]
    return [
        (number, cell_source(cell))
        for number, cell in code_cells
        if (not is_locked(cell) and cell_source(cell).strip() not in locked)
        or (not released and _unedited_draft(cell))
        or cell_source(cell).strip() in drafts
    ]


FIRST_LINE_CHARS = 60  # of a cell's first line quoted in a note
FIRST_LINE = re.compile(rf"\S[^\n]{{0,{FIRST_LINE_CHARS}}}")  # one character more than is quoted


def cell_label(number: int, source: str) -> str:
    """How a note names a cell of the student's: its number in the notebook and its first line
    (the first that is not blank, cut to FIRST_LINE_CHARS, printable)."""
    found = FIRST_LINE.search(source)  # stops after the first line that is not blank begins
    first = found.group(0).strip() if found else ""
    if len(first) > FIRST_LINE_CHARS:
        first = first[:FIRST_LINE_CHARS] + "…"
    first = "".join(ch if ch.isprintable() else "?" for ch in first)
    return f'cell {number} of the notebook (it begins "{first}")' if first else f"cell {number}"
