"""Hidden checks for chapter 04's challenge: nplm_direct_grads (the MLP LM with direct connections W3).

The reference is PyTorch autograd in float64; the diagnoses read the shape of the error
(a factor B, the direct path missing from dE, the direct term missing from the logits).
"""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
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
    name="nplm_direct_grads",
    chapter="04_gradients",
    points=3,
    kind="derive",
    extra=True,
)

NAMES = ("E", "W1", "b1", "W2", "b2", "W3")


def reference_direct_grads(
    P: dict, X: np.ndarray, Y: np.ndarray, direct_in_logits: bool = True
) -> dict[str, np.ndarray]:
    """Gradients of the mean cross-entropy of logits h W2 + b2 + x W3, by autograd in float64."""
    t = {name: torch.tensor(P[name], requires_grad=True) for name in NAMES}
    x = t["E"][torch.tensor(X, dtype=torch.int64)].flatten(1)
    logits = torch.tanh(x @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"]
    if direct_in_logits:
        logits = logits + x @ t["W3"]
    torch.nn.functional.cross_entropy(logits, torch.tensor(Y, dtype=torch.int64)).backward()
    return {name: t[name].grad.numpy().copy() for name in NAMES if t[name].grad is not None}


def _direct_logits(P: dict, X: np.ndarray) -> np.ndarray:
    """The model's logits h W2 + b2 + x W3 for contexts X: (B, V)."""
    x = P["E"][X].reshape(len(X), -1)
    return np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"] + x @ P["W3"]


def _hidden_path_only_de(P: dict, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """dE when only the path through the hidden layer reaches the embeddings."""
    t = {name: torch.tensor(P[name]) for name in NAMES}
    E = t["E"].clone().requires_grad_(True)
    x = E[torch.tensor(X, dtype=torch.int64)].flatten(1)
    logits = torch.tanh(x @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"] + x.detach() @ t["W3"]
    torch.nn.functional.cross_entropy(logits, torch.tensor(Y, dtype=torch.int64)).backward()
    return E.grad.numpy().copy()


def random_direct_params(
    rng: np.random.Generator, V: int, d: int, c: int, dh: int, scale: float = 1.0
) -> dict[str, np.ndarray]:
    """Random float64 parameters of the MLP LM with direct connections (context c = n - 1)."""
    return {
        "E": rng.normal(0, scale, (V, d)),
        "W1": rng.normal(0, 1 / np.sqrt(c * d), (c * d, dh)),
        "b1": rng.normal(0, 0.5, dh),
        "W2": rng.normal(0, 3 / np.sqrt(dh), (dh, V)),
        "b2": rng.normal(0, 0.5, V),
        "W3": rng.normal(0, 2 / np.sqrt(c * d), (c * d, V)),
    }


def _judge(P: dict, X: np.ndarray, Y: np.ndarray, what: str) -> Check:
    ref = reference_direct_grads(P, X, Y)
    no_direct = reference_direct_grads(P, X, Y, direct_in_logits=False)
    hidden_only_dE = _hidden_path_only_de(P, X, Y)
    # float32 inside passes: its rounding at the logits (more for large logits) reaches every
    # gradient behind them, so the tolerance is relative to the largest gradient of all
    x = P["E"][X].reshape(len(Y), -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"] + x @ P["W3"]
    rtol = float32_rtol(float(np.abs(logits).max(initial=0)))
    atol = rtol * max(float(np.abs(g).max(initial=0)) for g in ref.values())

    def _close(a: np.ndarray, b: np.ndarray) -> bool:
        return matches(a, b, rtol, atol)

    B = len(Y)
    # where every hidden-layer gradient is within tolerance of the model without W3 (saturated
    # softmax rows, say), leaving out the direct term is no diagnosis: the reference matches it too
    direct_shows = not all(_close(ref[n], no_direct[n]) for n in ("W1", "b1", "W2", "b2"))

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        grads = dict_answer(outcome, NAMES)
        arrays = {name: as_array(grads[name], ref[name].shape, kinds="f") for name in NAMES}
        if not all(np.isfinite(a).all() for a in arrays.values()):
            raise CheckFailed(
                "a gradient contains nan or inf: the softmax is not numerically stable"
            )
        if direct_shows and all(_close(arrays[n], no_direct[n]) for n in ("W1", "b1", "W2", "b2")):
            raise CheckFailed(
                "the gradients are those of a model without direct connections: the softmax "
                "never saw the direct term of the logits"
            )
        for name in ("b2", "W2", "W3", "b1", "W1", "E"):  # backward order: the first wrong one
            got, expected = arrays[name], ref[name]
            if _close(got, expected):
                continue
            if _close(got, expected * B):
                raise CheckFailed(
                    f"d{name} is exactly B times too large: the loss is a mean over the batch"
                )
            if name == "E" and _close(got, hidden_only_dE):
                raise CheckFailed(
                    "dE misses the direct path: the embeddings reach the logits twice, through "
                    "the hidden layer and through W3, and the two contributions add up"
                )
            if name == "W3" and _close(arrays["b2"], ref["b2"]):
                raise CheckFailed(
                    "db2 is right, so the gradient at the logits is too: the error is in how it "
                    "reaches W3 (which input does W3 multiply?)"
                )
            if name == "E":
                counts = np.bincount(X.ravel(), minlength=P["E"].shape[0])
                wrong_rows = ~close_entries(got, expected, rtol, atol).all(axis=1)
                if wrong_rows.any() and (counts[wrong_rows] > 1).all():
                    raise CheckFailed(
                        "only rows of tokens that occur more than once are wrong: repeated "
                        "indices in one assignment keep only one of their updates"
                    )
            error = np.abs(got - expected)
            where = tuple(int(i) for i in np.unravel_index(error.argmax(), error.shape))
            raise CheckFailed(
                f"d{name} is wrong (largest error at {where}: got {got[where]:.6g}, "
                f"expected {expected[where]:.6g})"
            )
        expect_unchanged(outcome, (P, X, Y))

    return Check(what, [Call((P, X, Y))], judge)


def nplm_direct_grads_checks(rng: np.random.Generator) -> list[Check]:
    """Random configurations, repeated tokens, B = 1, huge logits (shared by every row, and rows of
    very different scale), int32 ids."""
    checks = []
    for V, d, c, dh, B, repeat in [
        (5, 2, 2, 3, 4, False),
        (7, 3, 3, 5, 6, True),
        (27, 6, 3, 12, 24, False),
        (6, 2, 4, 5, 1, False),
        (4, 3, 5, 6, 10, True),
    ]:
        P = random_direct_params(rng, V, d, c, dh)
        if repeat:  # one token fills most context positions
            X = np.where(rng.random((B, c)) < 0.75, 1, rng.integers(0, V, (B, c)))
        else:
            X = np.stack([rng.choice(V, size=c, replace=c > V) for _ in range(B)])
        Y = rng.integers(0, V, B)
        label = f"V={V}, d={d}, context {c}, dh={dh}, batch {B}" + (
            ", one token repeated" if repeat else ""
        )
        checks.append(_judge(P, X, Y, label))
    P = random_direct_params(rng, 6, 3, 2, 5)
    P["b2"] = rng.permutation([-900.0, 900.0] * 3)
    X = np.stack([rng.choice(6, size=2, replace=False) for _ in range(8)])
    checks.append(_judge(P, X, rng.integers(0, 6, 8), "logits near +-1000"))
    # rows of very different scale: one token's embedding grown until the rows that hold it have
    # their largest logit (through W3) over 1000 away from the others' (exp(-745) is 0 in float64),
    # whatever the draw
    P = random_direct_params(rng, 6, 3, 2, 5)
    X = np.stack([rng.choice(6, size=2, replace=False) for _ in range(10)])
    X[::2, 0] = 1  # every other row holds the loud token
    X[1::2] = np.where(X[1::2] == 1, 2, X[1::2])
    while np.ptp(_direct_logits(P, X).max(axis=1)) < 1000.0:
        P["E"][1] *= 2.0
    checks.append(_judge(P, X, rng.integers(0, 6, 10), "rows of very different scale"))
    P = random_direct_params(rng, 5, 2, 3, 4)
    X, Y = rng.integers(0, 5, (7, 3)).astype(np.int32), rng.integers(0, 5, 7).astype(np.int32)
    checks.append(_judge(P, X, Y, "int32 ids in X and Y"))
    # 2 x 10^5 parameters: out of reach of finite differences within the time an exercise may run
    P = random_direct_params(rng, 1500, 16, 4, 48)
    X, Y = rng.integers(0, 1500, (128, 4)), rng.integers(0, 1500, 128)
    checks.append(_judge(P, X, Y, "a word-sized model: V=1500, d=16, context 4, dh=48, batch 128"))
    return checks
