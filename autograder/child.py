"""The grading process: load the student's code into a fresh interpreter, make the calls, write plain answers.

Run by `autograder.runner` as `python -I -m autograder.child REQUEST RESULT` in an empty working
directory. Everything it writes is untrusted: the parent decodes it with allow_pickle=False and
judges it against references it computed itself.
"""

import ast
import pickle
import sys
import traceback

import numpy as np

from autograder.harness import Outcome, run_call
from autograder.plain import dumps


class _NullShell:
    """Stands in for get_ipython() so that magics in a solution cell do nothing."""

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: None


def load_student_code(preamble: str, sources: list[str]) -> tuple[dict, list[str]]:
    """Execute the preamble, then each top-level statement of each cell; collect what failed."""
    from IPython.core.inputtransformer2 import TransformerManager

    namespace: dict = {"__name__": "__student__", "get_ipython": _NullShell}
    exec(compile(preamble, "<preamble>", "exec"), namespace)
    transformer, problems = TransformerManager(), []
    for number, source in enumerate(sources, start=1):
        try:
            tree = ast.parse(transformer.transform_cell(source), f"<cell {number}>")
        except SyntaxError as error:
            problems.append(f"cell {number} has a syntax error: {error.msg} (line {error.lineno})")
            continue
        for statement in tree.body:
            try:
                module = ast.Module(body=[statement], type_ignores=[])
                exec(compile(module, f"<cell {number}>", "exec"), namespace)
            except BaseException as error:  # a top-level failure is reported, not fatal
                problems.append(
                    f"cell {number}, line {statement.lineno}: {type(error).__name__}: {error}"
                )
    return namespace, problems


def main() -> None:
    """Read the request, run the calls, write the answers."""
    request_path, result_path = sys.argv[1], sys.argv[2]
    with open(request_path, "rb") as handle:
        request = pickle.load(handle)  # written by the trusted parent
    namespace, problems = load_student_code(request["preamble"], request["sources"])
    fn = namespace.get(request["function"])
    outcomes: list[Outcome] = []
    if callable(fn):
        for call in request["calls"]:
            try:
                outcomes.append(run_call(fn, call))
            except BaseException:  # e.g. SystemExit from the student's function
                outcomes.append(
                    Outcome(
                        error="BaseException",
                        error_bases=("BaseException",),
                        message=traceback.format_exc(limit=0)[-300:],
                    )
                )
    summary = {
        "found": callable(fn),
        "problems": problems,
        "outcomes": [vars(outcome) for outcome in outcomes],
    }
    text, arrays = dumps(summary)
    arrays["__json__"] = np.frombuffer(text.encode(), dtype=np.uint8)
    with open(result_path, "wb") as handle:
        np.savez(handle, allow_pickle=False, **arrays)


if __name__ == "__main__":
    main()
