"""Stands in for arbitrary-precision arithmetic while a NumPy exercise is graded: it is not there.

NumPy exercises are graded in NumPy's floating point: a softmax written as the definition in
50-digit decimals never overflows, and a difference of two row losses in them keeps every digit,
so `decimal`, `mpmath` and `sympy` would pass a derive exercise without its derivation.
`autograder.judge.mounted` mounts this file, read-only, over the standard library's `decimal` and
`_pydecimal` modules and its `_decimal` extension (which then fails to load), and as the
`__init__.py` of the `mpmath` and `sympy` package folders. Each module it stands in for has one
name, `Decimal`, a class that cannot be made (so `fractions` and `statistics`, which import the
name, still work); every other use raises NoExtendedPrecision. Imported under its own name (it is
part of the guest, copied whole) it only defines these names.
"""

import sys

from autograder.sandbox.guest import no_torch

ROOTS = ("decimal", "_pydecimal", "mpmath", "sympy")  # the modules it stands in for
MESSAGE = (
    "arbitrary-precision arithmetic (decimal, mpmath, sympy) is not available: NumPy exercises "
    "are graded in NumPy's floating point (the course's rules)"
)


class NoExtendedPrecision(ImportError):
    """Arbitrary-precision arithmetic was used while a NumPy exercise was graded."""


class Decimal:
    """The name `fractions` and `statistics` import (for `isinstance`): making one raises."""

    def __new__(cls, *args: object, **kwargs: object) -> "Decimal":
        """Refuse: there are no decimals here."""
        raise NoExtendedPrecision(MESSAGE)


class Absent(no_torch.Absent):
    """A module that is not there: every attribute it lacks but `Decimal` raises NoExtendedPrecision."""

    error, message, Decimal = NoExtendedPrecision, MESSAGE, Decimal


class Finder(no_torch.Finder):
    """Finds every module under ROOTS as an Absent one."""

    roots, absent = ROOTS, Absent


if __name__ in ROOTS:  # mounted over one of them
    sys.meta_path.insert(0, Finder())
    sys.modules[__name__].__class__ = Absent
    __path__ = []
