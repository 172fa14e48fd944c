"""In the grading process: PyTorch's implementations of the exercise being graded refuse to run.

`install` runs before any student code. PyTorch is not imported here (that takes seconds): an
import hook patches it as soon as anything imports it, before the import returns, so no student
code ever holds an original. Each entry named by the parent (`autograder.wall.answer_key.torch_entries`)
is replaced by a function that raises `AnswerKeyError`, at every level a re-import or
`importlib.reload` of a Python module would fetch it from again: the Python module's attribute,
the C module it is bound from (`torch._C._nn`, `torch._C._special`), `torch.Tensor`'s methods and
the table `torch` copies its functions from (`torch._C._VariableFunctions`). "autograd" refuses the
backward engine (every `.backward()`, `torch.autograd.grad`, `torch.func.grad`) and forward-mode
dual numbers. `verify` patches a PyTorch imported past the hook and reports that it happened.

The limit: code that calls PyTorch's C internals by hand (`torch._C._VariableFunctionsClass`,
`torch._C.TensorBase`, `torch._C._EngineBase`) or digs the originals out of the wrappers still reaches
them; the tamper scan (`autograder.course.tamper_scan`) flags such code for the instructor.
"""

import importlib.abc
import importlib.machinery
import sys

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


def install(exercise: str, entries: list[str]) -> None:
    """Refuse `entries` while `exercise` is graded: now if PyTorch is loaded, else when it is imported."""
    global GUARD
    GUARD = _Guard(exercise, entries)
    if entries:
        sys.meta_path.insert(0, _Hook(GUARD))
        GUARD.patch()


def verify() -> bool:
    """Patch a PyTorch that was imported past the hook; True when that happened (now or before)."""
    if GUARD is None or not GUARD.entries:
        return False
    if "torch" in sys.modules and not GUARD.patched:
        GUARD.bypassed = True
        GUARD.patch()
    return GUARD.bypassed
