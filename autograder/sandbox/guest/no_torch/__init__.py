"""Stands in for PyTorch while a NumPy exercise is graded: PyTorch is not in this sandbox.

`autograder.judge.mounted` mounts this file, read-only, as the `__init__.py` of every PyTorch
package folder (`torch`, `functorch`, `torchgen`) in a NumPy exercise's sandbox. Imported there,
`import torch` (and any `torch.*` module) gives a stand-in whose every attribute raises NoPyTorch,
so code fails where it uses PyTorch, in the rule's words. Imported under its own name (it is part
of the guest, copied whole) it only defines these names.
"""

import importlib.abc
import importlib.machinery
import sys
import types

ROOTS = ("torch", "functorch", "torchgen")  # the packages it stands in for
MESSAGE = (
    "PyTorch is not available: NumPy exercises are graded without PyTorch, write it with NumPy "
    "(the course's rules)"
)


class NoPyTorch(ImportError):
    """PyTorch was used while a NumPy exercise was graded."""


class Absent(types.ModuleType):
    """A PyTorch module that is not there: every attribute it lacks raises `error` (the guest's
    `no_precision` stands in for other modules with another error)."""

    error: type[ImportError] = NoPyTorch
    message = MESSAGE

    def __getattr__(self, name: str) -> object:
        """Refuse every attribute but dunders (which stay absent for Python's own machinery)."""
        if name.startswith("__"):
            raise AttributeError(name)
        raise self.error(self.message)


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds every module under `roots` as an `absent` one."""

    roots = ROOTS
    absent = Absent

    def find_spec(
        self, name: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec of an absent package for any module under `roots`; None for the rest."""
        if name.partition(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """An absent module with no folder to search."""
        module = self.absent(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module is absent."""


if __name__ in ROOTS:  # mounted over a PyTorch package folder
    sys.meta_path.insert(0, Finder())
    sys.modules[__name__].__class__ = Absent
    __path__ = []
