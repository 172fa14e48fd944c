"""Reading an upload: the multipart body streamed with the size cap enforced while reading, then checked.

The body is read chunk by chunk (`capped`): past `max_bytes` plus a little room for the multipart
headers the read stops and the upload is refused, whatever Content-Length said (or did not say:
chunked bodies have none). Starlette's multipart parser (python-multipart) takes the chunks; the
file goes to a spooled temporary file, never to a path named after anything the student sent.
The file name must be `<chapter>.ipynb` for a released chapter (it is compared with the names of
the course's release folders, never joined into a path), and the bytes must be a notebook that
`autograder.judge.notebook` can read.

Before the file's data is read, as soon as the file part's headers have come (between two chunks
of the body), `read_upload` calls `fields(...)` with the fields sent before the file (the web
form's CSRF token), then checks the file name, then calls `gate(chapter)`, so a refusal there (a
forged form, a wrong name, the hourly limit) answers right away, with at most one network chunk of
the file read and nothing parsed.
"""

import json
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

HEADROOM = 64 * 1024  # multipart boundaries and part headers beside the file itself
FIELD_BYTES = 4096  # a form field beside the file (the web form's CSRF token): at most two of these
FIELD = "notebook"
MAX_PARTS = 2000  # cells and outputs in one notebook at most (the course's have fewer than 100)
MAX_WEIGHT = 200_000  # JSON values in one notebook at most, an object's entry weighing ENTRY_WEIGHT
ENTRY_WEIGHT = 4  # nbformat validates an object's entry at several times a list item's cost
# what read_upload asks before it reads the file: of the fields sent before it, of its chapter
Fields = Callable[[dict[str, str]], None]
Gate = Callable[[str], Awaitable[None]]


class Refused(Exception):
    """An upload refused with an HTTP status and a message for the student."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers or {}


@dataclass(frozen=True)
class Upload:
    """A notebook as uploaded: its chapter (from the file name) and its bytes."""

    chapter: str
    notebook: bytes


def too_large(max_bytes: int) -> Refused:
    """The 413 refusal."""
    return Refused(413, f"the notebook is larger than the server accepts ({max_bytes} bytes)")


async def capped(stream: AsyncIterator[bytes], limit: int, max_bytes: int) -> AsyncIterator[bytes]:
    """`stream`, stopped with a 413 as soon as more than `limit` bytes came."""
    total = 0
    async for chunk in stream:
        total += len(chunk)
        if total > limit:
            raise too_large(max_bytes)
        yield chunk


class _Watched(MultiPartParser):
    """Starlette's multipart parser, noting each field as it ends and each file as its headers end."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields: dict[str, str] = {}  # the fields complete so far
        # (field name, file name, the fields complete before it) of each file begun
        self.files: list[tuple[str, str | None, dict[str, str]]] = []

    def on_part_end(self) -> None:
        super().on_part_end()
        name, value = self.items[-1]
        if isinstance(value, str):
            self.fields.setdefault(name, value)

    def on_headers_finished(self) -> None:
        super().on_headers_finished()
        if self._current_part.file is not None:
            part = self._current_part
            self.files.append((part.field_name, part.file.filename, dict(self.fields)))


async def _gated(
    stream: AsyncIterator[bytes],
    parser: _Watched,
    released: set[str],
    fields: Fields | None,
    gate: Gate | None,
) -> AsyncIterator[bytes]:
    """`stream`; once the parser has begun the file part, `fields` and `gate` run before the next chunk."""
    opened = False
    async for chunk in stream:
        yield chunk  # the parser has taken this chunk when the next one is asked for
        if not opened and parser.files:
            opened = True
            name, filename, before = parser.files[0]
            if fields is not None:
                fields(before)
            if name != FIELD:
                raise Refused(422, f"expected a file in the multipart field {FIELD!r}")
            chapter = chapter_of(filename, released)
            if gate is not None:
                await gate(chapter)


async def read_upload(
    request: Request,
    max_bytes: int,
    released: set[str],
    gate: Gate | None = None,
    fields: Fields | None = None,
) -> Upload:
    """The uploaded notebook of `request`; Refused (413 or 422, or `fields`' or `gate`'s) saying what is wrong."""
    limit = max_bytes + HEADROOM
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(max_bytes)  # said so up front: refused before reading
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise Refused(422, f"expected a multipart/form-data upload with a file field {FIELD!r}")
    chunks = capped(request.stream(), limit, max_bytes)
    parser = _Watched(request.headers, chunks, max_files=1, max_fields=2, max_part_size=FIELD_BYTES)
    parser.stream = _gated(chunks, parser, released, fields, gate)
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise Refused(422, f"not a readable multipart upload: {error}") from None
    try:
        file = form.get(FIELD)
        if not isinstance(file, UploadFile) or not parser.files:
            raise Refused(422, f"expected a file in the multipart field {FIELD!r}")
        data = await file.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise too_large(max_bytes)
        return Upload(chapter_of(file.filename, released), data)
    finally:
        with anyio.CancelScope(shield=True):  # closed even when the body timeout cancelled us
            await form.close()


def chapter_of(filename: str | None, released: set[str]) -> str:
    """The released chapter a file name `<chapter>.ipynb` names; Refused (422) otherwise."""
    names = {f"{chapter}.ipynb": chapter for chapter in released}
    if filename not in names:
        shown = json.dumps(str(filename)[:100])
        raise Refused(
            422,
            f"the file name {shown} is not <chapter>.ipynb for a released chapter; released: "
            + ", ".join(sorted(names)),
        )
    return names[filename]


def json_weight(value: object, limit: int) -> int:
    """The JSON values in `value`, itself included, each entry of an object weighing ENTRY_WEIGHT; stops past `limit`."""
    weight, stack = 0, [(value, 1)]
    while stack and weight <= limit:
        item, each = stack.pop()
        weight += each
        if isinstance(item, dict):
            stack.extend((entry, ENTRY_WEIGHT) for entry in item.values())
        elif isinstance(item, list):
            stack.extend((entry, 1) for entry in item)
    return weight


def parts(notebook: object) -> int:
    """How many cells and outputs a parsed notebook holds (0 when it is no notebook's JSON)."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return 0
    outputs = [cell.get("outputs") for cell in cells if isinstance(cell, dict)]
    return len(cells) + sum(len(each) for each in outputs if isinstance(each, list))


def check_notebook(data: bytes) -> None:
    """Refused (422) unless `data` is a notebook the grader can read (`autograder.judge.notebook.read_notebook`).

    Before nbformat reads it, a plain JSON read refuses what costs nbformat far more than its bytes:
    a version other than 4 (nbformat converts a version 3 notebook, which keeps its cells elsewhere,
    and validates it twice: 99,000 heading cells took 5 CPU-s), more than MAX_PARTS cells and
    outputs (150,000 empty cells in 9 MB took 7 s), or a weight over MAX_WEIGHT (one cell whose source
    is 1.5 million one-line strings took 1.9 s; one output of 200,000 MIME types 1.5 s).
    """
    from autograder.judge.notebook import read_notebook

    try:
        notebook = json.loads(data)
    except (ValueError, RecursionError):
        notebook = None  # nbformat below says what is wrong with it
    if isinstance(notebook, dict) and notebook.get("nbformat") != 4:
        shown = json.dumps(notebook.get("nbformat"))[:20]
        raise Refused(
            422,
            f"the server reads notebooks of nbformat 4, as JupyterLab saves them; this one says "
            f"nbformat {shown}",
        )
    found = parts(notebook)
    if found > MAX_PARTS:
        raise Refused(
            422,
            f"the notebook has {found} cells and outputs; the server reads at most {MAX_PARTS} "
            "(the course's notebooks have fewer than 100)",
        )
    if json_weight(notebook, MAX_WEIGHT) > MAX_WEIGHT:
        raise Refused(
            422,
            "the notebook holds more lines of output and entries of metadata than the server "
            f"checks ({MAX_WEIGHT:,} JSON values, an entry of an object counting as "
            f"{ENTRY_WEIGHT}): clear very long outputs and submit again",
        )
    with tempfile.TemporaryDirectory(prefix="proof-lm-upload-") as tmp:
        path = Path(tmp, "upload.ipynb")  # a name of ours: nothing the student sent
        path.write_bytes(data)
        try:
            read_notebook(path)
        except ValueError as error:
            why = str(error).replace(str(path), "the upload")
            raise Refused(422, why[:300]) from None
