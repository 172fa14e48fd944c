"""Gradient checking: numerical gradients (PyTorch's own finite differences) and the relative error."""

import warnings
from collections.abc import Callable

import numpy as np


def finite_differences(f: Callable[[], float], x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """d f() / d x by PyTorch's finite differences, perturbing x in place one entry at a time (restored exactly).

    PyTorch's implementation, not the library's: chapter 04 asks you to derive the formula.
    """
    import torch
    from torch.autograd.gradcheck import get_numerical_jacobian

    original = x.copy()

    def at(point: tuple[torch.Tensor]) -> torch.Tensor:
        x[...] = point[0].detach().numpy()
        return torch.tensor(float(f()), dtype=torch.float64)

    try:
        with warnings.catch_warnings():  # deprecated as public API, still PyTorch's own method
            warnings.simplefilter("ignore", FutureWarning)
            (jacobian,) = get_numerical_jacobian(
                at, (torch.from_numpy(original.copy()).requires_grad_(),), eps=eps
            )
    finally:
        x[...] = original
    return jacobian.reshape(x.shape).numpy().astype(np.float64)


def relative_error(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """max |a - b| / max(|a| + |b|, floor), elementwise: about 1e-7 or less for a correct float64 gradient."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float((np.abs(a - b) / np.maximum(np.abs(a) + np.abs(b), floor)).max())
