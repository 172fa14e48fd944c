"""A student's notebook rebuilt before any of it is rendered: known fields of known types, cleaned outputs.

nbgrader's templates write fields of its cell metadata into the page unescaped, and nbconvert's
template writes an image's `width`/`height` metadata unquoted (`"width": "1 onerror=..."` adds a
handler). So `safe_notebook` (used where the autograded notebook is written and again before
feedback) keeps only what the pages need, typed, and every HTML output cleaned (`page_html`).
"""

import html as html_text
import uuid

from nbconvert.preprocessors import Preprocessor

from autograder.course.page_html import (
    OUTPUT_TYPES,
    SAFE_ID,
    TAGS_PER_PAGE,
    TYPED,
    _attachments,
    _base64,
    _text,
    as_text,
    clean_html,
)


def _size(metadata: dict, mime: str) -> dict[str, dict[str, int]]:
    """An image's width and height metadata, as integers (nothing else of it reaches a template)."""
    sizes = {}
    for where in (metadata.get(mime), metadata):
        for key in ("width", "height"):
            value = where.get(key) if isinstance(where, dict) else None
            if type(value) is int and 0 < value < 100_000 and key not in sizes:
                sizes[key] = value
    return {mime: sizes} if sizes else {}


def _output(output: object, budget: list[int]) -> dict | None:
    """One output rebuilt from the fields a template may show, each of the right type.

    `budget`: the tags the page's HTML outputs may still hold; an HTML output past it is text.
    """
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name = "stderr" if output.get("name") == "stderr" else "stdout"
        return {"output_type": "stream", "name": name, "text": _text(output.get("text", ""))}
    if kind == "error":
        traceback = output.get("traceback")
        return {
            "output_type": "error",
            "ename": _text(output.get("ename", "")),
            "evalue": _text(output.get("evalue", "")),
            "traceback": [_text(line) for line in traceback] if isinstance(traceback, list) else [],
        }
    if kind not in ("display_data", "execute_result"):
        return None
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    metadata = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
    kept, sizes = {}, {}
    for mime in OUTPUT_TYPES:
        if mime not in data:
            continue
        if mime in ("image/png", "image/jpeg"):
            value = _base64(data[mime])
            sizes.update(_size(metadata, mime))
        elif mime == "text/html":
            html = _text(data[mime])
            tags = html.count("<")
            budget[0] -= tags
            value = clean_html(html) if budget[0] >= 0 else as_text(html)
        else:  # SVG is shown as an <img> of base64 data (no script runs in one); text is escaped
            value = _text(data[mime])
        if value is not None:
            kept[mime] = value
    left_out = sorted(set(data) - set(kept))
    if left_out and "text/plain" not in kept:
        kept["text/plain"] = f"[output not shown: {', '.join(map(str, left_out))[:200]}]"
    rebuilt = {"output_type": kind, "data": kept, "metadata": sizes}
    if kind == "execute_result":
        count = output.get("execution_count")
        rebuilt["execution_count"] = count if type(count) is int else None
    return rebuilt


def _nbgrader(meta: object) -> dict | None:
    """nbgrader's cell metadata with a plain grade id and typed fields, or None."""
    if not isinstance(meta, dict):
        return None
    grade_id = meta.get("grade_id")
    if grade_id is not None and not (isinstance(grade_id, str) and SAFE_ID.fullmatch(grade_id)):
        return None
    kept = {}
    for key, value in meta.items():
        if key in ("grade", "solution", "locked", "task"):
            kept[key] = value is True
        elif key in TYPED and isinstance(value, TYPED[key]) and type(value) is not bool:
            kept[key] = value
    return kept


def _cell(cell: dict, budget: list[int]) -> dict | None:
    """One cell with only what the templates need, every field of the right type."""
    kind = cell.get("cell_type")
    if kind not in ("code", "markdown", "raw"):
        return None
    metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
    kept = {k: v for k, v in metadata.items() if k in ("deletable", "editable") and type(v) is bool}
    nbgrader = _nbgrader(metadata.get("nbgrader"))
    if nbgrader is not None:
        kept["nbgrader"] = nbgrader
    tags = metadata.get("tags")
    if isinstance(tags, list):
        kept["tags"] = [t for t in tags if isinstance(t, str) and SAFE_ID.fullmatch(t)]
    safe = {"cell_type": kind, "metadata": kept, "source": _text(cell.get("source", ""))}
    ok = isinstance(cell.get("id"), str) and SAFE_ID.fullmatch(cell["id"])
    safe["id"] = cell["id"] if ok else uuid.uuid4().hex[:12]
    if kind == "code":
        count = cell.get("execution_count")
        safe["execution_count"] = count if type(count) is int else None
        outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
        safe["outputs"] = [o for o in (_output(o, budget) for o in outputs) if o is not None]
    elif kind == "markdown":
        attachments = _attachments(cell.get("attachments"))
        if attachments:
            safe["attachments"] = attachments
    else:  # a raw cell is shown as text, never as markup
        safe["source"] = html_text.escape(safe["source"])
    return safe


def safe_notebook(notebook: dict) -> dict:
    """`notebook` with nothing a template could turn into script (in place, and returned).

    Cells keep their source, their nbgrader metadata (with a plain grade id), typed prompts and
    outputs of harmless types only: text, images as checked base64 with integer sizes, HTML cleaned
    by nh3, SVG (shown as an image), markdown and LaTeX (rendered and cleaned later). JavaScript,
    widget views and any other type are replaced by a note; attachments keep PNG, JPEG and GIF
    under plain names; notebook metadata keeps only the kernel's and the language's description (the
    language's as single words: nbconvert makes a class of its lexer's name).
    """
    cells = notebook.get("cells") if isinstance(notebook.get("cells"), list) else []
    budget = [TAGS_PER_PAGE]  # "<" the page's HTML outputs may hold (tests/course/test_pages.py)
    notebook["cells"] = [c for c in (_cell(c, budget) for c in cells if isinstance(c, dict)) if c]
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    kernelspec, language = metadata.get("kernelspec"), metadata.get("language_info")
    notebook["metadata"] = {}
    if isinstance(kernelspec, dict) and all(isinstance(v, str) for v in kernelspec.values()):
        notebook["metadata"]["kernelspec"] = kernelspec
    if isinstance(language, dict):  # one word each: the lexer's name becomes a class of the code
        notebook["metadata"]["language_info"] = {
            k: v for k, v in language.items() if isinstance(v, str) and SAFE_ID.fullmatch(v)
        }
    return notebook


class SafeNotebook(Preprocessor):
    """`safe_notebook` as an nbconvert preprocessor (feedback is generated from what it leaves)."""

    def preprocess(self, nb: object, resources: dict) -> tuple[object, dict]:
        """Make the whole notebook safe to render."""
        import nbformat

        return nbformat.from_dict(safe_notebook(dict(nb))), resources
