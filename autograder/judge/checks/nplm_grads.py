"""Hidden checks for chapter 04's `nplm_grads`: random configurations, tokens repeated across the context and the batch, B = 1, larger widths, a word-sized model.

The word-sized model has about 175,000 parameters and a batch of 128: a backward pass takes a
fraction of a second, finite differences (two forward passes per parameter) tens of minutes or
more, far beyond the check's time bound, so only a derived gradient passes it.

References come from PyTorch autograd in float64; failures are diagnosed from the shape of the
error.
"""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.nplm_loss import random_params
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    close_entries,
    dict_answer,
    expect_unchanged,
    float32_rtol,
    matches,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="nplm_grads",
    chapter="04_gradients",
    points=5,
    kind="derive",
    library=("nplm:nplm_loss_and_grads", "baselines:TorchContextMLP"),
)

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
        grads = dict_answer(outcome, NAMES)
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
    """Random configurations, tokens repeated across the context and the batch, B = 1, larger widths, a word-sized model."""
    checks = []
    configs = [
        (5, 2, 2, 3, 4, "spread"),
        (7, 3, 3, 5, 6, "spread"),
        (6, 4, 3, 8, 10, "repeat"),
        (27, 10, 3, 16, 32, "random"),
        (9, 2, 4, 6, 1, "spread"),
        (4, 3, 5, 7, 12, "repeat"),
        (1500, 16, 4, 96, 128, "random"),  # derived gradients only: see the module's docstring
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
