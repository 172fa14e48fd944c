"""Reading a submission for tampering: code that no honest solution needs, found in the cells' text.

The trusted grader already makes tampering worthless (its score stands whatever the notebook did),
so a tamperer whose tampering changed no score would pass unnoticed. This scan finds the attempt
itself — patching a module, reaching for the grader, hooking IPython, stopping the interpreter,
touching files — and class grading (`autograder.course`) flags it for the instructor, naming the line.
It is a hint, never a boundary or a score: code built at run time escapes any reading of text,
and the OS sandbox (`autograder.sandbox.host.bwrap`) is what keeps student code away from everything else.

The scan reads untrusted text on the trusted side, so it runs bounded (`scan_bounded`): in a
subprocess with limits on memory and CPU time and a wall-clock deadline; whatever goes wrong there
(a bound hit, an exception) is a flag on that submission ("could not be scanned"), never a failure
of class grading, and the submission is still graded. Its cost is linear in the cell's size: IPython's
own transform re-tokenizes the whole cell once per escaped line (`!cmd`, `%magic`) and gives up
after 500 of them, so the scan transforms each escaped line alone (`python_text`).

    python -m autograder.course.tamper_scan     (JSON {"released", "submitted"} on stdin; findings out)
"""

import ast
import json
import re
import resource
import subprocess
import sys

from autograder.judge.notebook import PARSING, cell_source

SCAN_SECONDS = 60  # wall clock for one submission's scan
SCAN_LIMITS = {resource.RLIMIT_AS: 2 * 1024**3, resource.RLIMIT_CPU: 30}
MAX_FINDINGS = 50  # per submission; the rest are counted
# a line IPython would read as special syntax: !cmd, %magic, x = !cmd, x = %magic, obj?
ESCAPED = re.compile(r"^\s*[!%?]|^[\w.\s,()\[\]*]+=\s*[!%]|\?\s*$")


class ScanFailed(Exception):
    """The scan of a submission did not finish within its bounds (or failed): why."""


STOP_CALLS = {"sys.exit", "os._exit", "os.abort", "os.kill", "os.killpg", "exit", "quit"}
REACH_CALLS = {
    "sys._getframe",
    "sys.settrace",
    "sys.setprofile",
    "sys.addaudithook",
    "inspect.currentframe",
    "inspect.stack",
    "inspect.getouterframes",
    "gc.get_referrers",
    "gc.get_objects",
    "importlib.reload",
}
FILE_CALLS = {
    "os.remove",
    "os.unlink",
    "os.rename",
    "os.replace",
    "os.rmdir",
    "os.mkdir",
    "os.makedirs",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.utime",
    "os.system",
    "os.popen",
    "os.posix_spawn",
    "os.fork",
    "os.forkpty",
    "shutil.rmtree",
    "shutil.move",
}
FILE_METHODS = {"write_text", "write_bytes", "unlink", "rmdir", "mkdir", "touch", "rename"}
IPYTHON_HOOKS = {  # suspicious on any object
    "input_transformers_cleanup",
    "input_transformers_post",
    "input_transformer_manager",
    "ast_transformers",
    "register_magic_function",
    "set_custom_exc",
    "displayhook",
    "display_pub",
}
SHELL_ATTRIBUTES = {
    "events",
    "user_ns",
    "run_cell",
    "showtraceback",
    "ex",
    "kernel",
}  # on the shell
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "__globals__", "__code__", "__builtins__"}
SELF_JUDGING = {
    "__eq__",
    "__ne__",
    "__bool__",
    "__array__",
    "__array_ufunc__",
    "__array_function__",
}
FORBIDDEN_MODULES = {
    "autograder",
    "builtins",
    "subprocess",
    "shutil",
    "socket",
    "ctypes",
    "signal",
    "nbgrader",
}


def _dotted(node: ast.AST) -> str:
    """`a.b.c` for a chain of names and attributes; '' for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _root(node: ast.AST) -> ast.AST:
    """The innermost object of a chain: `np` in `np.testing.x[0]` and in `vars(np)["x"]`."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        if isinstance(node, ast.Call):
            if _dotted(node.func) in {"vars", "getattr"} and node.args:
                node = node.args[0]
            else:
                node = node.func
        else:
            node = node.value
    return node


def _modules(tree: ast.AST, preamble_modules: dict[str, str]) -> dict[str, str]:
    """Every name bound to a module by an import in `tree`, with the module's name, plus the preamble's."""
    bound = dict(preamble_modules)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
    return bound


def _canonical(name: str, modules: dict[str, str]) -> str:
    """`np.testing.x` → `numpy.testing.x`; `sys.exit` stays `sys.exit`."""
    head, _, rest = name.partition(".")
    full = modules.get(head, head)
    return f"{full}.{rest}" if rest else full


def _shell_names(tree: ast.AST) -> set[str]:
    """`get_ipython` and every name bound to its result (`ip = get_ipython()`)."""
    names = {"get_ipython"}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(_root(node.value), ast.Name)
            and _root(node.value).id == "get_ipython"
        ):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


class _Findings(ast.NodeVisitor):
    """Walks a cell's tree and collects (line, what) for every suspicious construct."""

    def __init__(self, modules: dict[str, str], shell: set[str]) -> None:
        self.modules = modules  # names bound to modules → the modules' names
        self.shell = shell  # names bound to the IPython shell
        self.found: set[tuple[int, str]] = set()

    def _note(self, node: ast.AST, what: str) -> None:
        """Record one finding at `node`'s line."""
        self.found.add((getattr(node, "lineno", 0), what))

    def visit_Import(self, node: ast.Import) -> None:
        """Importing a module no solution needs."""
        self._imports(node, [alias.name for alias in node.names])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        """Importing from a module no solution needs."""
        module = node.module or ""
        self._imports(node, [module] + [f"{module}.{alias.name}" for alias in node.names])

    def _imports(self, node: ast.Import | ast.ImportFrom, names: list[str]) -> None:
        for name in names:
            parts = name.split(".")
            if parts[0] in FORBIDDEN_MODULES:
                self._note(node, f"imports {name}, which a solution never needs")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """Assigning to something inside a module."""
        self._changes(node, node.targets)

    def visit_Delete(self, node: ast.Delete) -> None:
        """Deleting something inside a module."""
        self._changes(node, node.targets)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """Updating something inside a module in place."""
        self._changes(node, [node.target])

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        """Assigning to something inside a module, with an annotation."""
        self._changes(node, [node.target])

    def _changes(self, node: ast.AST, targets: list[ast.expr]) -> None:
        for target in targets:
            for item in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                root = _root(item)
                if (
                    isinstance(item, ast.Attribute | ast.Subscript)
                    and isinstance(root, ast.Name)
                    and root.id in self.modules
                    and "rcParams" not in ast.unparse(item)
                ):
                    self._note(
                        node, f"changes the module {self.modules[root.id]} ({ast.unparse(item)})"
                    )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        """Calls that patch modules, stop the interpreter, reach into frames, or touch files."""
        name = _canonical(_dotted(node.func), self.modules)
        target = _root(node.args[0]) if node.args else None
        if (
            name in {"setattr", "delattr"}
            and isinstance(target, ast.Name)
            and target.id in self.modules
        ):
            self._note(node, f"calls {name} on the module {self.modules[target.id]}")
        elif name in STOP_CALLS:
            self._note(node, f"calls {name}, which stops the interpreter")
        elif name in REACH_CALLS:
            self._note(node, f"calls {name}, which reaches into other code's frames or objects")
        elif name in FILE_CALLS or (
            isinstance(node.func, ast.Attribute) and node.func.attr in FILE_METHODS
        ):
            self._note(
                node, f"calls {ast.unparse(node.func)}, which changes files or starts processes"
            )
        elif name == "open" and _writes(node):
            self._note(node, "opens a file for writing")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """IPython's hooks, other code's frames and globals, sys.modules."""
        root = _root(node.value)
        if node.attr in IPYTHON_HOOKS or (
            node.attr in SHELL_ATTRIBUTES and isinstance(root, ast.Name) and root.id in self.shell
        ):
            self._note(node, f"changes how IPython runs later cells ({ast.unparse(node)})")
        elif node.attr in FRAME_ATTRIBUTES:
            self._note(node, f"reaches into other code through {node.attr}")
        elif _canonical(_dotted(node), self.modules) == "sys.modules":
            self._note(node, "reaches into sys.modules")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        """The builtins by name."""
        if node.id == "__builtins__":
            self._note(node, "reaches into __builtins__")

    def visit_Raise(self, node: ast.Raise) -> None:
        """Raising what stops the interpreter."""
        if node.exc is not None:
            raised = _dotted(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            if raised in {"SystemExit", "KeyboardInterrupt"}:
                self._note(node, f"raises {raised}, which stops the interpreter")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        """Defining a method by which objects judge their own comparisons."""
        if node.name in SELF_JUDGING:
            self._note(
                node, f"defines {node.name}, so its objects would judge their own comparisons"
            )
        self.generic_visit(node)


def _findings(tree: ast.AST, modules: dict[str, str]) -> set[tuple[int, str]]:
    """(line, what) for every suspicious construct in `tree`."""
    visitor = _Findings(modules, _shell_names(tree))
    visitor.visit(tree)
    return visitor.found


def _writes(call: ast.Call) -> bool:
    """Whether an `open(...)` call asks for a writing mode (or a mode the scan cannot read)."""
    mode = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(flag in mode.value for flag in "wax+")
    return True


def python_text(source: str) -> str:
    """The Python IPython would run for one cell, made in time linear in its size.

    IPython's cleanup and cell-magic transforms run once on the cell; each escaped line is then
    transformed on its own (one line's tokens, not the whole cell's for every escape).
    """
    from IPython.core.inputtransformer2 import TransformerManager

    manager = TransformerManager()
    lines = (source if source.endswith("\n") else source + "\n").splitlines(keepends=True)
    for transform in manager.cleanup_transforms + manager.line_transforms:
        lines = transform(lines)
    python = []
    for line in lines:
        python += manager.do_token_transforms([line]) if ESCAPED.search(line) else [line]
    return "".join(python)


def _tree(source: str) -> ast.AST | None:
    """The cell's syntax tree; None when it does not parse (as IPython would read it)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        with PARSING:
            return ast.parse(python_text(source))
    except SyntaxError:  # an escape inside brackets or strings: IPython's own reading decides
        pass
    try:
        with PARSING:
            return ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return None


def scan_source(source: str, preamble_modules: dict[str, str] | None = None) -> list[str]:
    """What in one cell's code looks like tampering, as 'line N: what' strings (empty for honest code)."""
    tree = _tree(source)
    if tree is None:
        return []  # code that does not even parse cannot tamper; the grader reports the syntax error
    modules = _modules(tree, preamble_modules or {"np": "numpy", "math": "math"})
    return [f"line {line}: {what}" for line, what in sorted(_findings(tree, modules))]


def scan_notebook(released: dict, submitted: dict) -> list[tuple[str | None, str]]:
    """(grade id or None, finding) for every code cell of `submitted` that is not a cell of the release."""
    given = {cell_source(cell) for cell in released["cells"] if cell.get("cell_type") == "code"}
    findings = []
    for number, cell in enumerate(submitted["cells"], start=1):
        source = cell_source(cell)
        if cell.get("cell_type") != "code" or source in given:
            continue
        meta = cell.get("metadata", {}).get("nbgrader")
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        where = f"cell {grade_id}" if isinstance(grade_id, str) else f"cell {number}"
        findings += [
            (grade_id if isinstance(grade_id, str) else None, f"{where}, {finding}")
            for finding in scan_source(source)
        ]
    return findings


def _bounded() -> None:
    """In the scanning subprocess, before it reads anything: its memory and CPU limits."""
    for limit, value in SCAN_LIMITS.items():
        resource.setrlimit(limit, (value, value))


RUN_BY_PATH = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


def scan_bounded(released: dict, submitted: dict) -> list[tuple[str | None, str]]:
    """`scan_notebook` in a subprocess under SCAN_LIMITS and SCAN_SECONDS; ScanFailed saying why not."""
    try:
        done = subprocess.run(
            # run by path: `-m` would import the course package first (nbconvert, Dask: seconds
            # per submission); the scan needs the standard library and autograder.judge.notebook alone
            [sys.executable, "-I", "-c", RUN_BY_PATH, __file__],
            input=json.dumps({"released": released, "submitted": submitted}).encode(),
            capture_output=True,
            timeout=SCAN_SECONDS,
            preexec_fn=_bounded,
        )
    except subprocess.TimeoutExpired:
        raise ScanFailed(f"the scan took longer than {SCAN_SECONDS} s") from None
    except (OSError, ValueError) as error:
        raise ScanFailed(f"the scan could not start ({type(error).__name__})") from None
    if done.returncode != 0:
        raise ScanFailed(f"the scan stopped with exit status {done.returncode} (its bounds hit?)")
    try:
        findings = [(grade_id, str(what)) for grade_id, what in json.loads(done.stdout)]
    except (ValueError, TypeError):
        raise ScanFailed("the scan's answer was malformed") from None
    if len(findings) > MAX_FINDINGS:
        more = len(findings) - MAX_FINDINGS
        findings = [*findings[:MAX_FINDINGS], (None, f"and {more} more findings")]
    return findings


def main() -> None:
    """Scan the notebooks given on stdin; write the findings as JSON (any error: exit status 1)."""
    given = json.loads(sys.stdin.buffer.read())
    json.dump(scan_notebook(given["released"], given["submitted"]), sys.stdout)


if __name__ == "__main__":
    main()
