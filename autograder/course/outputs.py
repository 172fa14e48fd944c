"""What a graded notebook may carry into the autograded copy and the feedback page.

The outputs of the student's cells are those the grading process's one load of them showed
(`autograder.sandbox.guest.outputs`), never those saved in the submitted file: `shown_outputs` reads them
(untrusted JSON: checked output by output, each cut to OUTPUT_CHARS) and `RecordedOutputs` puts
them into the notebook nbgrader autogrades, in place of its execute step.
"""

import collections
import io
import json
import re
from collections.abc import Callable

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, List

from autograder.judge.notebook import cell_source
from autograder.sandbox.guest.protocol import NOTEBOOK_CHARS, OUTPUT_CHARS, OUTPUTS, SHOWN_LIMIT

BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
IMAGE_CHARS = 10 * OUTPUT_CHARS  # one figure's PNG, as base64


def _cap(text: object) -> object:
    """`text` cut to OUTPUT_CHARS characters, with a note saying how much was left out."""
    if isinstance(text, list):
        text = "".join(map(str, text))
    if not isinstance(text, str) or len(text) <= OUTPUT_CHARS:
        return text
    return text[:OUTPUT_CHARS] + f"\n[... {len(text) - OUTPUT_CHARS:,} more characters not shown]\n"


def _chars(output: object) -> int:
    """About how many characters an output holds (every string in it counted)."""
    if isinstance(output, str):
        return len(output)
    if isinstance(output, dict):
        return sum(_chars(value) for value in output.values())
    if isinstance(output, list):
        return sum(_chars(value) for value in output)
    return 0


def _note(text: str) -> dict:
    """A stdout output holding `text` (a note of ours in place of outputs left out)."""
    from nbformat.v4 import new_output

    return new_output(
        "stream",
        name="stdout",
        text=f"[{text}: this notebook's outputs passed {NOTEBOOK_CHARS:,} characters]\n",
    )


def cap_notebook(notebook: dict) -> dict:
    """`notebook` (in place) with at most NOTEBOOK_CHARS characters of outputs; the rest a note per cell."""
    total = 0
    for cell in notebook.get("cells", []):
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        if not isinstance(outputs, list):
            continue
        kept = []
        for output in outputs:
            total += _chars(output)
            if total > NOTEBOOK_CHARS:
                break
            kept.append(output)
        if len(kept) < len(outputs):
            cell["outputs"] = [*kept, _note(f"{len(outputs) - len(kept):,} more outputs not shown")]
    return notebook


TEXTS = ("text/plain", "text/html", "text/markdown", "text/latex")  # sanitized when rendered


def _data(found: object) -> dict | None:
    """The formats of a display or a result that are kept: text cut to OUTPUT_CHARS, a PNG image."""
    if not isinstance(found, dict):
        return None
    data = {
        mime: _cap(text) for mime, text in found.items() if mime in TEXTS and isinstance(text, str)
    }
    image = found.get("image/png")
    if isinstance(image, str) and len(image) <= IMAGE_CHARS and BASE64.fullmatch(image):
        data["image/png"] = image
    return data or None


def _output(found: object) -> dict | None:
    """One output of the grading process's load as an nbformat output, or None when it is not one."""
    from nbformat.v4 import new_output

    if not isinstance(found, dict):
        return None
    kind = found.get("output_type")
    text, name = found.get("text"), found.get("name")
    if kind == "stream" and name in ("stdout", "stderr") and isinstance(text, str):
        return new_output("stream", name=name, text=_cap(text))
    ename, evalue = found.get("ename"), found.get("evalue")
    if kind == "error" and isinstance(ename, str) and isinstance(evalue, str):
        ename, evalue = ename[:200], _cap(evalue)
        return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])
    if kind in ("display_data", "execute_result") and (data := _data(found.get("data"))):
        return new_output(kind, data=data)
    return None


class _TooMany(ValueError):
    """A line of the payload holds more objects than an output has."""


def _few() -> Callable[[list], dict]:
    """A json object hook for one line: a dict, unless the line has made more than an output holds
    (a counter of its own: graders in threads of one worker read their payloads apart)."""
    made = 0

    def hook(pairs: list) -> dict:
        nonlocal made
        made += 1
        if made > 4:  # an output, its data, and room for nothing else
            raise _TooMany
        return dict(pairs)

    return hook


def shown_outputs(payload: bytes, cells: int) -> list[list[dict]]:
    """What loading each of `cells` cells showed, from the grading process's payload (untrusted).

    The payload is JSON lines, `[cell index, output]`; at most OUTPUTS lines and SHOWN_LIMIT bytes
    are read (a forged payload costs time and memory linear in those bounds), and whatever is not a
    well-formed output is left out. A payload past the bound shows nothing.
    """
    shown: list[list[dict]] = [[] for _ in range(cells)]
    if len(payload) > SHOWN_LIMIT:
        return shown
    lines = io.BytesIO(payload)
    for _ in range(OUTPUTS):
        line = lines.readline()
        if not line:
            break
        try:
            index, found = json.loads(line, object_pairs_hook=_few())
        except (ValueError, TypeError, RecursionError):
            continue
        if type(index) is int and 0 <= index < cells and (output := _output(found)) is not None:
            shown[index].append(output)
    return shown


class CapOutputs(Preprocessor):
    """Cut every output to OUTPUT_CHARS characters, and the notebook's outputs to NOTEBOOK_CHARS."""

    enabled = Bool(True).tag(config=True)  # nbconvert's default is off

    @staticmethod
    def cap(output: dict) -> None:
        """Cut one output's texts (in place)."""
        if "text" in output:
            output["text"] = _cap(output["text"])
        for mime, value in output.get("data", {}).items():
            if not mime.startswith("image/"):  # an image cut is no image; each is bounded already
                output["data"][mime] = _cap(value)
        if output.get("output_type") == "error":
            output["evalue"] = _cap(output.get("evalue", ""))

    def preprocess(self, nb: object, resources: dict) -> tuple[object, dict]:
        """Cap each output, then the notebook's total."""
        nb, resources = super().preprocess(nb, resources)
        return cap_notebook(nb), resources

    def preprocess_cell(self, cell: dict, resources: dict, index: int) -> tuple[dict, dict]:
        """Cap this cell's outputs."""
        for output in cell.get("outputs", []):
            self.cap(output)
        return cell, resources


class OneLineErrors(CapOutputs):
    """For feedback: outputs capped, and every error shown as one line (`Name: message`), never a traceback.

    Whatever `%xmode` the student chose, no frame of the checker and no hidden input reaches the page.
    """

    def preprocess_cell(self, cell: dict, resources: dict, index: int) -> tuple[dict, dict]:
        """Cap outputs, then replace each traceback with its last line."""
        cell, resources = super().preprocess_cell(cell, resources, index)
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [
                    f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                ]
        return cell, resources


class RecordedOutputs(Preprocessor):
    """nbgrader's execute step replaced: each student cell gets the outputs its graded load showed.

    `shown` holds (source, outputs) per cell the grader ran, in notebook order; the k-th of a
    source goes to the k-th code cell with that source. Every other cell shows nothing.
    """

    enabled = Bool(True).tag(config=True)  # nbconvert's default is off
    shown = List().tag(config=True)

    def preprocess(self, nb: object, resources: dict) -> tuple[object, dict]:
        """Outputs of every code cell: the recorded ones, or none."""
        from nbformat import from_dict

        waiting: dict[str, collections.deque] = {}
        for source, outputs in self.shown:
            waiting.setdefault(source, collections.deque()).append(outputs)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            cell.outputs, cell.execution_count = [], None
            if queue := waiting.get(cell_source(cell)):
                cell.outputs = [from_dict(output) for output in queue.popleft()]
        return nb, resources
