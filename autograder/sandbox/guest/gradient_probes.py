"""The numerical_gradient probe: trusted code that builds non-plain arguments (callables) in the grading process.

A probe is called as probe(student_fn, *plain_args) and returns plain data only. Whatever it
reports is judged by the parent against references the parent computed itself.
"""

from collections.abc import Callable

import numpy as np


def numerical_gradient_probe(
    fn: Callable,
    x: np.ndarray,
    weights: np.ndarray,
    closure: bool,
    eps: float | None,
    transposed: bool = False,
    returns: str = "float",
) -> dict:
    """Run numerical_gradient on f(x) = sum(weights * sin(x) + x**3 / 3); log what f saw at each call.

    With closure=True, f ignores its argument and reads the original array object, so only an
    implementation that perturbs x in place sees any change. With transposed=True, x is handed over
    in Fortran order (a transpose), where x.reshape(-1) is a copy, not a view. `returns` is what f
    hands back: "float", "numpy" (a NumPy float64) or "array" (a new 0-d array, which must come
    back to f's caller unmodified: it is f's, not the caller's).
    """
    x = np.array(x, dtype=np.float64)
    if transposed:
        x = np.asfortranarray(x)
    original = x.copy()
    changed_per_call: list[int] = []
    handed: list[tuple[np.ndarray, float]] = []

    def f(argument: np.ndarray) -> object:
        seen = x if closure else np.asarray(argument, dtype=np.float64)
        changed_per_call.append(
            int((seen != original).sum()) if seen.shape == original.shape else -1
        )
        value = np.sum(weights * np.sin(seen) + seen**3 / 3)
        if returns == "array":
            out = np.array(value)
            handed.append((out, float(value)))
            return out
        return np.float64(value) if returns == "numpy" else float(value)

    grad = fn(f, x) if eps is None else fn(f, x, eps=eps)
    return {
        "grad": grad,
        "x_after": np.array(x),
        "x_is_grad": isinstance(grad, np.ndarray) and np.shares_memory(grad, x),
        "changed_per_call": changed_per_call,
        "returned_modified": sum(float(out) != value for out, value in handed),
    }
