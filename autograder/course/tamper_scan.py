"""Reading a submission for tampering: code that no honest solution needs, found in the cells' text.

The trusted grader already makes tampering worthless (its score stands whatever the notebook did),
so a tamperer whose tampering changed no score would pass unnoticed. This scan finds the attempt
itself — patching a module, reaching for the grader, hooking IPython, stopping the interpreter,
touching files — and `autograder.class_grading` flags it for the instructor, naming the line.
It is a hint, never a boundary or a score: code built at run time escapes any reading of text,
and the OS sandbox (`autograder.sandbox`) is what keeps student code away from everything else.
"""

import ast
from collections.abc import Iterator

from autograder.notebook import PARSING, cell_source

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


def _findings(tree: ast.AST, modules: dict[str, str]) -> Iterator[tuple[int, str]]:
    """(line, what) for every suspicious construct in `tree`."""
    shell = _shell_names(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for name in names:
                if name.split(".")[0] in FORBIDDEN_MODULES:
                    yield line, f"imports {name}, which a solution never needs"
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                for item in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                    root = _root(item)
                    if (
                        isinstance(item, ast.Attribute | ast.Subscript)
                        and isinstance(root, ast.Name)
                        and root.id in modules
                        and "rcParams" not in ast.unparse(item)
                    ):
                        yield line, f"changes the module {modules[root.id]} ({ast.unparse(item)})"
        elif isinstance(node, ast.Call):
            name = _canonical(_dotted(node.func), modules)
            target = _root(node.args[0]) if node.args else None
            if (
                name in {"setattr", "delattr"}
                and isinstance(target, ast.Name)
                and target.id in modules
            ):
                yield line, f"calls {name} on the module {modules[target.id]}"
            elif name in STOP_CALLS:
                yield line, f"calls {name}, which stops the interpreter"
            elif name in REACH_CALLS:
                yield line, f"calls {name}, which reaches into other code's frames or objects"
            elif name in FILE_CALLS or (
                isinstance(node.func, ast.Attribute) and node.func.attr in FILE_METHODS
            ):
                yield (
                    line,
                    f"calls {ast.unparse(node.func)}, which changes files or starts processes",
                )
            elif name == "open" and _writes(node):
                yield line, "opens a file for writing"
        elif isinstance(node, ast.Attribute):
            root = _root(node.value)
            if node.attr in IPYTHON_HOOKS or (
                node.attr in SHELL_ATTRIBUTES and isinstance(root, ast.Name) and root.id in shell
            ):
                yield line, f"changes how IPython runs later cells ({ast.unparse(node)})"
            elif node.attr in FRAME_ATTRIBUTES:
                yield line, f"reaches into other code through {node.attr}"
            elif _canonical(_dotted(node), modules) == "sys.modules":
                yield line, "reaches into sys.modules"
        elif isinstance(node, ast.Name) and node.id == "__builtins__":
            yield line, "reaches into __builtins__"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            raised = _dotted(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            if raised in {"SystemExit", "KeyboardInterrupt"}:
                yield line, f"raises {raised}, which stops the interpreter"
        elif isinstance(node, ast.FunctionDef) and node.name in SELF_JUDGING:
            yield line, f"defines {node.name}, so its objects would judge their own comparisons"


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


def scan_source(source: str, preamble_modules: dict[str, str] | None = None) -> list[str]:
    """What in one cell's code looks like tampering, as 'line N: what' strings (empty for honest code)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        with PARSING:
            tree = ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return []  # code that does not even parse cannot tamper; the grader reports the syntax error
    modules = _modules(tree, preamble_modules or {"np": "numpy", "math": "math"})
    return [f"line {line}: {what}" for line, what in sorted(set(_findings(tree, modules)))]


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
