"""Hidden checks for chapter 04: numerical_gradient, linear_loss_and_grad, nplm_grads.

References come from PyTorch autograd in float64 (and, for numerical_gradient, from the exact
central-difference formula); failures are diagnosed from the shape of the error.
"""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.mlp_lm import random_params
from autograder.judge.expect import (
    as_array,
    as_number,
    close_entries,
    expect_close,
    expect_unchanged,
    float32_rtol,
    labelled,
    matches,
    tuple_answer,
    value_of,
)
from autograder.sandbox.guest.calls import Call, Outcome

# ---------------------------------------------------------------- numerical_gradient


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
                "at this eps: was the eps argument ignored, or is this a higher-order quotient "
                "(more points) instead of the contract's two-point one?",
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
                else "f reads x itself here and never saw it change: perturb x in place"
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
        probe="autograder.sandbox.guest.gradient_probes:numerical_gradient_probe",
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
        ((2, 3), True, False, "array", "f returns 0-d arrays (its own: leave them unmodified)"),
    ]:
        x = np.array(rng.uniform(-2, 2, size=shape) + 0.3)
        weights = np.array(rng.normal(size=shape))
        checks.append(_judge_numerical(x, weights, closure, None, label, transposed, returns))
    return checks


# ---------------------------------------------------------------- linear_loss_and_grad


def torch_linear(weights, bias, inputs, targets) -> tuple[float, np.ndarray, np.ndarray]:
    """Loss and gradients of mean softmax cross-entropy of inputs @ weights + bias, by autograd."""
    W = torch.tensor(np.asarray(weights, dtype=np.float64), requires_grad=True)
    b = torch.tensor(np.asarray(bias, dtype=np.float64), requires_grad=True)
    loss = torch.nn.functional.cross_entropy(
        torch.tensor(np.asarray(inputs, dtype=np.float64)) @ W + b,
        torch.tensor(targets, dtype=torch.int64),
    )
    loss.backward()
    return loss.item(), W.grad.numpy(), b.grad.numpy()


def _judge_linear(weights, bias, inputs, targets, what: str) -> Check:
    loss, dW, db = torch_linear(weights, bias, inputs, targets)
    B = len(targets)
    probs = torch.softmax(torch.tensor(inputs @ weights + bias, dtype=torch.float64), dim=1).numpy()
    probs[:, targets] -= 1.0  # the block-indexing slip
    block = {"dW": inputs.T @ probs / B, "db": probs.sum(axis=0) / B}
    size = float(
        np.abs(inputs @ weights + bias).max(initial=0)
    )  # see autograder.judge.expect.tolerance

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_loss, got_dW, got_db = tuple_answer(outcome, ["loss", "dW", "db"])
        with labelled("loss"):
            expect_close(
                as_number(got_loss),
                loss,
                rtol=1e-8,
                atol=1e-10,
                diagnoses=[("the loss is the sum over the batch; return the mean", loss * B)],
                inputs=size,
            )
        if isinstance(got_db, np.ndarray) and got_db.shape == (B, len(bias)) and B > 1:
            raise CheckFailed(
                f"db has shape {got_db.shape}, not the bias's {bias.shape}: one bias serves every row of the batch"
            )
        if isinstance(got_dW, np.ndarray) and got_dW.shape == dW.T.shape != dW.shape:
            raise CheckFailed(
                f"dW has shape {got_dW.shape}; it must have the weights' shape {dW.shape}"
            )
        got_dW = as_array(got_dW, dW.shape, kinds="f")
        got_db = as_array(got_db, db.shape, kinds="f")
        common = [
            ("exactly B times too large: the loss is a mean over the batch", B),
            ("the wrong sign: that is the gradient of the log-likelihood, not of the loss", -1),
        ]
        for name, got, ref in [("dW", got_dW, dW), ("db", got_db, db)]:
            with labelled(name):
                expect_close(
                    got,
                    ref,
                    rtol=1e-7,
                    atol=1e-10,
                    diagnoses=[(hint, ref * factor) for hint, factor in common]
                    + [
                        (
                            "the target term lands on a (B, B) block: dz[:, targets] is every "
                            "row's entries at every target, not one entry per row",
                            block[name],
                        )
                    ],
                    inputs=size,
                )
        expect_unchanged(outcome, (weights, bias, inputs, targets))

    return Check(what, [Call((weights, bias, inputs, targets))], judge)


def linear_loss_and_grad_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes, B = 1 and B > 1, repeated targets, large logits, against autograd."""
    checks = [
        _judge_linear(
            np.zeros((2, 3)),
            np.zeros(3),
            np.array([[1.0, 2.0], [3.0, -1.0]]),
            np.array([0, 2]),
            "the visible example: zero weights, batch 2",
        ),
    ]
    for D, V, B in [(3, 4, 1), (5, 3, 8), (7, 10, 16), (2, 5, 3)]:
        checks.append(
            _judge_linear(
                rng.normal(size=(D, V)),
                rng.normal(size=V),
                rng.normal(size=(B, D)),
                rng.integers(0, V, B),
                f"random D={D}, V={V}, batch {B}",
            )
        )
    checks.append(
        _judge_linear(
            rng.normal(size=(4, 6)),
            rng.normal(size=6),
            rng.normal(size=(12, 4)),
            np.full(12, 5),
            "every target the same",
        )
    )
    checks.append(
        _judge_linear(
            rng.normal(0, 100, size=(3, 5)),
            rng.normal(size=5),
            rng.normal(0, 5, size=(6, 3)),
            rng.integers(0, 5, 6),
            "logits in the thousands",
        )
    )
    checks.append(
        _judge_linear(
            np.array([[1000.0, 0.0, -1000.0]]),
            np.zeros(3),
            np.array([[1.0], [-1.0]]),
            np.array([2, 0]),
            "logits of +-1000 whose targets get probability about exp(-2000)",
        )
    )
    checks.append(
        _judge_linear(
            rng.normal(size=(3, 4)),
            rng.normal(size=4),
            rng.normal(size=(5, 3)),
            rng.integers(0, 4, 5).astype(np.int32),
            "int32 targets",
        )
    )
    scale = rng.permutation([0.0, 1.0, 300.0, 300.0, 0.0, 1.0])[:, None]  # (B, 1)
    checks += [
        _judge_linear(
            rng.normal(0, 3, size=(4, 5)),
            rng.normal(size=5),
            rng.normal(size=(6, 4)) * scale,
            rng.integers(0, 5, 6),
            "rows of logits on very different scales (near 0 and near +-1000)",
        ),
        _judge_linear(
            rng.normal(size=(3, 4)),
            rng.normal(size=4),
            np.eye(3, dtype=np.int64)[rng.integers(0, 3, 5)],
            rng.integers(0, 4, 5),
            "integer (one-hot) inputs",
        ),
        _judge_linear(
            rng.normal(size=(3, 1)),
            rng.normal(size=1),
            rng.normal(size=(4, 3)),
            np.zeros(4, dtype=np.int64),
            "V = 1: loss and gradients are 0",
        ),
    ]
    checks += [
        with_layout(
            _judge_linear(
                rng.normal(size=(4, 3)),
                rng.normal(size=3),
                rng.normal(size=(5, 4)),
                rng.integers(0, 3, 5),
                "random D=4, V=3, batch 5",
            ),
            layout,
        )
        for layout in ("transposed", "strided")
    ]
    return checks


# ---------------------------------------------------------------- nplm_grads

NAMES = ("E", "W1", "b1", "W2", "b2")


def torch_grads(P: dict, X: np.ndarray, Y: np.ndarray) -> dict[str, np.ndarray]:
    """Gradients of the mean cross-entropy of the NPLM (no W3) by PyTorch autograd in float64."""
    t = {
        name: torch.tensor(np.asarray(P[name], dtype=np.float64), requires_grad=True)
        for name in NAMES
    }
    x = t["E"][torch.tensor(X, dtype=torch.int64)].flatten(1)
    logits = torch.tanh(x @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"]
    torch.nn.functional.cross_entropy(logits, torch.tensor(Y, dtype=torch.int64)).backward()
    return {name: t[name].grad.numpy() for name in NAMES}


def _diagnose(
    name: str,
    got: np.ndarray,
    ref: np.ndarray,
    P: dict,
    X: np.ndarray,
    Y: np.ndarray,
    right: dict[str, bool],
) -> str:
    """Why one parameter's gradient is wrong, read off the shape of the error."""
    B = len(Y)
    if matches(got, ref * B, 1e-6, 1e-12):
        return "exactly B times too large: the loss is a mean over the batch"
    if matches(got, -ref, 1e-6, 1e-12):
        return "the wrong sign"
    if name == "E":
        counts = np.bincount(X.ravel(), minlength=P["E"].shape[0])
        wrong_rows = ~close_entries(got, ref, 1e-6, 1e-10).all(axis=1)
        if (
            wrong_rows.any()
            and (counts[wrong_rows] > 1).all()
            and close_entries(got, ref, 1e-5, 1e-8)[counts == 1].all()
        ):
            return (
                "only rows of tokens that occur more than once are wrong: repeated indices in "
                "one assignment keep only one of their updates"
            )
        c, d = X.shape[1], P["E"].shape[1]
        reversed_blocks = np.zeros_like(ref)
        dx = _dx(P, X, Y)  # (B, c*d)
        np.add.at(reversed_blocks, X[:, ::-1].ravel(), dx.reshape(-1, d))
        if c > 1 and matches(got, reversed_blocks, 1e-6, 1e-12):
            return "the embedding blocks are in the wrong order: which block of the concatenation belongs to which position of X?"
        if right["W1"] and right["b1"]:
            return (
                "W1 and b1 are right, so the gradient at the concatenated embeddings is too: the "
                "error is in how its n - 1 blocks of d reach the rows of dE (oldest first)"
            )
    if name == "b2":
        return (
            "db2 is wrong, so the gradient at the logits is: check the softmax, that the one-hot "
            "part touches only the target of each row, and the 1/B of the mean"
        )
    if name == "W2" and right["b2"]:
        return "db2 is right, so the gradient at the logits is too: the error is in how it meets the tanh activations (check the shapes)"
    if name == "W1" and right["b1"]:
        return "db1 is right, so the gradient before tanh is too: the error is in how it meets the concatenated embeddings (check the shapes)"
    if name in ("W1", "b1", "E") and right["W2"] and right["b2"]:
        return "W2 and b2 are right, so the error is in the backward pass through tanh: its derivative, written with h"
    return ""


def _dx(P: dict, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """d loss / d x, the concatenated embeddings, by autograd."""
    t = {name: torch.tensor(np.asarray(P[name], dtype=np.float64)) for name in NAMES}
    x = t["E"][torch.tensor(X, dtype=torch.int64)].flatten(1).clone().requires_grad_(True)
    logits = torch.tanh(x @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"]
    torch.nn.functional.cross_entropy(logits, torch.tensor(Y, dtype=torch.int64)).backward()
    return x.grad.numpy()


def _judge_grads(P: dict, X: np.ndarray, Y: np.ndarray, what: str) -> Check:
    ref = torch_grads(P, X, Y)
    B = len(Y)
    hidden = np.tanh(P["E"][X].reshape(B, -1) @ P["W1"] + P["b1"])
    logits_scale = float(np.abs(hidden @ P["W2"] + P["b2"]).max())

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        grads = value_of(outcome)
        if not isinstance(grads, dict):
            raise CheckFailed(
                f"returned {type(grads).__name__}; expected a dict with keys {', '.join(NAMES)}"
            )
        missing = [name for name in NAMES if name not in grads]
        if missing:
            raise CheckFailed(f"the dict lacks {', '.join(missing)}")
        for name in ("b1", "b2"):
            got = grads[name]
            if isinstance(got, np.ndarray) and got.ndim == 2 and got.shape[0] == B and B > 1:
                raise CheckFailed(
                    f"{name} has shape {got.shape}: one bias serves every row of the batch"
                )
        arrays = {name: as_array(grads[name], ref[name].shape, kinds="f") for name in NAMES}
        for name in ("b2", "W2", "b1", "W1", "E"):
            if not np.isfinite(arrays[name]).all():
                raise CheckFailed(
                    f"d{name} contains nan or inf for logits up to {logits_scale:.0f}: exp "
                    "overflows: the softmax is not numerically stable"
                )
        # float32 inside: its rounding error at the logits (more for logits near 1000) reaches
        # every gradient behind them, even where a saturated tanh makes the true one tiny
        rtol = float32_rtol(logits_scale)
        atol = rtol * max(float(np.abs(ref[name]).max(initial=0)) for name in NAMES)
        right = {name: matches(arrays[name], ref[name], rtol, atol) for name in NAMES}
        for name in (
            "b2",
            "W2",
            "b1",
            "W1",
            "E",
        ):  # backward order: the first wrong one is the cause
            if right[name]:
                continue
            got, expected = arrays[name], ref[name]
            error = np.abs(got - expected)
            where = tuple(int(i) for i in np.unravel_index(error.argmax(), error.shape))
            cause = _diagnose(name, got, expected, P, X, Y, right)
            raise CheckFailed(
                f"d{name} is wrong"
                + (f": {cause}" if cause else "")
                + f" (largest error at {where}: got {got[where]:.6g}, expected {expected[where]:.6g})"
            )
        expect_unchanged(outcome, (P, X, Y))

    return Check(what, [Call((P, X, Y))], judge)


def nplm_grads_checks(rng: np.random.Generator) -> list[Check]:
    """Random configurations, tokens repeated across the context and the batch, B = 1, larger widths."""
    checks = []
    configs = [
        (5, 2, 2, 3, 4, "spread"),
        (7, 3, 3, 5, 6, "spread"),
        (6, 4, 3, 8, 10, "repeat"),
        (27, 10, 3, 16, 32, "random"),
        (9, 2, 4, 6, 1, "spread"),
        (4, 3, 5, 7, 12, "repeat"),
    ]
    for V, d, c, dh, B, kind in configs:
        P = random_params(rng, V, d, c, dh, direct=False)
        P["W2"] = P["W2"] * 3  # larger logits so that wrong scalings show
        if kind == "spread":
            X = np.stack([rng.choice(V, size=c, replace=c > V) for _ in range(B)])
        elif kind == "repeat":  # one token fills most of the context positions
            X = np.where(rng.random((B, c)) < 0.75, 1, rng.integers(0, V, (B, c)))
        else:
            X = rng.integers(0, V, (B, c))
        Y = rng.integers(0, V, B)
        label = f"V={V}, d={d}, context {c}, dh={dh}, batch {B}" + (
            ", one token repeated" if kind == "repeat" else ""
        )
        checks.append(_judge_grads(P, X, Y, label))
    P = random_params(rng, 6, 3, 2, 5, direct=False, scale=300.0)
    P["b2"] = rng.permutation([-800.0, 800.0] * 3)
    X = np.stack([rng.choice(6, size=2, replace=False) for _ in range(8)])
    checks.append(
        _judge_grads(P, X, rng.integers(0, 6, 8), "logits near +-1000 (naive softmax overflows)")
    )
    P = random_params(rng, 5, 2, 3, 4, direct=False)
    checks.append(
        _judge_grads(
            P,
            rng.integers(0, 5, (7, 3)).astype(np.int32),
            rng.integers(0, 5, 7).astype(np.int32),
            "int32 ids in X and Y",
        )
    )
    P = random_params(rng, 6, 3, 2, 5, direct=False)
    P["E"] = np.abs(P["E"]) * 10.0  # other tokens: every tanh saturates at +1 ...
    P["E"][0], P["b1"], P["W1"] = 0.0, np.zeros(5), np.abs(P["W1"])  # ... token 0: hidden 0
    P["W2"] = rng.uniform(0.8, 1.2, (5, 6)) * 200.0  # logits near 1000 beside b2 (near 0)
    X = np.stack([np.zeros(2, int), *rng.integers(1, 6, (3, 2)), np.zeros(2, int)])[
        rng.permutation(5)
    ]
    checks.append(
        _judge_grads(P, X, rng.integers(0, 6, 5), "rows of logits near 0 beside rows near +-1000")
    )
    P = random_params(rng, 5, 2, 3, 4, direct=False)
    checks += [
        with_layout(
            _judge_grads(
                P,
                rng.integers(0, 5, (6, 3)),
                rng.integers(0, 5, 6),
                "V=5, d=2, context 3, dh=4, batch 6",
            ),
            layout,
        )
        for layout in ("transposed", "strided")
    ]
    return checks
