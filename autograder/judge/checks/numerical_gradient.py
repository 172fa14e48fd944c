"""Hidden checks for chapter 04's `numerical_gradient`: shapes 1-D to 3-D, a closure over x, a given eps, exact restoration, one entry at a time.

The reference is the exact central-difference formula; failures are diagnosed from the shape of
the error.
"""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    value_of,
)
from autograder.sandbox.guest import gradient_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="numerical_gradient",
    chapter="04_gradients",
    points=2,
    kind="derive",
    library=("gradcheck:finite_differences",),
    probe_only=True,
    given_in_text=("x[index]",),
)


def _f(x: np.ndarray, weights: np.ndarray) -> float:
    return float(np.sum(weights * np.sin(x) + x**3 / 3))


def _differences(x: np.ndarray, weights: np.ndarray, eps: float, quotient) -> np.ndarray:
    """quotient(f(x - eps), f(x), f(x + eps)) with one entry of x moved at a time."""
    grad = np.zeros_like(x)
    base = _f(x, weights)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = quotient(_f(minus, weights), base, _f(plus, weights))
    return grad


def _central(x: np.ndarray, weights: np.ndarray, eps: float) -> np.ndarray:
    """Exactly what one-entry-at-a-time central differences compute."""
    return _differences(x, weights, eps, lambda minus, base, plus: (plus - minus) / (2 * eps))


def _second(x: np.ndarray, weights: np.ndarray, eps: float) -> np.ndarray:
    """The second differences: a derivation that cancelled f' instead of f''."""
    return _differences(
        x, weights, eps, lambda minus, base, plus: (plus - 2 * base + minus) / eps**2
    )


def _forward(x: np.ndarray, weights: np.ndarray, eps: float) -> np.ndarray:
    """The forward differences: an error that shrinks like eps."""
    return _differences(x, weights, eps, lambda minus, base, plus: (plus - base) / eps)


def _judge_numerical(
    x: np.ndarray,
    weights: np.ndarray,
    closure: bool,
    eps: float | None,
    what: str,
    transposed: bool = False,
    returns: str = "float",
) -> Check:
    step = 1e-5 if eps is None else eps
    expected = _central(x, weights, step)
    exact = weights * np.cos(x) + x**2
    diagnoses = [
        (
            "that is a forward difference: its error shrinks like eps, and the contract's "
            "quotient's like eps**2 (which terms of the two expansions must cancel?)",
            _forward(x, weights, step),
        ),
        (
            "that is the second derivative: the f' terms of the two expansions cancelled, not "
            "the f'' ones",
            _second(x, weights, step),
        ),
        ("twice the derivative: how far apart are the two points you evaluate?", 2 * expected),
        ("half the derivative: how far apart are the two points you evaluate?", expected / 2),
    ]
    if eps is not None:
        diagnoses.append(
            (
                "the result is nearer the true derivative than the contract's quotient can be "
                "at this eps: was the eps argument ignored, or does this quotient use more points "
                "than the contract's two?",
                _central(x, weights, 1e-5),
            )
        )
    if closure:
        diagnoses.append(
            (
                "f reads x itself here and saw no change: the perturbation went to a copy of x",
                np.zeros_like(x),
            )
        )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        report = value_of(outcome)
        if not isinstance(report, dict) or "grad" not in report:
            raise CheckFailed("the gradient could not be read")
        grad = report["grad"]
        if isinstance(grad, list):
            raise CheckFailed("returned a list; expected a NumPy array of x's shape")
        grad = as_array(grad, x.shape, kinds="f")
        if report.get("x_is_grad"):
            raise CheckFailed("the gradient shares memory with x: it is x, or a view of it")
        if report.get("returned_modified"):
            raise CheckFailed(
                f"{report['returned_modified']} of the 0-d arrays f returned were modified "
                "afterwards: an in-place operation changed an array f returned (f's answers are "
                "not yours to change)"
            )
        after = report["x_after"]
        if not (isinstance(after, np.ndarray) and np.array_equal(after, x)):
            raise CheckFailed(
                "x was not restored exactly: adding and subtracting eps leaves rounding errors"
            )
        changed = report["changed_per_call"]
        if closure and changed and max(changed) == 0:
            raise CheckFailed(
                "f reads x itself here and never saw it change: the perturbation went to a copy "
                "(a reshape or ravel of a transposed x is a copy, not a view)"
                if transposed
                else "f reads x itself here and never saw it change: the perturbation never reached x"
            )
        if any(count > 1 for count in changed):
            raise CheckFailed(
                f"f saw {max(changed)} entries changed at once: a partial derivative moves one entry"
            )
        near = np.allclose(grad, expected, rtol=0.0, atol=0.3)  # off as float32 would be
        expect_close(
            grad,
            expected,
            rtol=1e-6,
            atol=1e-8,
            diagnoses=diagnoses,
            note=" (the contract is float64: float32's rounding of f, ~1e-7, divided by a step "
            "of ~1e-5, is an error of ~1e-2)"
            if near
            else "",
            strict=True,  # finite differences need float64: the contract says so
        )
        if not np.allclose(grad, exact, rtol=1e-4, atol=1e-6) and eps is None:
            raise CheckFailed("the gradient is far from the true derivative")

    call = Call(
        (x, weights, closure, eps, transposed, returns),
        probe=gradient_probes.numerical_gradient_probe,
    )
    return Check(what, [call], judge)


def numerical_gradient_checks(rng: np.random.Generator) -> list[Check]:
    """Shapes 1-D to 3-D, a closure over x, a given eps, exact restoration, one entry at a time."""
    checks = []
    for shape, closure, eps in [
        ((4,), False, None),
        ((3, 5), False, None),
        ((2, 3, 2), False, None),
        ((6,), True, None),
        ((3, 3), True, None),
        ((5,), False, 1e-3),
        ((2, 4), True, 1e-2),
    ]:
        x = rng.uniform(-2, 2, size=shape) + rng.choice([0.1, 0.7, 1.3], size=shape)
        weights = rng.normal(size=shape)
        label = (
            f"x of shape {shape}"
            + (", f reads x from a closure" if closure else "")
            + (f", eps={eps}" if eps else "")
        )
        checks.append(_judge_numerical(x, weights, closure, eps, label))
    for shape, closure, transposed, returns, label in [
        ((), False, False, "float", "a 0-d x"),
        ((), True, False, "float", "a 0-d x, f reads x from a closure"),
        ((1,), True, False, "float", "x of shape (1,), f reads x from a closure"),
        ((3, 4), True, True, "float", "a transposed x (Fortran order), f reads x from a closure"),
        ((2, 3), False, True, "float", "a transposed x (Fortran order)"),
        ((4,), False, False, "numpy", "f returns a NumPy float64"),
        ((2, 3), True, False, "array", "f returns 0-d arrays (its own, not yours to modify)"),
    ]:
        x = np.array(rng.uniform(-2, 2, size=shape) + 0.3)
        weights = np.array(rng.normal(size=shape))
        checks.append(_judge_numerical(x, weights, closure, None, label, transposed, returns))
    return checks
