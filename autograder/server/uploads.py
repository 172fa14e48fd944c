"""Reading an upload: the multipart body streamed with the size cap enforced while reading, then checked.

The body is read chunk by chunk (`capped`): past `max_bytes` plus a little room for the multipart
headers the read stops and the upload is refused, whatever Content-Length said (or did not say:
chunked bodies have none). Starlette's multipart parser (python-multipart) takes the chunks; the
file goes to a spooled temporary file, never to a path named after anything the student sent.
The file name must be `<chapter>.ipynb` for a released chapter (it is compared with the names of
the course's release folders, never joined into a path), and the bytes must be a notebook that
`autograder.notebook` can read.
"""

import json
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

HEADROOM = 64 * 1024  # multipart boundaries and part headers beside the file itself
FIELD = "notebook"


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


async def read_upload(request: Request, max_bytes: int, released: set[str]) -> Upload:
    """The uploaded notebook of `request`; Refused (413 or 422) saying what is wrong."""
    limit = max_bytes + HEADROOM
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(max_bytes)  # said so up front: refused before reading
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise Refused(422, f"expected a multipart/form-data upload with a file field {FIELD!r}")
    parser = MultiPartParser(
        request.headers,
        capped(request.stream(), limit, max_bytes),
        max_files=1,
        max_fields=8,
        max_part_size=HEADROOM,
    )
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise Refused(422, f"not a readable multipart upload: {error}") from None
    try:
        file = form.get(FIELD)
        if not isinstance(file, UploadFile):
            raise Refused(422, f"expected a file in the multipart field {FIELD!r}")
        data = await file.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise too_large(max_bytes)
        return Upload(chapter_of(file.filename, released), data)
    finally:
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


def check_notebook(data: bytes) -> None:
    """Refused (422) unless `data` is a notebook the grader can read (`autograder.notebook.read_notebook`)."""
    from autograder.notebook import read_notebook

    with tempfile.TemporaryDirectory(prefix="proof-lm-upload-") as tmp:
        path = Path(tmp, "upload.ipynb")  # a name of ours: nothing the student sent
        path.write_bytes(data)
        try:
            read_notebook(path)
        except ValueError as error:
            why = str(error).replace(str(path), "the upload")
            raise Refused(422, why[:300]) from None
