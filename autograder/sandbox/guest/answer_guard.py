"""In the grading process of chapter 08's attention exercises: PyTorch's finished layers refuse to run.

`install` runs before any student code, after PyTorch is imported. It refuses what
`autograder.judge.torch_search` found in PyTorch's module tree (the table `torch_refused.json`):

- each refused class (`nn.MultiheadAttention` and every subclass, `torch.ao.nn`'s included; the
  `nn.Transformer*` layers): every method of its own, and `__init__` and `forward`, raise
  `AnswerKeyError`, so building one, a subclass of one (through `super().__init__`) or calling its
  `forward` on a module of the student's own is refused;
- each refused Python function (`F.multi_head_attention_forward`, flex attention's eager path, the
  decompositions of scaled-dot-product attention): its code is swapped, so every holder of it is
  refused, however it was reached;
- each refused aten operator (`F.scaled_dot_product_attention` and the fused kernels behind it,
  reached from Python, TorchScript or `torch.ops`): a refusing kernel is registered over every
  kernel of each of its overloads at PyTorch's dispatcher (every dispatch key but Meta);
- a refused module's file runs only once: a module of the table that is loaded is patched here, and
  its code (a reload, or its file compiled by hand) never runs again; one that is not loaded yet
  cannot be loaded;
- the packages where PyTorch keeps compiled or exported forms of attention (`REFUSED_PACKAGES`:
  `torch._inductor`'s fused-attention patterns, ONNX's and export's attention, the test suite's
  reference implementations) are refused whole, by folder, not by name: once the guard is
  installed no code of theirs runs again (a module not loaded by then never loads, whatever stubs
  are put in `sys.modules`; a loaded one is never reloaded). What every optimizer loads is loaded
  first (`PRELOADED`), so building one stays free, and what it loads of the table is patched.

`torch.compile` returns what it is given, unchanged (`_not_compiled`): compiling changes how fast
a model runs, not what it computes, and in this process no program may start (a compiler
included) and torch._inductor does not load. A note shows PyTorch's files by their place in
PyTorch (`torch/...`), never by a path of the grading machine.

What this takes is bounded: one import of what optimizers load, one pass over the table, then a
set lookup and a prefix test per audit event. PyTorch's
building blocks stay free (`nn.Linear`, `softmax`, `bmm`, `masked_fill`, `nn.Dropout`): an attention
computed from them is the student's own code. Copying PyTorch's source into a submission is not the
student's work either; that is the course's rule, not something this guard looks for.

The seal's registrations live only in an audit hook made of C functions (no Python frame ever
holds them), and the refusing hook refuses what would reach them (`gc.get_objects`,
`gc.get_referrers`, `gc.get_referents`), rewrite a running frame (`sys.settrace`, `sys.setprofile`)
or read raw memory (`ctypes` beyond loading PyTorch's own libraries, `/proc/*/mem`).
"""

import functools
import json
import os
import sys
import types
import warnings

TABLE = os.path.join(os.path.dirname(__file__), "torch_refused.json")
# Where PyTorch keeps compiled or exported forms of attention, as folders of its package: refused
# whole while an attention exercise is graded (`_inductor/fx_passes/fuse_attention.py`'s
# `_sfdp_pattern_*` is a GPT's attention in building blocks, and nothing in its name says so).
REFUSED_PACKAGES = ("_inductor", "onnx", "export", "_export", "testing/_internal")
# Imported before the refusal: what building any `torch.optim` optimizer imports (its
# `add_param_group` is wrapped by `torch._disable_dynamo`), some modules of the refused packages
# and of the table among them (`torch.distributed.tensor._ops._matrix_ops`, patched by name), and
# FLOP counting (whose attention formulas the table refuses by name).
PRELOADED = ("torch._dynamo", "torch.utils.flop_counter")
INTROSPECTION = frozenset(
    ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile")
)
SKIPPED_KEYS = frozenset(
    ("Meta",)
)  # shapes only, no values: left alone (fake tensors keep working)
REFUSAL = "__proof_lm_answer_key__"  # what a refused function's code calls, in its module


class AnswerKeyError(RuntimeError):
    """Raised by a finished attention or transformer layer PyTorch ships, while one is graded."""


def _message(name: str, exercise: str) -> str:
    return (
        f"{name} is PyTorch's finished attention or transformer layer, which {exercise} may not use "
        "(the course's rule: PyTorch's building blocks, not its finished attention or transformer "
        "layers). Write it yourself"
    )


def _refuser(name: str, exercise: str) -> object:
    """A function that raises AnswerKeyError naming `name`."""
    text = _message(name, exercise)

    def refused(*args: object, **kwargs: object) -> None:
        raise AnswerKeyError(text)

    refused.__name__ = refused.__qualname__ = name.rsplit(".", 1)[-1]
    return refused


def _refuse(name: str, exercise: str) -> None:
    """Raise AnswerKeyError naming `name` (what a refused function's swapped code calls)."""
    raise AnswerKeyError(_message(name, exercise))


def innermost(function: object) -> object:
    """The function a chain of decorators ends in: functools.wraps' `__wrapped__`, or the Python
    function a `torch.library.custom_op` was made from (`_init_fn`; ONNX's `attention_23` is one)."""
    seen: set[int] = set()
    while id(function) not in seen:
        seen.add(id(function))
        if hasattr(function, "__wrapped__"):
            function = function.__wrapped__
        elif isinstance(getattr(function, "_init_fn", None), types.FunctionType):
            function = function._init_fn
        else:
            break
    return function


def _lookup(module: object, qualname: str) -> object:
    """The object `qualname` names in `module`, or None."""
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


def _refuse_class(cls: type, exercise: str) -> None:
    """Every method of `cls`'s own, and its `__init__` and `forward`, raise AnswerKeyError."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    own = [key for key, value in vars(cls).items() if callable(getattr(value, "__func__", value))]
    for key in {*own, "__init__", "forward"} - {"__class__", "__new__"}:
        value = vars(cls).get(key)
        if value is not None and not callable(getattr(value, "__func__", value)):
            continue
        refused = _refuser(f"{name}.{key}", exercise)
        setattr(cls, key, staticmethod(refused) if isinstance(value, staticmethod) else refused)


def _refuse_function(function: object, exercise: str, kept: list) -> None:
    """Swap the code of a Python function for one that raises AnswerKeyError (every holder of it is
    refused); the original code is kept in `kept`, which only the keeper hook holds."""
    inner = innermost(function)
    code = getattr(inner, "__code__", None)
    if code is None or code.co_freevars:
        return
    name = f"{inner.__module__}.{inner.__qualname__}"
    template = compile(
        f"def refused(*args, **kwargs):\n    return {REFUSAL}({name!r})\n", "<refused>", "exec"
    ).co_consts[0]
    kept.append(code)
    inner.__globals__[REFUSAL] = functools.partial(_refuse, exercise=exercise)
    inner.__code__ = template.replace(co_name=code.co_name, co_qualname=code.co_qualname)


def _seal(torch_c: object, names: set[str], exercise: str) -> object:
    """Register a refusing kernel over every kernel of every overload of the aten operators `names`
    (every dispatch key but SKIPPED_KEYS); returns the registrations, which must stay alive."""
    keys = []
    for key in torch_c.DispatchKey.__members__:
        try:  # some members are markers (StartOfDenseBackends), not keys
            torch_c._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor", key)
        except RuntimeError:
            continue
        if key not in SKIPPED_KEYS:
            keys.append(key)
    registrations = torch_c._dispatch_library("IMPL", "aten", "", __name__, 0)
    with warnings.catch_warnings():  # "overriding a previously registered kernel": the point
        warnings.simplefilter("ignore")
        for op in torch_c._dispatch_get_all_op_names():
            namespace, _, full = op.partition("::")
            if namespace != "aten" or full.split(".")[0] not in names:
                continue
            for key in keys:
                if torch_c._dispatch_has_kernel_for_dispatch_key(op, key):
                    registrations.impl(full, key, _refuser(f"aten::{full}", exercise))
    return registrations


def install(exercise: str) -> None:
    """Refuse PyTorch's finished attention and transformer layers from now on (see the module)."""
    import importlib

    import torch
    import torch.nn  # the layers' modules, loaded before the table is read

    for name in PRELOADED:
        importlib.import_module(name)
    torch.compile = _not_compiled
    with open(TABLE) as table_file:
        table = json.load(table_file)
    root = os.path.dirname(os.path.realpath(torch.__file__))
    kept: list = []  # the swapped functions' original code
    files = set()
    for module_name, entry in table["modules"].items():
        path = os.path.join(root, entry["file"])
        files.add(path)
        module = sys.modules.get(module_name)
        if module is None:  # not loaded: it never will be (the hook refuses its code)
            continue
        for qualname in entry["classes"]:
            cls = _lookup(module, qualname)
            if isinstance(cls, type):
                _refuse_class(cls, exercise)
        for qualname in entry["functions"]:
            _refuse_function(_lookup(module, qualname), exercise, kept)
    registrations = _seal(torch._C, set(table["aten"]), exercise)
    # kept alive by an audit hook made of C functions: no Python frame ever holds the seal
    sys.addaudithook(functools.partial(dict.get, {"seal": registrations, "code": kept}))
    sys.addaudithook(_refusing_hook(exercise, root, frozenset(files)))


def _not_compiled(model: object = None, **options: object) -> object:
    """`torch.compile` while an attention exercise is graded: `model` unchanged (or, as a decorator
    with options only, a decorator that leaves what it decorates unchanged)."""
    return (lambda function: function) if model is None else model


def _shown(path: str, torch_dir: str) -> str:
    """A file of PyTorch as a note shows it: by its place in PyTorch, not on the grading machine."""
    return "torch/" + path.removeprefix(torch_dir)


def _refusing_hook(exercise: str, torch_dir: str, files: frozenset) -> object:
    """The audit hook that keeps the seal out of reach and the refused modules' code from running."""
    torch_dir, realpath = os.path.join(torch_dir, ""), os.path.realpath
    folders = tuple(os.path.join(torch_dir, package, "") for package in REFUSED_PACKAGES)

    def hook(event: str, args: tuple) -> None:
        if event in INTROSPECTION:
            raise AnswerKeyError(f"{event} is not allowed while {exercise} is graded")
        if event.startswith("ctypes."):
            loads = args[0] if event == "ctypes.dlopen" else False  # None: the process itself
            if not (loads is None or str(loads).startswith(torch_dir)):
                raise AnswerKeyError(f"{event} is not allowed while {exercise} is graded")
            return
        if event == "open" and str(args[0]).startswith("/proc") and str(args[0]).endswith("mem"):
            raise AnswerKeyError(f"raw memory is not allowed while {exercise} is graded")
        if event in ("exec", "code.__new__"):
            where = getattr(args[0], "co_filename", None) if event == "exec" else args[1]
            if not isinstance(where, str):
                return
            where = realpath(where)  # torch/./x.py, a symlink: the file itself
            if where in files:
                raise AnswerKeyError(_message(f"the code of {_shown(where, torch_dir)}", exercise))
            if where.startswith(folders):
                package = next(p for p in REFUSED_PACKAGES if where.startswith(torch_dir + p + "/"))
                raise AnswerKeyError(
                    f"{_shown(where, torch_dir)} is in torch/{package}, where PyTorch keeps compiled "
                    f"or exported forms of attention, which {exercise} may not use (the course's "
                    "rule: PyTorch's building blocks, not its finished attention or transformer "
                    "layers); while it is graded, that package loads nothing more. Write it yourself"
                )

    return hook
