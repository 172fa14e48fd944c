"""What a graded notebook may carry into the autograded copy and the feedback page."""

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

OUTPUT_CHARS = 100_000  # per output; a 100 MB print becomes its first 100,000 characters and a note
NOTEBOOK_CHARS = 4_000_000  # all outputs of a notebook together (its plots included); then a note


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


def budgeted(execute: type) -> type:
    """`execute` (an nbclient-based preprocessor) keeping at most NOTEBOOK_CHARS of output while it runs.

    Each output is cut to OUTPUT_CHARS as it arrives; once the notebook's outputs pass the budget,
    further ones are dropped (one note in each cell that lost some), so a flood of output never
    piles up in the grading worker's memory.
    """

    class Budgeted(execute):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            self._output_chars, self._noted = 0, set()

        def preprocess(self, nb: object, resources: object = None, *args, **kwargs) -> tuple:
            self._output_chars, self._noted = 0, set()
            return super().preprocess(nb, resources, *args, **kwargs)

        def output(self, outs: list, msg: dict, display_id: object, cell_index: int) -> object:
            if self._output_chars > NOTEBOOK_CHARS:  # over budget: a note, once per cell
                if cell_index not in self._noted:
                    self._noted.add(cell_index)
                    outs.append(_note("outputs not shown from here"))
                return None
            out = super().output(outs, msg, display_id, cell_index)
            if out is not None:
                CapOutputs.cap(out)
                self._output_chars += _chars(out)
            return out

    Budgeted.__name__ = Budgeted.__qualname__ = f"Budgeted{execute.__name__}"
    return Budgeted


class CapOutputs(Preprocessor):
    """Cut every output to OUTPUT_CHARS characters, and the notebook's outputs to NOTEBOOK_CHARS."""

    enabled = Bool(True).tag(config=True)  # nbconvert's default is off

    @staticmethod
    def cap(output: dict) -> None:
        """Cut one output's texts (in place)."""
        if "text" in output:
            output["text"] = _cap(output["text"])
        for mime, value in output.get("data", {}).items():
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
