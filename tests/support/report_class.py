"""A simulated class for the instructor's report: honest students who wrote different correct code,
one with a catalogued bug, one tampering, and two who copied a chapter (renamed, reordered).

Honest students take, for each exercise, a different correct implementation from the catalogue
(tests/implementations/<exercise>/correct_*.py): student i the i-th, so no two share a file. The
copier's original is the course's reference solution (yet another implementation); the copy renames
every local name and reverses the order of each cell's top-level statements, and carries a comment
with markup in it (it must show as text in the report, and nothing of it may run).
"""

import ast
import builtins
import io
import itertools
import keyword
import random
import tokenize
from pathlib import Path

from conftest import IMPLEMENTATIONS

from autograder.judge.exercises import chapter_exercises
from support.simulate import reference_code, submission

BUILTINS = set(dir(builtins))
# markup a student's text carries into the report: if any of it ran, the page's title would change
MARKUP = "# <script>document.title='PWNED'</script><img src=x onerror=\"document.title='PWNED'\">\n"
RAISES = (  # what the tamperer's last exercise raises: the report quotes it in a hint
    "def {name}(*args, **kwargs):\n"
    '    raise ValueError("<img src=x onerror=\\"document.title=\'PWNED\'\\">")\n'
)
BUG, TAMPERED = "wrong_no_end.py", "wrong_float_counts.py"  # chapter 01's first exercise
TAMPER = "import numpy as np\nnp.allclose = np.isclose = np.array_equal = lambda *a, **k: True\n"


def correct_implementations(exercise: str) -> list[Path]:
    """The catalogue's correct implementations of `exercise`, by name."""
    return sorted((IMPLEMENTATIONS / exercise).glob("correct_*.py"))


def honest_code(chapter: str, index: int) -> dict[str, str]:
    """Solution cells (by grade id) with the `index`-th correct implementation of each exercise."""
    return {
        f"{e.name}_code": correct_implementations(e.name)[index].read_text()
        for e in chapter_exercises(chapter)
    }


def _renamed(code: str, rng: random.Random) -> str:
    """`code` with every local name it assigns renamed (the parameters stay: callers name them)."""
    tree = ast.parse(code)
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    bound -= BUILTINS | set(keyword.kwlist) | {"EXPECT"}
    bound -= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    suffixes = ["v", "tmp", "my", "x"]
    names = {name: f"{name}_{rng.choice(suffixes)}{i}" for i, name in enumerate(sorted(bound))}
    out = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.NAME and token.string in names:
            token = token._replace(string=names[token.string])
        out.append(token)
    return tokenize.untokenize(out)


def _swapped(code: str) -> str:
    """`code` with, in each function, the first two adjacent independent assignments swapped."""
    lines = code.splitlines()
    for function in [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef)]:
        body = function.body
        for first, second in itertools.pairwise(body):
            if not (isinstance(first, ast.Assign) and isinstance(second, ast.Assign)):
                continue
            names = [
                {n.id for n in ast.walk(s) if isinstance(n, ast.Name)} for s in (first, second)
            ]
            if names[0] & names[1]:  # one reads or writes what the other writes
                continue
            a = lines[first.lineno - 1 : first.end_lineno]
            b = lines[second.lineno - 1 : second.end_lineno]
            lines[first.lineno - 1 : second.end_lineno] = b + a
            return "\n".join(lines) + "\n"
    return code


def copied(code: str, rng: random.Random) -> str:
    """A copy of one solution cell as a copier makes it: names renamed, lines reordered (two
    independent assignments swapped, the top-level statements reversed), a comment added."""
    swapped = _swapped(_renamed(code, rng))
    lines = swapped.splitlines()
    blocks = ["\n".join(lines[n.lineno - 1 : n.end_lineno]) for n in ast.parse(swapped).body]
    return MARKUP + "\n\n".join(reversed(blocks)) + "\n"


def build_class(released: Path, folder: Path, chapter: str, seed: int = 0) -> dict[str, str]:
    """Write the class's notebooks for `chapter` under `folder/<student>/`; student -> what they are."""
    rng = random.Random(seed)
    exercises = chapter_exercises(chapter)
    kinds: dict[str, str] = {}
    count = min(len(correct_implementations(e.name)) for e in exercises)
    for index in range(count):
        kinds[f"honest{index}"] = f"correct implementations #{index}"
        submission(
            released, folder / f"honest{index}" / f"{chapter}.ipynb", honest_code(chapter, index)
        )
    original = reference_code(chapter)
    submission(released, folder / "copier_a" / f"{chapter}.ipynb", original)
    copy = {grade_id: copied(code, rng) for grade_id, code in original.items()}
    submission(released, folder / "copier_b" / f"{chapter}.ipynb", copy)
    kinds["copier_a"] = "reference solutions (copied by copier_b)"
    kinds["copier_b"] = "copier_a's solutions, renamed and reordered"
    # one bug and one tamperer, both in the first exercise; their other exercises a further correct
    # implementation where the catalogue has one, else left as released (the challenge, say)
    first = exercises[0].name
    for index, (student, wrong, patch) in enumerate(
        [("buggy", BUG, ""), ("tamper", TAMPERED, TAMPER)], start=count
    ):
        code = {
            f"{e.name}_code": correct_implementations(e.name)[index].read_text()
            for e in exercises[1:]
            if len(correct_implementations(e.name)) > index
        }
        code[f"{first}_code"] = patch + (IMPLEMENTATIONS / first / wrong).read_text()
        if patch:
            code[f"{exercises[-1].name}_code"] = RAISES.format(name=exercises[-1].name)
        submission(released, folder / student / f"{chapter}.ipynb", code)
        kinds[student] = f"{'tamper, ' if patch else ''}bug {wrong} in {first}"
    return kinds
