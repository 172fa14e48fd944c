"""In the grading process: PyTorch's implementations of the exercise being graded refuse to run.

`install` runs before any student code, at two levels. Python: each entry named by the parent
(`autograder.wall.answer_key.torch_entries`) is replaced by a function that raises
`AnswerKeyError`, at every level a re-import or `importlib.reload` of a Python module would fetch
it from again (the module's attribute, `torch._C._nn`, `torch._C._special`, `torch.Tensor`'s
methods, `torch._C._VariableFunctions`); "autograd" refuses the Python entries of the backward
engine and dual numbers. An exercise without aten entries does not import PyTorch (that takes
seconds): an import hook patches it when the submission imports it.

The dispatcher, where every way of calling an operator ends (`torch._VF`, TorchScript, the C
function tables, `torch.ops`, sparse and masked variants): for an exercise with "aten::" entries,
the audit hook registers a refusing kernel over every kernel of each such operator (all overloads,
every dispatch key but Meta) the moment `torch._C` is created: when the submission imports PyTorch,
the hook creates `torch._C` itself and seals it before any code can see it, since a handle on a
kernel taken earlier (`torch._C._dispatch_get_computed_kernel_for_dispatch_key`) would outlive the
seal; a `torch._C` that appears past the hook ends the process (EXIT_UNSEALED). Only exercises whose
answer keys are Python code the dispatcher never sees (`torch.optim`) import PyTorch up front.
The registrations live only in the closure of an audit hook (`sys.addaudithook`: it cannot
be removed), installed in every grading process, which refuses what would reach that closure
(`gc.get_objects`, `gc.get_referrers`, `gc.get_referents`), rewrite a running frame or one of the
grading process's own functions (`sys.settrace`, `sys.setprofile`, assigning their `__code__`) or
read raw memory (`ctypes` calls, loading a shared library from outside PyTorch's folder, opening
`/proc/*/mem`). A refused kernel raises `AnswerKeyError` (inside TorchScript, an error quoting it)
and tells the hook; after `arm`, `check` raises AnswerKeyError once any refused call ran, caught
or not.

PyTorch's Python decompositions (`torch._refs`, `torch._decomp`, inductor's), which compute a
refused operator from calculators, no dispatcher sees: as each of their modules finishes loading the
hook swaps the code of those that implement a refused operator (registered for one in a
decomposition table, named after one, or a private helper only such functions call), so every
holder of them is refused, and refuses reading or running a second copy of their files. In a
gradient exercise the backward engine is no dispatcher operator either: grad mode is switched off
as torch._C is sealed and its switch refuses to turn it on, so TorchScript's `autograd.grad` and
the engine class by hand find no graph (a RuntimeError, not an AnswerKeyError); a new thread, whose
grad mode is on, the grading process refuses by seccomp (`autograder.inside.seccomp.THREADS`).
"""

import _imp
import glob
import importlib.abc
import importlib.machinery
import os
import sys
import warnings

AUTOGRAD = "autograd"
FORWARD_AD = ("torch.autograd.forward_ad.make_dual", "torch._make_dual")


class AnswerKeyError(RuntimeError):
    """Raised by an implementation of the exercise being graded that the environment ships."""


class _Guard:
    """What is refused while `exercise` is graded, and whether PyTorch has been patched yet."""

    def __init__(self, exercise: str, entries: list[str]) -> None:
        self.exercise, self.entries = exercise, list(entries)
        self.patched = False
        self.bypassed = False

    def refuser(self, name: str) -> object:
        """A stand-in for `name` that raises AnswerKeyError naming the rule."""
        return _Refused(name, self.exercise)

    def patch(self) -> None:
        """Replace every entry in the imported PyTorch (once)."""
        if self.patched or "torch" not in sys.modules:
            return
        self.patched = True
        import torch

        refused_functions = {}
        for entry in self.entries:
            if entry == AUTOGRAD:
                self._refuse_autograd(torch)
                continue
            owner_name, _, attribute = entry.rpartition(".")
            owner = _resolve(owner_name)
            if owner is None or not hasattr(owner, attribute):
                continue
            setattr(owner, attribute, self.refuser(entry))
            if owner is torch and hasattr(torch._C._VariableFunctions, attribute):
                refused_functions[attribute] = self.refuser(entry)
        if refused_functions:
            torch._C._VariableFunctions = _Functions(torch._C._VariableFunctions, refused_functions)

    def _refuse_autograd(self, torch: object) -> None:
        from torch.autograd.variable import Variable

        refuse = self.refuser("autograd (backward / torch.autograd.grad)")

        class GuardedEngine(torch._C._ImperativeEngine):
            """The backward engine, refusing to run a backward pass."""

            def run_backward(self, *args: object, **kwargs: object) -> None:
                refuse()

        Variable._execution_engine = GuardedEngine()
        torch._C._ImperativeEngine = GuardedEngine  # what a reloaded torch.autograd builds
        for entry in FORWARD_AD:
            owner_name, _, attribute = entry.rpartition(".")
            owner = _resolve(owner_name)
            if owner is not None and hasattr(owner, attribute):
                setattr(owner, attribute, self.refuser(entry))


class _Refused:
    """Called, raises AnswerKeyError; its attributes (an operator's `.default` overload) are itself."""

    def __init__(self, name: str, exercise: str) -> None:
        self.__name__ = self.__qualname__ = name.rsplit(".", 1)[-1]
        self._message = (
            f"{name} implements the exercise being graded ({exercise}); the answer-key rule: "
            "while an exercise is graded, the environment's own implementations of it "
            "(the library's, the grader's, PyTorch's) refuse to run. Write it yourself "
            "(PyTorch as a calculator is fine)"
        )

    def __call__(self, *args: object, **kwargs: object) -> None:
        sys.audit(REFUSED)
        raise AnswerKeyError(self._message)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return self


class _Functions:
    """`torch._C._VariableFunctions` with some functions refused (what `torch` copies on a reload)."""

    def __init__(self, original: object, refused: dict) -> None:
        self._original, self._refused = original, refused

    def __getattr__(self, name: str) -> object:
        if name in self._refused:
            return self._refused[name]
        return getattr(self._original, name)

    def __dir__(self) -> list[str]:
        return dir(self._original)


def _resolve(dotted: str) -> object:
    """The object a dotted name like `torch.nn.functional` or `torch.Tensor` names, or None."""
    parts = dotted.split(".")
    if parts[0] not in sys.modules:
        return None
    obj = sys.modules[parts[0]]
    for index, part in enumerate(parts[1:], start=1):
        if not hasattr(obj, part):
            module = ".".join(parts[: index + 1])
            try:
                obj = importlib.import_module(module)
                continue
            except ImportError:
                return None
        obj = getattr(obj, part)
    return obj


class _PatchingLoader(importlib.abc.Loader):
    """Torch's own loader, then the guard's patches, before `import torch` returns."""

    def __init__(self, loader: importlib.abc.Loader, guard: _Guard) -> None:
        self.loader, self.guard = loader, guard

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> object:
        return self.loader.create_module(spec)

    def exec_module(self, module: object) -> None:
        self.loader.exec_module(module)
        self.guard.patch()


class _Hook(importlib.abc.MetaPathFinder):
    """Finds `torch` as the path finder does, with a loader that patches it."""

    def __init__(self, guard: _Guard) -> None:
        self.guard = guard

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name != "torch" or self.guard.patched:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader, self.guard)
        return spec


GUARD: _Guard | None = None
ARM = "proof_lm.answer_guard.arm"
CHECK = "proof_lm.answer_guard.check"
REFUSED = "proof_lm.answer_guard.refused"
# audit events that would reach the hook's closure, rewrite a running frame or raw memory
INTROSPECTION = frozenset(
    ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile")
)
EAGER = ("torch.optim",)  # answer keys in Python code the dispatcher never sees
SKIPPED_KEYS = frozenset(
    ("Meta",)
)  # shapes only, no values: left alone (fake tensors keep working)


def install(exercise: str, entries: list[str]) -> None:
    """Refuse `entries` while `exercise` is graded: now if PyTorch is loaded, else when it is imported.

    The dispatcher is sealed the moment `torch._C` is created, before any other code can see it
    (a handle on an original kernel taken before the seal would outlive it:
    `torch._C._dispatch_get_computed_kernel_for_dispatch_key`). An exercise whose answer keys are
    Python code the dispatcher never sees (`torch.optim`) imports PyTorch here instead, so that
    its Python-level patches, too, come before any student code.
    """
    global GUARD
    GUARD = _Guard(exercise, [e for e in entries if not e.startswith("aten::")])
    aten = tuple(e.removeprefix("aten::") for e in entries if e.startswith("aten::"))
    if any(e.startswith(EAGER) for e in entries):
        import torch  # noqa: F401 - now: its Python-level patches before any student code
    sys.addaudithook(_sealed_hook(exercise, aten, AUTOGRAD in entries))
    if entries:
        sys.meta_path.insert(0, _Hook(GUARD))
        GUARD.patch()


def arm() -> None:
    """From now on, a refused operator counts against the exercise (see `check`)."""
    sys.audit(ARM)


def check() -> None:
    """Raise AnswerKeyError when a refused operator ran since `arm`."""
    sys.audit(CHECK)


def _torch_dir() -> str:
    """Where PyTorch's own files are (ctypes may load its shared libraries, and only those)."""
    spec = importlib.machinery.PathFinder.find_spec("torch")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return os.path.join(locations[0], "") if locations else "/nonexistent/"


def _seal(torch_c: object, names: tuple[str, ...], kernel: object) -> object:
    """Register `kernel(op)` over every kernel of every overload of the aten operators `names`
    (every dispatch key but SKIPPED_KEYS); returns the registrations, which must stay alive."""
    wanted, keys = set(names), []
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
            if namespace != "aten" or full.split(".")[0] not in wanted:
                continue
            for key in keys:
                if torch_c._dispatch_has_kernel_for_dispatch_key(op, key):
                    registrations.impl(full, key, kernel(full.split(".")[0]))
    return registrations


# PyTorch's Python implementations of its operators: references and decompositions
DECOMPOSITIONS = ("_refs/", "_decomp/", "_inductor/decomposition.py")  # under torch's folder
REFUSAL = "__proof_lm_answer_key__"  # what a refused decomposition's code calls, in its module


def _innermost(function: object) -> object:
    """The function a chain of decorators (functools.wraps' `__wrapped__`) ends in."""
    seen = set()
    while hasattr(function, "__wrapped__") and id(function) not in seen:
        seen.add(id(function))
        function = function.__wrapped__
    return function


def _names_in(code: object) -> set:
    """The global names `code` and the code nested in it look up."""
    found, stack = set(), [code]
    while stack:
        current = stack.pop()
        found.update(current.co_names)
        stack += [c for c in current.co_consts if hasattr(c, "co_names")]
    return found


def _decompositions(modules: dict, names: tuple, function_type: type) -> list:
    """The Python functions of `modules` (PyTorch's references and decompositions) that implement the
    aten operators `names`: registered for one of them in a decomposition table or an operator's
    Python kernels, or named after one, and the helpers that only such functions call."""
    wanted = {name.strip("_") for name in names}
    functions, bindings = {}, {}
    for module in modules.values():
        space = vars(module)
        for attribute, value in list(space.items()):
            inner = _innermost(value)
            if type(inner) is function_type:
                functions[id(inner)] = inner
                bindings[(id(space), attribute)] = inner
    refused = {
        key for key, f in functions.items() if any(w in f.__name__.strip("_") for w in wanted)
    }
    decomp = modules.get("torch._decomp")
    tables = list(getattr(decomp, "global_decomposition_table", {}).values())
    for table in tables:
        for op, value in list(table.items()):
            name = str(getattr(op, "_opname", "")).strip("_")
            inner = _innermost(value)
            if name in wanted and id(inner) in functions:
                refused.add(id(inner))
    callers: dict = {}
    for key, f in functions.items():
        for name in _names_in(f.__code__):
            target = bindings.get((id(f.__globals__), name))
            if target is not None and id(target) != key:
                callers.setdefault(id(target), set()).add(key)
    grown = True
    while grown:  # a private helper only those call (the heart of a norm: _normalize)
        more = {
            key
            for key, by in callers.items()
            if key not in refused and by <= refused and functions[key].__name__.startswith("_")
        }
        grown = bool(more)
        refused |= more
    return [functions[key] for key in refused if not functions[key].__code__.co_freevars]


def _sealed_hook(exercise: str, names: tuple[str, ...], autograd: bool) -> object:
    """The audit hook that seals the dispatcher, keeps the seal out of reach and counts refusals."""
    message = (
        f"PyTorch's {{}} implements the exercise being graded ({exercise}); the answer-key rule: "
        "while an exercise is graded, the environment's own implementations of it (the library's, "
        "the grader's, PyTorch's) refuse to run. Write it yourself (PyTorch as a calculator is fine)"
    )
    audit, modules, here = sys.audit, sys.modules, os.path.join(os.path.dirname(__file__), "")
    torch_dir = _torch_dir()
    extensions = glob.glob(os.path.join(glob.escape(torch_dir), "_C.*.so"))
    create, spec_of = _imp.create_dynamic, importlib.machinery.ModuleSpec
    loader_of, module_type, exit_now = importlib.machinery.ExtensionFileLoader, type(sys), os._exit
    state = {"armed": False, "refused": 0, "sealed": not names, "busy": False}
    function_type = type(_torch_dir)
    watched = tuple(os.path.join(torch_dir, where) for where in DECOMPOSITIONS)
    swept: set = set()  # the decomposition modules whose functions were refused
    originals: set = set()  # their code objects, and bytecodes, held here alone
    bytecodes: set = set()
    files: set = set()  # their source and bytecode files

    def refusal(name: str) -> None:
        audit(REFUSED)
        raise AnswerKeyError(message.format(f"{name} (a Python decomposition)"))

    def sweep(force: bool = False) -> None:
        """Refuse the decompositions of the refused operators in every decomposition module that
        has finished loading: their code is swapped, so every holder of them is refused."""
        if "torch._refs" not in modules or (len(modules) == state.get("modules") and not force):
            return  # nothing loaded since the last sweep
        state["modules"], loaded = len(modules), {}
        for name, module in list(modules.items()):
            spec = getattr(module, "__spec__", None)
            origin = str(getattr(spec, "origin", None))
            if origin.startswith(watched) and not getattr(spec, "_initializing", True):
                loaded[name] = module
        if not names or set(loaded) <= swept:
            return
        swept.update(loaded)
        for module in loaded.values():
            files.update(str(f) for f in (module.__spec__.origin, module.__spec__.cached) if f)
        template = compile(
            f"def refused(*args, **kwargs):\n    return {REFUSAL}('NAME')\n", "<refused>", "exec"
        ).co_consts[0]
        for function in _decompositions(loaded, names, function_type):
            code = function.__code__
            if code in originals or code.co_filename == "<refused>":
                continue
            originals.add(code)
            bytecodes.add(code.co_code)
            function.__globals__[REFUSAL] = refusal
            function.__code__ = template.replace(
                co_consts=tuple(
                    f"{function.__module__}.{function.__name__}" if c == "NAME" else c
                    for c in template.co_consts
                ),
                co_name=code.co_name,
                co_qualname=code.co_qualname,
            )

    def ours(function: object) -> bool:
        """True for a function of the grading process's own modules (judged by its code's file)."""
        code = getattr(function, "__code__", None)
        return str(getattr(code, "co_filename", "")).startswith(here)

    def kernel(op: str) -> object:
        text = message.format(f"aten::{op}")

        def refuse(*args: object, **kwargs: object) -> None:
            audit(REFUSED)
            raise AnswerKeyError(text)

        return refuse

    def seal(torch_c: object) -> None:
        stub = module_type("torch.library")  # what registering a Python kernel looks up
        stub.fallthrough_kernel = object()
        before = modules.get("torch.library")
        modules["torch.library"] = before if before is not None else stub
        try:
            state["registrations"] = _seal(torch_c, names, kernel)  # as unreachable as the hook
        finally:
            if modules.get("torch.library") is stub:
                del modules["torch.library"]
        if autograd:  # what torch.autograd builds its engine from: refusing to run a backward pass
            torch_c._ImperativeEngine = _guarded_engine(torch_c._ImperativeEngine, message)
            # and grad mode off for good, below Python: no graph is recorded, so no engine (the
            # original class by hand, TorchScript's autograd.grad) has anything to differentiate
            state["grad_mode"] = torch_c._set_grad_enabled  # the switch, held here alone
            torch_c._set_grad_enabled(False)
            torch_c._set_grad_enabled = _grad_switch(message)
            # grad mode can still be turned on from C++ (TorchScript's set_grad_enabled, a JIT
            # operator), so also inference mode for good: it takes autograd's dispatch keys out of
            # the thread's set, and with them out no graph is recorded whatever grad mode says.
            # Inference mode's binding appears only in torch._C._autograd_init, which torch's
            # import calls: it is entered, and every binding that could put the keys back refuses
            # to, before that call returns.
            if hasattr(torch_c, "_InferenceMode"):  # PyTorch loaded before the guard
                _hold_inference(torch_c, state, message)
            else:
                torch_c._autograd_init = _inference_for_good(torch_c, state, message)
        state["sealed"] = True

    def create_sealed() -> None:
        """Create torch._C ourselves, seal it, and only then let the import see it."""
        origin = extensions[0]
        loader = loader_of("torch._C", origin)
        spec = spec_of("torch._C", loader, origin=origin)
        torch_c = create(spec)
        torch_c.__spec__, torch_c.__loader__, torch_c.__file__ = spec, loader, origin
        torch_c.__package__ = "torch"
        seal(torch_c)
        modules["torch._C"] = torch_c

    if names and "torch._C" in modules:  # PyTorch already loaded (before any student code)
        seal(modules["torch._C"])
        sweep(True)

    def hook(event: str, args: tuple) -> None:
        if state["busy"]:  # the events of creating and sealing torch._C: no student code runs
            return
        if event in INTROSPECTION or (
            event == "object.__setattr__" and args[1] == "__code__" and ours(args[0])
        ):
            raise AnswerKeyError(f"{event} is not allowed while an exercise is graded")
        if event.startswith("ctypes."):
            loads = args[0] if event == "ctypes.dlopen" else False  # None: the process itself
            if not (loads is None or str(loads).startswith(torch_dir)):
                raise AnswerKeyError(f"{event} is not allowed while an exercise is graded")
            return
        if event == "open" and str(args[0]).startswith("/proc") and str(args[0]).endswith("mem"):
            raise AnswerKeyError("raw memory is not allowed while an exercise is graded")
        if not state["sealed"] and event in ("import", ARM, CHECK):
            if event == "import" and args[0] == "torch._C" and "torch._C" not in modules:
                state["busy"] = True
                try:
                    create_sealed()
                except BaseException:  # no seal, no answers
                    exit_now(EXIT_UNSEALED)
                finally:
                    state["busy"] = False
            elif "torch._C" in modules:  # created past the hook: its kernels may be in hand
                exit_now(EXIT_UNSEALED)
        if (
            names
            and "torch._refs" in modules
            and event in ("import", ARM, CHECK, "exec", "function.__new__", "code.__new__")
        ):
            state["busy"] = True
            try:
                sweep(event != "import")  # what finished loading since, before anyone calls it
            finally:
                state["busy"] = False
            if event in ("exec", "function.__new__") and args[0] in originals:
                raise AnswerKeyError(message.format("a Python decomposition's code"))
            if event == "code.__new__" and args[0] in bytecodes:
                raise AnswerKeyError(message.format("a Python decomposition's code"))
        if event in ("open", "exec") and files:  # a second copy of a swept module: its source
            where = str(getattr(args[0], "co_filename", "") if event == "exec" else args[0])
            if where in files:
                raise AnswerKeyError(message.format(f"a copy of {where}"))
        if "grad_mode" in state and event in (GRAD_OFF, ARM, CHECK):
            state["grad_mode"](False)
        if event == REFUSED:
            state["refused"] += state["armed"]
        elif event == ARM:
            state["armed"] = True
        elif event == CHECK and state["refused"]:
            raise AnswerKeyError(message.format("implementation") + " (a refused call ran)")

    return hook


GRAD_OFF = "proof_lm.answer_guard.grad_off"


def _grad_switch(message: str) -> object:
    """`torch._C._set_grad_enabled` in a gradient exercise: turning grad mode on is refused."""

    def set_grad_enabled(mode: bool) -> None:
        if mode:
            sys.audit(REFUSED)
            raise AnswerKeyError(message.format("autograd (grad mode)"))
        sys.audit(GRAD_OFF)  # the audit hook holds the real switch

    return set_grad_enabled


# the bindings that could give a thread autograd's dispatch keys back, and when they would
_KEY_SWITCHES = {
    "_InferenceMode": lambda mode=True: not mode,
    "_dispatch_tls_set_dispatch_key_excluded": lambda key, excluded: not excluded,
    "_SetExcludeDispatchKeyGuard": lambda key, excluded: not excluded,
    "_ForceDispatchKeyGuard": lambda *args: True,
}


def _hold_inference(torch_c: object, state: dict, message: str) -> None:
    """Enter inference mode for good (its guard kept in `state`); each of _KEY_SWITCHES refuses to
    leave it."""
    state["inference"] = torch_c._InferenceMode(True)
    state["inference"].__enter__()
    for name, refuses in _KEY_SWITCHES.items():
        setattr(torch_c, name, _key_switch(getattr(torch_c, name), refuses, message))


def _inference_for_good(torch_c: object, state: dict, message: str) -> object:
    """`torch._C._autograd_init`, which creates inference mode's binding, then `_hold_inference`."""
    autograd_init = torch_c._autograd_init

    def init() -> bool:
        done = autograd_init()
        _hold_inference(torch_c, state, message)
        return done

    return init


def _key_switch(binding: object, refuses: object, message: str) -> object:
    """`binding` in a gradient exercise: refused (AnswerKeyError) when `refuses(*args)` says it would
    let autograd record a graph; else the binding itself."""

    def switch(*args: object, **kwargs: object) -> object:
        if refuses(*args, **kwargs):
            sys.audit(REFUSED)
            raise AnswerKeyError(message.format("autograd (inference mode off)"))
        return binding(*args, **kwargs)

    return switch


def _guarded_engine(engine: type, message: str) -> type:
    """A subclass of the backward engine whose backward pass raises AnswerKeyError."""

    class GuardedEngine(engine):
        """The backward engine, refusing to run a backward pass."""

        def run_backward(self, *args: object, **kwargs: object) -> None:
            sys.audit(REFUSED)
            raise AnswerKeyError(message.format("autograd (the backward engine)"))

    return GuardedEngine


EXIT_UNSEALED = 5  # the exit status of a grading process whose PyTorch was loaded past the seal


def verify() -> bool:
    """Patch a PyTorch that was imported past the hook; True when that happened (now or before)."""
    if GUARD is None or not GUARD.entries:
        return False
    if "torch" in sys.modules and not GUARD.patched:
        GUARD.bypassed = True
        GUARD.patch()
    return GUARD.bypassed
