"""What loading the student's cells shows, captured cell by cell as a notebook would show it.

While the grading process loads the student's code (`autograder.sandbox.guest.child.load_student_code`)
each cell's printing (stdout, stderr), the value of its last expression, its errors and the
matplotlib figures it leaves open are kept here, within the budgets of `protocol` (each output at
most OUTPUT_CHARS characters, the notebook's at most NOTEBOOK_CHARS; the rest is counted, not
kept; at most OUTPUTS outputs). They travel to the trusted side as LOADED's payload (JSON lines),
which checks them again: this is the student's process, so nothing here is trusted there.
"""

import base64
import io
import json
import sys

from autograder.sandbox.guest.protocol import NOTEBOOK_CHARS, OUTPUT_CHARS, OUTPUT_COST, OUTPUTS

FIGURES = 20  # figures drawn per cell; the rest are closed unseen


class _Stream(io.TextIOBase):
    """A text stream whose writes go into the current cell's outputs (stdout or stderr)."""

    def __init__(self, name: str, capture: "Capture") -> None:
        self._name, self._capture = name, capture

    encoding = "utf-8"

    def writable(self) -> bool:
        """It is written to."""
        return True

    def write(self, text: str) -> int:
        """Keep `text` (within the budgets) as part of the cell's `name` stream."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._capture.stream(self._name, text)
        return len(text)


class Capture:
    """Every cell's outputs, in order: a list per cell of nbformat-like output dicts."""

    def __init__(self) -> None:
        self.cells: list[list[dict]] = []
        self.left = NOTEBOOK_CHARS  # characters the notebook's outputs may still take
        self.dropped = self._dropped_before = 0  # characters not kept (past a budget)
        self.count = self.notes = 0  # outputs kept, and notes of what was not
        self.stdout, self.stderr = _Stream("stdout", self), _Stream("stderr", self)

    def payload(self) -> bytes:
        """What the trusted side reads: one JSON line per output, `[cell index, output]`."""
        return "\n".join(
            json.dumps([index, output], ensure_ascii=False)
            for index, outputs in enumerate(self.cells)
            for output in outputs
        ).encode()

    def start_cell(self) -> None:
        """The next cell's outputs begin."""
        self.cells.append([])
        self._dropped_before = self.dropped

    def end_cell(self) -> None:
        """The cell's outputs end: a note of what was left out of them, if anything."""
        if left_out := self.dropped - self._dropped_before:
            note = f"[... {left_out:,} more characters of output not shown]\n"
            if self.notes < OUTPUTS:  # a note of its own budget: the outputs' may be spent
                self.notes += 1
                self.cells[-1].append({"output_type": "stream", "name": "stdout", "text": note})

    def _add(self, output: dict) -> None:
        """Append `output` to the cell's, while the notebook has outputs and room left for one."""
        if self.count < OUTPUTS and self.left >= OUTPUT_COST:
            self.count += 1
            self.left -= OUTPUT_COST
            self.cells[-1].append(output)

    def _room(self, text: str, limit: int = OUTPUT_CHARS) -> str:
        """As much of `text` as the budgets allow (taken from them)."""
        kept = text[: max(0, min(limit, self.left))]
        self.left -= len(kept)
        self.dropped += len(text) - len(kept)
        return kept

    def stream(self, name: str, text: str) -> None:
        """Printed text, joined to the cell's last output when it is the same stream."""
        outputs = self.cells[-1]
        if outputs and outputs[-1]["output_type"] == "stream" and outputs[-1]["name"] == name:
            last = outputs[-1]
            last["text"] += self._room(text, OUTPUT_CHARS - len(last["text"]))
        elif kept := self._room(text):
            self._add({"output_type": "stream", "name": name, "text": kept})

    def result(self, value: object) -> None:
        """The value of the cell's last expression, as Jupyter shows it (nothing for None)."""
        if value is not None:
            self._bundle("execute_result", _bundle(value))

    def display(self, *values: object, raw: bool = False, **ignored: object) -> None:
        """IPython's `display` in the grading process: each value as Jupyter shows it."""
        for value in values:
            found = value if raw and isinstance(value, dict) else _bundle(value)
            self._bundle("display_data", found)

    def _bundle(self, kind: str, found: dict) -> None:
        """One output of `kind` holding the text formats of `found` (within the budgets)."""
        data = {
            mime: self._room(text)
            for mime, text in found.items()
            if mime in MIMES and isinstance(text, str)
        }
        if any(data.values()):
            self._add({"output_type": kind, "data": data})

    def error(self, name: str, message: str) -> None:
        """A statement that raised (the cell's next statements still run)."""
        self._add({"output_type": "error", "ename": name, "evalue": self._room(message)})

    def figures(self) -> None:
        """The matplotlib figures the cell left open, as PNG images; then they are closed."""
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        try:
            numbers = pyplot.get_fignums()
            for number in numbers[:FIGURES]:  # each takes time out of the notebook's budget
                buffer = io.BytesIO()
                pyplot.figure(number).savefig(buffer, format="png", bbox_inches="tight")
                image = base64.b64encode(buffer.getvalue()).decode("ascii")
                if len(image) > min(OUTPUT_CHARS * 10, self.left):
                    self.dropped += len(image)
                    continue
                self.left -= len(image)
                self._add({"output_type": "display_data", "data": {"image/png": image}})
            if len(numbers) > FIGURES:
                self.stream("stdout", f"[{len(numbers) - FIGURES} more figures not shown]\n")
            pyplot.close("all")
        except Exception as error:  # the student's figure, or matplotlib as they left it
            self.error(type(error).__name__, f"the figure could not be drawn: {error}"[:500])


MIMES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png")
RICH = {
    "text/html": "_repr_html_",
    "text/markdown": "_repr_markdown_",
    "text/latex": "_repr_latex_",
}


def _bundle(value: object) -> dict[str, str]:
    """What Jupyter would show of `value`: its text repr, and its rich ones (as text)."""
    found = {"text/plain": _repr(value)}
    for mime, method in RICH.items():
        try:
            text = getattr(value, method)()
        except Exception:  # no such repr, or one that fails: Jupyter leaves it out too
            continue
        if isinstance(text, str):
            found[mime] = text
    return found


def _repr(value: object) -> str:
    """repr(value), or a line saying why it has none."""
    try:
        text = repr(value)
    except Exception as error:
        return f"<repr failed: {type(error).__name__}>"
    return text if isinstance(text, str) else "<repr returned no text>"
