"""The numerical_gradient probe: trusted code that builds non-plain arguments (callables) in the grading process.

A probe is called as probe(student_fn, *plain_args) and returns plain data only. Whatever it
reports is judged by the parent against references the parent computed itself.
"""

from collections.abc import Callable

import numpy as np


def numerical_gradient_probe(
    fn: Callable, x: np.ndarray, weights: np.ndarray, closure: bool, eps: float | None
) -> dict:
    """Run numerical_gradient on f(x) = sum(weights * sin(x) + x**3 / 3); log what f saw at each call.

    With closure=True, f ignores its argument and reads the original array object, so only an
    implementation that perturbs x in place sees any change.
    """
    x = np.array(x, dtype=np.float64)
    original = x.copy()
    changed_per_call: list[int] = []

    def f(argument: np.ndarray) -> float:
        seen = x if closure else np.asarray(argument, dtype=np.float64)
        changed_per_call.append(
            int((seen != original).sum()) if seen.shape == original.shape else -1
        )
        return float(np.sum(weights * np.sin(seen) + seen**3 / 3))

    grad = fn(f, x) if eps is None else fn(f, x, eps=eps)
    return {"grad": grad, "x_after": x, "changed_per_call": changed_per_call}
