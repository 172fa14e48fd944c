"""What the checks of `causal_attention`, `multi_head_attention`, `layer_norm`, `layer_norm_backward`, `gpt_params` share.

References are plain loops over batch, head and position (multi-head attention also through
torch.nn.functional.scaled_dot_product_attention with is_causal=True), layer_norm_backward is
judged against central finite differences in float64 (and its closed form where they cannot
go), and gpt_params against the contract's model built from torch's modules on the meta device.
Diagnoses are the classic mistakes written out in NumPy.
"""

import math

import numpy as np

from autograder.judge.check import Check
from autograder.judge.expect import (
    expect_raises,
)
from autograder.sandbox.guest.protocol import Call, Outcome

# float64 answers agree to ~1e-13 here; float32 inside is off by ~5e-7 of the answer's size,
# which passes: `matches` widens this to autograder.judge.expect.FLOAT32_RTOL unless strict
RTOL, ATOL = 1e-9, 1e-9


def _rejects(args: tuple, kwargs: dict, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(args, kwargs)], judge)


def reference_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One query at a time: scores q_t . k_j / sqrt(d) for j <= t, stable softmax in Python floats."""
    B, T, d = q.shape
    weights = np.zeros((B, T, T))
    for b in range(B):
        for t in range(T):
            scores = [float(q[b, t] @ k[b, j]) / math.sqrt(d) for j in range(t + 1)]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = math.fsum(exps)
            weights[b, t, : t + 1] = [e / total for e in exps]
    return weights @ v, weights


def score_size(q: np.ndarray, k: np.ndarray) -> float:
    """The largest |q_t . k_j| / sqrt(d) of a batch of heads (..., T, d)."""
    return float(np.abs(q @ np.swapaxes(k, -1, -2)).max(initial=0)) / math.sqrt(q.shape[-1])


def _softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = scores - scores.max(axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=axis, keepdims=True)


def reference_layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, ddof: int = 0
) -> np.ndarray:
    """Row by row: (x - mean) / sqrt(var + eps) * gamma + beta, var = mean((x - mean)^2) (ddof 0)."""
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty_like(rows, dtype=np.float64)
    C = rows.shape[1]
    for i, row in enumerate(rows):
        mean = math.fsum(row) / C
        var = math.fsum((value - mean) ** 2 for value in row) / (C - ddof)
        out[i] = [(value - mean) / math.sqrt(var + eps) for value in row]
    return (out * gamma + beta).reshape(x.shape)


def different_scales(rng: np.random.Generator, C: int) -> np.ndarray:
    """Rows (positions) of very different means and spreads, one of them in a 3-d batch."""
    x = rng.normal(size=(2, 3, C))
    x[0, 1] = 1e6 + rng.normal(size=C)  # cancels in mean(x^2) - mean^2
    x[0, 2] = -3e4 + 1e-2 * rng.normal(size=C)
    x[1, 0] *= 1e4
    x[1, 2] *= 1e-2
    return x
