"""The autograder judged by known implementations: references pass, stubs fail, every catalogued bug fails."""

import ast
import functools
import json
import re
import zlib
from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import EXERCISES, chapter_exercises, get_exercise
from autograder.judge.runner import check_each, check_source, grade_notebook
from autograder.judge.verdicts import ExerciseReport

# Files with one bug whose every failing check must name it, or say it fails for the same reason:
# the cause is named once, never blamed on dropout, on state kept across calls, or on the mask.
ONE_BUG_ONE_DIAGNOSIS = (
    {
        f"CausalSelfAttention/{name}"
        for name in (
            "wrong_scale_width",
            "wrong_no_scale",
            "wrong_merge",
            "wrong_mask_off_by_one",
            "wrong_qkv_order",
            "wrong_reshape_heads",
            "wrong_interleaved_heads",
            "wrong_dropout_in_eval",
        )
    }
    | {  # a draft with one planted bug left
        f"{path.parent.name}/{path.stem}"
        for path in IMPLEMENTATIONS.glob("*/wrong_draft_*_left.py")
    }
    | {  # each slip of the training loop, named by every check it fails
        f"train_gpt/{path.stem}" for path in IMPLEMENTATIONS.glob("train_gpt/wrong_*.py")
    }
    | {  # ties at top-k's cut broken by position: order dependence, and nothing else
        "top_k_probs/wrong_ties_by_position",
        "top_k_probs/wrong_topk_indices",
    }
)
DEBUG_EXERCISES = sorted(name for name, exercise in EXERCISES.items() if exercise.kind == "debug")


def expectation(path: Path) -> str:
    """The file's EXPECT constant: "pass", or a phrase the failing hint must contain."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "EXPECT":
            return node.value.value
    raise AssertionError(f"{path} has no EXPECT")


def _function(tree: ast.Module, name: str) -> str:
    """The dump of the function `name` in `tree`, without its docstring and under one name."""
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    body = function.body[1:] if isinstance(function.body[0], ast.Expr) else function.body
    return ast.dump(ast.FunctionDef(**{**function.__dict__, "name": "f", "body": body}))


@pytest.mark.parametrize("name", DEBUG_EXERCISES)
def test_the_catalogued_draft_is_the_one_handed_out(name):
    """A debug exercise's draft cell is, line for line, the catalogue's draft as given: the
    diagnoses the catalogue proves on it are the ones a student who hands in the draft meets."""
    cells = json.loads((REPO / "solutions" / f"{EXERCISES[name].chapter}.ipynb").read_text())
    (draft,) = [
        "".join(cell["source"])
        for cell in cells["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == f"{name}_draft"
    ]
    given = (IMPLEMENTATIONS / name / "wrong_draft_as_given.py").read_text()
    assert _function(ast.parse(draft), f"{name}_draft") == _function(ast.parse(given), name)
    for bug in (IMPLEMENTATIONS / name).glob("wrong_draft_*_left.py"):
        assert expectation(bug) != "pass"
    assert expectation(IMPLEMENTATIONS / name / "correct_draft_fixed.py") == "pass"


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_has_a_catalogue(name):
    files = list((IMPLEMENTATIONS / name).glob("*.py"))
    correct = [f for f in files if expectation(f) == "pass"]
    wrong = [f for f in files if expectation(f) != "pass"]
    assert len(correct) >= 1, f"{name}: no alternative correct implementation"
    assert len(wrong) >= 5, f"{name}: only {len(wrong)} wrong implementations"


def seed_of(path: Path) -> int:
    """A catalogued file's seed: varied across files, the same on every run."""
    return zlib.crc32(path.stem.encode())


def misjudged(path: Path, report: ExerciseReport) -> str | None:
    """What the grader's report on a catalogued file gets wrong (None: what the file expects)."""
    expected, seed = expectation(path), seed_of(path)
    if expected == "pass":
        failures = [f"{r.name}: {r.hint}" for r in report.results if not r.passed]
        if not report.passed:
            return f"a correct implementation failed (seed {seed}): {failures} {report.notes}"
        return None
    if report.passed:
        return f"a wrong implementation passed every check (seed {seed})"
    hints = " | ".join([r.hint for r in report.results if not r.passed] + report.notes)
    if expected not in hints:
        return f"no hint mentions {expected!r} (seed {seed}): {hints} {report.notes}"
    if f"{path.parent.name}/{path.stem}" in ONE_BUG_ONE_DIAGNOSIS:
        blamed = [
            f"{r.name}: {r.hint}"
            for r in report.results
            if not r.passed and expected not in r.hint and "the same mistake" not in r.hint
        ]
        if blamed:
            return f"checks that blame another cause than {expected!r} (seed {seed}): {blamed}"
    return None


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_catalogued_implementations(name):
    """Every catalogued file of an exercise, graded by one grading process (`check_each`: each
    file in a copy of its own, the report `check_source` would give it): correct ones pass,
    each wrong one fails with the hint its EXPECT names."""
    files = sorted((IMPLEMENTATIONS / name).glob("*.py"))
    exercise = get_exercise(name)
    reports = check_each(
        exercise,
        [[file.read_text()] for file in files],
        [seed_of(file) for file in files],
        preload=("torch._dynamo",) if exercise.torch else (),  # a first optimizer's imports
    )
    problems = [
        f"{name}/{path.stem}: {problem}"
        for path, report in zip(files, reports, strict=True)
        if (problem := misjudged(path, report))
    ]
    assert not problems, "\n".join(problems)


def _summary(report: ExerciseReport) -> tuple:
    return (
        [(r.name, r.passed, r.hint) for r in report.results],
        report.loading,
        report.notes,
        report.flags,
    )


# Files that do to their copy what no honest one does: rebind NumPy for whoever comes next, kill
# the grading process that forked them (alone, that process is its own: the pid namespace's
# first process, which no signal from inside stops), hang. Each costs its own report, never a
# neighbour's.
POISON = "import numpy as np\nnp.exp = lambda x: x  # every later softmax wrong, if it carried\n"
KILL = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
HANG = "while True:\n    pass\n"


def test_a_batch_grades_each_file_as_a_process_of_its_own_would():
    """`check_each` (one grading process for many files) gives each file the report
    `check_source` gives it alone: the catalogue's verdicts are the grader's. Files that poison
    what follows, kill the process that forked them or never finish loading cost themselves."""
    folder = IMPLEMENTATIONS / "softmax"
    correct = (folder / "correct_logsumexp.py").read_text()
    wrong = (folder / "wrong_global_max.py").read_text()
    batch = [
        [correct],
        [POISON + correct],
        [correct],
        [wrong],
        [KILL + correct],
        [correct],
        [HANG + correct],
        [correct],
    ]
    seeds = list(range(1, len(batch) + 1))
    exercise = get_exercise("softmax")
    together = check_each(exercise, batch, seeds, timeout=4.0, load_timeout=4.0)
    alone = [
        check_source(exercise, sources, timeout=4.0, seed=seed, load_timeout=4.0)
        for sources, seed in zip(batch, seeds, strict=True)
    ]
    assert [_summary(r) for r in together] == [_summary(r) for r in alone]
    assert [r.passed for r in together] == [True, False, True, False, True, True, False, True]
    assert [r.seed for r in together] == seeds


def test_a_batch_of_pytorch_files_grades_each_as_alone():
    # PyTorch imported once and its optimizers' modules preloaded change no report
    folder = IMPLEMENTATIONS / "train_gpt"
    # a correct loop whose schedule is PyTorch's (the modules preloading would have imported) and
    # a wrong one named by replaying the loop with its slip
    files = [folder / "correct_lambda_lr.py", folder / "wrong_warmup_from_zero.py"]
    exercise = get_exercise("train_gpt")
    together = check_each(
        exercise,
        [[f.read_text()] for f in files],
        [seed_of(f) for f in files],
        preload=("torch._dynamo",),
    )
    alone = [check_source(exercise, [f.read_text()], seed=seed_of(f)) for f in files]
    assert [_summary(r) for r in together] == [_summary(r) for r in alone]


def set_up_names(chapter: str) -> list[str]:
    """Every name the chapter's locked set-up cell binds (imports and assignments), read from its notebook."""
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    setup = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
    tree = ast.parse("".join(setup["source"]))
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


# A cell of the student's own, as the notebook runs it after the set-up: it uses every name the
# set-up cell binds, and in chapter 08 builds an optimizer at top level (which loads modules of
# torch._inductor and torch.distributed.tensor: no attention of PyTorch's).
OWN_CELL = "_used = ({names},)\n"
OPTIMIZER_CELL = "_optimizer = torch.optim.AdamW(nn.Linear(4, 4).parameters(), lr=1e-3)\n"


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_reference_solutions_earn_full_marks(chapter, tmp_path):
    # the solution notebook with a cell of the student's own appended: whatever runs top to bottom
    # runs where it is graded (its failure would be a note), and earns the same
    notebook = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    own = OWN_CELL.format(names=", ".join(set_up_names(chapter)))
    own += OPTIMIZER_CELL if chapter_exercises(chapter)[0].torch else ""
    notebook["cells"].append(
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "own",
            "metadata": {},
            "outputs": [],
            "source": own,
        }
    )
    (tmp_path / f"{chapter}.ipynb").write_text(json.dumps(notebook))
    reports = grade_notebook(tmp_path / f"{chapter}.ipynb")
    assert [r.exercise for r in reports] == [e.name for e in chapter_exercises(chapter)]
    for report in reports:
        assert report.passed, [(r.name, r.hint) for r in report.results if not r.passed]
        assert not report.notes and not report.loading and not report.flags


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_released_stubs_earn_nothing(chapter):
    for report in grade_notebook(REPO / "chapters" / f"{chapter}.ipynb"):
        assert report.earned == 0
        assert all("not implemented yet" in r.hint for r in report.results)


def _normalised(text: str) -> str:
    return "".join(text.split())


# ---- What a student reads, and what none of it may hold ----------------------------------------
#
# A student reads the hidden checks' hints, the visible tests' messages and the notebooks' hint
# ladders. Each names the symptom and the concept, never the fix: no code of a reference solution,
# no formula of the answer, no sentence that tells what to write. The detectors below are
# heuristics; `test_the_detectors_catch_a_fix` and `test_the_detectors_spare_a_symptom_or_a_question`
# pin what they must catch and what they must let through.

PLACEHOLDER = "…"  # a value filled in when the message is built


def _text(node: ast.AST, names: dict[str, ast.expr], seen: frozenset = frozenset()) -> str | None:
    """The text a string expression builds (a value filled in shows as …), or None if none:
    literals, f-strings, + and % of strings, .format, and the module's string constants."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else PLACEHOLDER for v in node.values)
    if isinstance(node, ast.Name) and node.id in names and node.id not in seen:
        return _text(names[node.id], names, seen | {node.id})
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        left, right = _text(node.left, names, seen), _text(node.right, names, seen)
        if isinstance(node.op, ast.Mod):
            return None if left is None else re.sub(r"%[-\d.]*[sdfrgex]", PLACEHOLDER, left)
        if left is None and right is None:
            return None
        return (PLACEHOLDER if left is None else left) + (PLACEHOLDER if right is None else right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and (text := _text(node.func.value, names, seen))
    ):
        return re.sub(r"\{[^{}]*\}", PLACEHOLDER, text)
    return None


def _messages(tree: ast.AST, names: dict[str, ast.expr]) -> list[str]:
    """Every whole message built in `tree` (a string expression not part of a larger one),
    docstrings and assignment targets left out."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = {
        node.body[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if node in docstrings or isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        parent = parents.get(node)
        if parent is not None and _text(parent, names) is not None:
            continue
        text = _text(node, names)
        if text is not None and len(text.split()) > 1 and not isinstance(node, ast.Name):
            found.append(text)  # a single word is a key or a name, not a message
    return found


LADDER = re.compile(r"<details>\s*<summary>\s*(Hint[^<]*)</summary>(.*?)</details>", re.S)
LATEX = {
    r"\partial": "∂",
    r"\sum": "Σ",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\mu": "μ",
    r"\sigma": "σ",
    r"\epsilon": "ε",
    r"\hat x": "x̂",
    r"\,": " ",
    "$": "",
    "`": "",
}


def _plain(text: str) -> str:
    """Markdown and LaTeX as a reader sees them: symbols for commands, no $ or backticks."""
    text = re.sub(r"\\mathrm\{(\w+)\}", r"\1", text)
    for command, symbol in LATEX.items():
        text = text.replace(command, symbol)
    return " ".join(text.split())


@functools.cache
def _student_texts() -> tuple[tuple[str, str, str], ...]:
    """(kind, where, text) for every text a student can see: "hint" for the hidden checks'
    messages (autograder/judge/checks, expect.py, check.py), "test" for the released notebooks'
    visible-test messages (assert messages and prints), "ladder" for their hint ladders."""
    import nbformat

    texts = []
    judge = REPO / "autograder" / "judge"
    for path in [*sorted((judge / "checks").glob("*.py")), judge / "expect.py", judge / "check.py"]:
        tree = ast.parse(path.read_text())
        names = {
            node.targets[0].id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        }
        texts += [("hint", path.name, text) for text in _messages(tree, names)]
    for path in sorted((REPO / "chapters").glob("*.ipynb")):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            where = f"{path.stem} cell {index}"
            if cell.cell_type == "markdown":
                texts += [
                    ("ladder", f"{where} {title.strip()}", _plain(body))
                    for title, body in LADDER.findall(cell.source)
                ]
            elif cell.metadata.get("nbgrader", {}).get("grade"):
                for node in ast.walk(ast.parse(cell.source)):
                    shown = [node.msg] if isinstance(node, ast.Assert) and node.msg else []
                    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print":
                        shown = node.args
                    texts += [("test", where, t) for n in shown for t in _messages(n, {})]
    return tuple(texts)


def _reference_fragments() -> dict[str, str]:
    """Every statement and expression of a reference solution (assignments whole and their
    values, returns, calls), whitespace removed, with its exercise: what a hint must not hold,
    whether or not the released text states it."""
    from autograder.judge.references import reference_solutions

    found = {}
    for chapter in sorted({e.chapter for e in EXERCISES.values()}):
        for name, source in reference_solutions(chapter).items():
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Assign | ast.AugAssign | ast.Return | ast.Expr):
                    continue
                value = getattr(node, "value", None)
                if value is None or isinstance(value, ast.Constant):
                    continue
                whole = [] if isinstance(node, ast.Return | ast.Expr) else [node]
                for part in [value, *whole]:
                    text = _normalised(ast.unparse(part))
                    if len(text) >= 10 and re.search(r"[-+*/@\[(=.]", text):
                        found[text] = name
    return found


# Fragments of a reference that a message may hold, each with why: the contract's own words.
CONTRACT_FRAGMENTS = {
    "(logits,loss)": "forward's return value, as the contract names it",
}


def test_no_hint_holds_an_expression_of_a_reference_solution():
    """No message, hint or hint ladder a student reads holds a statement or expression of a
    reference solution (whitespace ignored), even one the released text states elsewhere: a
    message that repeats the right line hands over the fix."""
    fragments = _reference_fragments()
    assert len(fragments) > 300  # the search sees the references
    texts = [(where, text, _normalised(text)) for _, where, text in _student_texts()]
    leaks = [
        f"{where}: {text[:100]!r} holds {name}'s {fragment!r}"
        for where, text, normalised in texts
        for fragment, name in fragments.items()
        if fragment in normalised and fragment not in CONTRACT_FRAGMENTS
    ]
    assert not leaks, "\n".join(leaks)


# Verbs that, opening a clause of a hint, tell the student what to write. Methods (check, look,
# try, compare, print, measure) are left out: a hint may say how to find the bug.
FIX_VERBS = (
    "add|apply|average|avoid|build|call|cast|choose|clip|compute|concatenate|convert|copy|count|"
    "create|crop|cut|detach|divide|draw|drop|exchange|fill|include|index|initialise|initialize|"
    "iterate|keep|leave|loop|make|mask|merge|move|multiply|normalise|normalize|pass|perturb|pick|"
    "put|raise|remove|replace|reset|reshape|restore|return|sample|scale|select|set|shift|skip|"
    "sort|split|start|step|stop|store|subclass|subtract|sum|swap|take|transpose|undo|update|use|"
    "work|wrap|write"
)
# In a hint ladder a verb names a step of the method ("multiply the local derivatives"); these
# name the code.
LADDER_FIX_VERBS = "call|put|replace|return|set|store|use"
CONNECTOR = r"(?:and|then|or|but|so|e\.g\.?|i\.e\.?|just|instead|always|only|first|please)\s+"
CODE = r"[A-Za-z_]\w*\.[A-Za-z_]|\w\(|(?<![<>=!])=(?!=)|@|\*\*"
OPERAND = r"(?:[\w.²]+(?:\([^()]*\))?|\([^()]*\))"
OP = r"(?:\s*(?:\*\*|[*/·×^@])\s*|\s+[-+−]\s+)"
FORMULAS = {
    # to an attribute or an entry, of a value that computes something, or in place
    "an assignment": r"(?<![\w.\]=<>!])(?:[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])+\s*=(?!=)\s*[A-Za-z_(]"
    r"|[A-Za-z_]\w*\s*=(?!=)\s*[A-Za-z_][\w.]*(?:\(|\.\w|" + OP + r"\w)|\w\s*[-+*/]=\s*\w)",
    "a call of an arithmetic expression": r"[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*?[\w)\]²]"
    + OP
    + r"[\w(√]",
    "a slice of an arithmetic expression": r"[\w)\]]\[[^\]]*?[\w)]" + OP + r"[\w(][^\]]*\]",
    "a chain of arithmetic": OPERAND + OP + OPERAND + OP + OPERAND,
    "arithmetic on a call": r"[\w)\]²]" + OP + r"[A-Za-z_][\w.]*\(",
    "a quantity stated as arithmetic": r"(?<!that )(?<!it )(?:\b(?:is|are|creates?|equals?|"
    r"becomes?)|=)\s+" + OPERAND + OP + r"[\w(√]",
}
# A gradient of the answer stated whole ("dgamma is sum(...)", "∂L/∂β = Σ ..."): a derivation's
# result, in a hint ladder too.
RESULT = (
    r"(?:∂\s*L\s*/\s*∂\s*(?:β|γ|beta|gamma|x\b|W|b\b|E\b)|\bd(?:gamma|beta|x|W\d?|b\d?|E|q|k|v)\b)"
    r"\s*(?:=|\bis\b)\s*(?:Σ|∑|sum\b|−|-|\w+\s*[*·@/]|\w+\()"
)


def _fixes(kind: str, text: str) -> list[str]:
    """What in `text` hands over a fix: a formula of the answer or an instruction to write one."""
    found = [f"states a gradient whole ({m.group()!r})" for m in re.finditer(RESULT, text)]
    verbs = LADDER_FIX_VERBS if kind == "ladder" else FIX_VERBS
    clauses = re.split(r"[:;!?()\n]|\.(?=\s|$)|,\s+|\s[-–—]\s", text)
    for clause in clauses:
        clause = re.sub(rf"^(?:{CONNECTOR})+", "", clause.strip(" '\"`*"), flags=re.I)
        if re.match(
            rf"(?:(?:{verbs})\b(?![=(._-])(?!\s*(?:\d|{PLACEHOLDER}|(?:of|is|are|was|were|has|must)\b))"
            r"|do not\b|never\b)",
            clause,
            re.I,
        ):
            found.append(f"instructs: {clause!r}")
    if kind == "ladder":
        return found
    for name, pattern in FORMULAS.items():
        found += [f"{name} ({m.group()!r})" for m in re.finditer(pattern, text)]
    for sentence in re.split(r"[:;!?]|\.(?=\s|$)", text):
        if re.search(
            r"\bshould be\b|\binstead of\b|\brather than\b|\bnot\b[^,]*,? but\b", sentence
        ) or (re.search(rf"\b(?:should|must)\b.*(?:{CODE})", sentence)):
            found.append(f"prescribes: {sentence.strip()!r}")
        for m in re.finditer(r",\s+not\s", sentence):
            if re.search(CODE, sentence[max(0, m.start() - 40) : m.end() + 40]):
                found.append(f"corrects code: {sentence.strip()!r}")
    return found


def test_no_message_states_a_formula_or_a_fix():
    """No hidden check's hint, visible test's message or hint ladder states a formula of the
    answer or tells the student what to write ("return ...", "use ...", "x = x + ...", "not X but
    Y"); a hint ladder may name the steps of the method, never a gradient of the answer whole."""
    texts = _student_texts()
    assert {kind for kind, _, _ in texts} == {"hint", "test", "ladder"}
    assert len(texts) > 1000  # the search sees every message
    leaks = [
        f"{where}: {text[:120]!r} {fix}"
        for kind, where, text in texts
        for fix in _fixes(kind, text)
    ]
    assert not leaks, "\n".join(leaks)


# Fixes the detectors must catch: the ones a review found in the course, and likely new ones.
FIXES = [
    ("hint", "the counts are right but their dtype is int32; return np.int64"),
    ("hint", "the loss is the sum over the batch; return the mean"),
    (
        "hint",
        "got nan: put eps inside the square root, and compute the variance as mean((x - mean)^2)",
    ),
    ("hint", "dgamma is sum(dout * x_hat), dbeta is sum(dout): swapped"),
    ("hint", "the head is untied: self.head.weight = self.tok_emb.weight"),
    ("hint", "sample with the generator passed in (torch.multinomial(probs, 1, generator=g))"),
    ("hint", "forward modified its input x: write x = x + ..., not x += ..."),
    ("hint", "off by one: merge 0 creates id 256 (not 257), merge i creates 256 + i"),
    ("hint", "model.block_size is None (self.block_size = block_size)"),
    ("hint", "every step used the first batch: step on each batch in turn"),
    ("hint", "count the pairs again after every merge"),
    ("test", "subtract the max before exp"),
    ("test", "logits was modified: work on a copy"),
    ("test", "pre-norm: x + attn(ln1(x)), then x + mlp(ln2(x))"),
    ("test", "running mean: 0.9 * old + 0.1 * batch mean"),
    ("hint", "expected 96 = V*C + T*C + L*(12C + 13) parameters"),
    ("hint", "the scores should be divided by sqrt(d)"),
    ("hint", "use keepdims=True so that the max broadcasts"),
    ("hint", "Make it the mean over the batch"),
    ("hint", "replace the loop by np.add.at(dE, X, dx)"),
    ("hint", "the mask must be np.triu(np.ones((T, T)), k=1)"),
    ("hint", "divide by B instead of by V"),
    ("hint", "call np.cumsum on the sorted probabilities"),
    ("hint", "the shift is not the global max but each row's"),
    ("hint", "set the masked scores to -inf, not -1e9"),
    ("hint", "do not average the gradient over the heads"),
    ("ladder", "Then ∂L/∂β = Σ_b dout_b and ∂L/∂γ = Σ_b dout_b x̂_b"),
    ("ladder", "use keepdims=True and the result broadcasts along the slice"),
    ("ladder", "Return weights @ v."),
]
# Symptoms, concepts and method steps the detectors must let through.
QUESTIONS = [
    (
        "hint",
        "the gradient is exactly B times too large: how does the loss depend on the batch size?",
    ),
    (
        "hint",
        "only batches with repeated tokens fail: what does indexed assignment do with a "
        "repeated index?",
    ),
    ("hint", "the context comes out reversed: which end is the oldest?"),
    ("hint", "the mask is off by one: position t also sees position t + 1"),
    ("hint", "that is 1/perplexity: the geometric mean of the probabilities"),
    ("hint", "got nan; a probability of 0 must give inf (0 * log 0 or inf - inf?)"),
    ("hint", "returned shape (3, 4); expected (4, 4)"),
    (
        "hint",
        "the last valid start, 7 here, is never drawn (is torch.randint's high inclusive or "
        "exclusive?)",
    ),
    ("hint", "step 1000, betas (0.5, 0.9)"),
    ("hint", "the per-slice reductions broadcast along the wrong axis (look at their shapes)"),
    (
        "hint",
        "a reshape straight to (B, n_head, T, D) mixes positions and heads: try it on torch.arange",
    ),
    ("hint", "drop is never applied in training to the embeddings"),
    ("hint", "vocab_size must be >= 256"),
    ("hint", "k = V keeps everything"),
    ("test", "zero logits: ln V"),
    (
        "ladder",
        "Multiply the local derivatives along each path and add the three paths. Check "
        "each path with the mean frozen: `∂var/∂x_i = 2 (x_i − mean) / C`",
    ),
    ("ladder", "Write out the sequence around one occurrence x a b y of the merged pair (a, b)"),
]


@pytest.mark.parametrize(("kind", "text"), FIXES)
def test_the_detectors_catch_a_fix(kind, text):
    assert _fixes(kind, text)


@pytest.mark.parametrize(("kind", "text"), QUESTIONS)
def test_the_detectors_spare_a_symptom_or_a_question(kind, text):
    assert not _fixes(kind, text)


@pytest.mark.parametrize(
    "name", sorted(name for name, exercise in EXERCISES.items() if exercise.kind == "derive")
)
def test_a_derivation_is_not_in_the_released_text(name):
    """No statement or expression of a derive exercise's reference (assignments whole, their
    values, returns) is in the released notebook, beyond what its declaration lists as given (the
    forward pass, the names of the inputs and of the result, reviewed by hand)."""
    import nbformat

    from autograder.judge.references import reference_solutions

    chapter = EXERCISES[name].chapter
    released = nbformat.read(REPO / "chapters" / f"{chapter}.ipynb", as_version=4)
    given = _normalised("".join(cell.source for cell in released.cells))
    shared = set()
    for node in ast.walk(ast.parse(reference_solutions(chapter)[name])):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Return) and node.value is not None:
            for text in {ast.unparse(node), ast.unparse(node.value)}:
                text = _normalised(text)
                if len(text) >= 8 and re.search(r"[-+*/@\[(]", text) and text in given:
                    shared.add(text)
    # what the exercise's declaration says the text gives (`given_in_text`), reviewed by hand
    given_in_text = set(EXERCISES[name].given_in_text)
    assert shared <= given_in_text, sorted(shared - given_in_text)
