"""Definitions cut out of a module's source, each replaced where it stood by a stand-in that refuses to run.

Used for the copies of the library a grading sandbox mounts (`autograder.judge.mounted`) and for the
student kit's library before a deadline (`autograder.kit.stages`): the stand-in raises an error
named by the caller, saying why."""

import ast

from autograder.judge.notebook import PARSING

REFUSING = '''

class ERROR(RuntimeError):
    """DOC"""


def _answer_key(name, is_class=False):
    def refuse(*args, **kwargs):
        raise ERROR(
            MESSAGE
        )

    if is_class:  # building it (or a subclass, through super().__init__) refuses
        return type(name, (), {"__init__": lambda self, *a, **k: refuse()})
    refuse.__name__ = name
    return refuse

'''


def refusing_stub(error: str, doc: str, message: str) -> str:
    """The code that goes before the cut definitions: an exception class `error` and the
    `_answer_key` that makes each stand-in, raising it with `message` (an expression, in which
    `name` is the cut definition's)."""
    return REFUSING.replace("ERROR", error).replace("DOC", doc).replace("MESSAGE", message)


def without_definitions(source: str, names: set[str], stub: str) -> str:
    """`source` with the top-level functions, classes and assignments called `names` cut out
    (decorators included), each replaced where it stood by a refusing stand-in, so that code
    below it (an annotation naming a cut class) still finds the name; `stub` goes before the first."""
    lines = source.splitlines(keepends=True)
    with PARSING:  # CPython 3.11 mis-builds ASTs made in two threads at once (see notebook.PARSING)
        tree = ast.parse(source)
    first = None
    for node in reversed(tree.body):
        cut = sorted(_defines(node) & names)
        if cut:
            decorators = getattr(node, "decorator_list", [])
            start = min([node.lineno, *(d.lineno for d in decorators)]) - 1
            is_class = isinstance(node, ast.ClassDef)
            lines[start : node.end_lineno] = [
                f"{name} = _answer_key({name!r}, {is_class})\n" for name in cut
            ]
            first = start
    if first is not None:
        lines.insert(first, stub)
    return "".join(lines)


def _defines(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds by def, class or plain assignment."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    return set()
