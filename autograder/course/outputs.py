"""What a graded notebook may carry into the autograded copy and the feedback page."""

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

OUTPUT_CHARS = 100_000  # per output; a 100 MB print becomes its first 100,000 characters and a note


def _cap(text: object) -> object:
    """`text` cut to OUTPUT_CHARS characters, with a note saying how much was left out."""
    if isinstance(text, list):
        text = "".join(map(str, text))
    if not isinstance(text, str) or len(text) <= OUTPUT_CHARS:
        return text
    return text[:OUTPUT_CHARS] + f"\n[... {len(text) - OUTPUT_CHARS:,} more characters not shown]\n"


class CapOutputs(Preprocessor):
    """Cut every stream text and every textual display output to OUTPUT_CHARS characters."""

    enabled = Bool(True).tag(config=True)  # nbconvert's default is off

    def preprocess_cell(self, cell: dict, resources: dict, index: int) -> tuple[dict, dict]:
        """Cap this cell's outputs."""
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _cap(output["text"])
            for mime, value in output.get("data", {}).items():
                output["data"][mime] = _cap(value)
            if output.get("output_type") == "error":
                output["evalue"] = _cap(output.get("evalue", ""))
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
