"""Hidden checks for chapter 07's `causal_attention`: random shapes, T = 1, d_v != d, huge scores, order-sensitive keys, bad shapes."""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.attention_shared import (
    ATOL,
    RTOL,
    _rejects,
    _softmax,
    reference_attention,
    score_size,
)
from autograder.judge.checks.layouts import in_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_fresh,
    expect_unchanged,
    labelled,
    matches,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="causal_attention",
    chapter="07_attention",
    points=3,
    kind="debug",
)


def variant_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: float | None = None,
    allowed: np.ndarray | None = None,
    after: bool = False,
    axis: int = -1,
    fill: float = -np.inf,
) -> tuple[np.ndarray, np.ndarray]:
    """Attention with one thing changed: the scale, which (T, T) entries are allowed, masking
    after the softmax, the softmax axis or the fill value of masked scores."""
    T, d = q.shape[1], q.shape[2]
    scale = 1 / math.sqrt(d) if scale is None else scale
    allowed = np.tril(np.ones((T, T), dtype=bool)) if allowed is None else allowed
    scores = q @ k.transpose(0, 2, 1) * scale
    with np.errstate(all="ignore"):
        if after:
            weights = _softmax(scores, axis) * allowed
        else:
            weights = _softmax(np.where(allowed, scores, fill), axis)
    return weights @ v, weights


def attention_diagnoses(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> list[tuple[str, tuple]]:
    """(hint, (output, weights)) for the classic mistakes on these inputs."""
    T, d, dv = q.shape[1], q.shape[2], v.shape[2]
    ones = np.ones((T, T), dtype=bool)
    found = [
        (
            "the weights are too peaked: the scores are not scaled, and their spread grows with d",
            variant_attention(q, k, v, 1.0),
        ),
        (
            "the weights are too flat: the scores are scaled down too much as d grows (which scale keeps their variance near 1?)",
            variant_attention(q, k, v, 1 / d) if d > 1 else None,
        ),
        (
            "the rows do not sum to 1 over the past: the mask came after the softmax, so the "
            "future's share was dropped after it was given",
            variant_attention(q, k, v, after=True),
        ),
        (
            "the weights are normalised over the queries: each query's weights over the keys should sum to 1",
            variant_attention(q, k, v, axis=1),
        ),
        (
            "the mask is the wrong way round: position t sees the future and not the past",
            variant_attention(q, k, v, allowed=np.triu(ones)),
        ),
        (
            "the mask is off by one: position t also sees position t + 1",
            variant_attention(q, k, v, allowed=np.tril(ones, 1)),
        ),
        (
            "the diagonal was masked too: position t does not attend to itself",
            variant_attention(q, k, v, allowed=np.tril(ones, -1), fill=-1e9),
        ),
        (
            "no causal mask: position t sees later positions",
            variant_attention(q, k, v, allowed=ones),
        ),
        (
            "the scale follows the value dimension: which vectors' dot products are the scores?",
            variant_attention(q, k, v, 1 / math.sqrt(dv)) if dv != d else None,
        ),
    ]
    return [(hint, pair) for hint, pair in found if pair is not None]


def _weights_structure(weights: np.ndarray) -> str | None:
    """A hint for weights that give the future any weight or whose rows do not sum to 1."""
    bad = ~np.isfinite(weights)
    if bad.any():
        if bad[:, 0].any() and not bad[:, 1:].any():
            return (
                "row 0 is nan: the diagonal was masked too, and the first position has nothing "
                "left to attend to"
            )
        return (
            "got nan or inf: at large scores exp overflows, or underflows to 0 over the scores "
            "each row keeps: the softmax is not stable row by row"
        )
    T = weights.shape[-1]
    future = np.triu(np.ones((T, T), dtype=bool), 1) & (np.abs(weights) > 1e-12)
    if future.any():
        b, t, j = np.argwhere(future)[0].tolist()
        return (
            f"position {t} puts weight {weights[b, t, j]:.3g} on the later position {j}: the "
            "future is not masked out before the weights are normalised"
        )
    sums = weights.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-5):  # float32 rows sum to 1 within ~1e-7
        b, t = np.argwhere(~np.isclose(sums, 1.0, rtol=0, atol=1e-5))[0].tolist()
        return f"row {t} of the weights sums to {sums[b, t]:.6g}, not 1: softmax over the keys"
    return None


def _judge_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, what: str, layout: str | None = None
) -> Check:
    out, weights = reference_attention(q, k, v)
    B, T, dv = v.shape
    diagnoses = attention_diagnoses(q, k, v)
    size = score_size(q, k)  # float32 inside loses more at large scores: expect.tolerance

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_out, got_weights = tuple_answer(outcome, ["output", "weights"])
        with labelled("weights"):
            got_weights = as_array(got_weights, (B, T, T))
        with labelled("output"):
            got_out = as_array(got_out, (B, T, dv))
        for hint, (_, weights_known) in diagnoses:
            if matches(got_weights, weights_known, RTOL, ATOL, inputs=size) and not matches(
                got_weights, weights, RTOL, ATOL, inputs=size
            ):
                raise CheckFailed(hint)
        if not matches(got_weights, weights, RTOL, ATOL, inputs=size):
            structure = _weights_structure(got_weights)
            if structure:
                raise CheckFailed(f"weights: {structure}")
        with labelled("weights"):
            expect_close(got_weights, weights, RTOL, ATOL, inputs=size)
        with labelled("output"):
            expect_close(
                got_out,
                out,
                RTOL,
                ATOL,
                diagnoses=[("the weights are right, but they average the queries", weights @ q)]
                if q.shape == v.shape
                else [],
                note=" (the weights are right: the error is in what they average)",
                inputs=size,
            )
        expect_unchanged(outcome, (q, k, v))
        expect_fresh(outcome, ("q", "k", "v"))

    return in_layout(Check(what, [Call((q, k, v))], judge), layout)


def causal_attention_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes, T = 1, d_v != d, huge scores, order-sensitive keys, bad shapes."""
    checks = []
    for B, T, d, dv in [(1, 4, 3, 3), (2, 6, 4, 4), (3, 9, 8, 5), (2, 5, 1, 2), (1, 16, 16, 16)]:
        q, k, v = (rng.normal(0, 1.5, (B, T, n)) for n in (d, d, dv))
        checks.append(_judge_attention(q, k, v, f"B={B}, T={T}, d={d}, d_v={dv}"))
    q, k, v = (rng.normal(size=(2, 1, 4)) for _ in range(3))
    checks.append(_judge_attention(q, k, v, "T = 1: the only position attends to itself"))
    q, k, v = rng.normal(0, 40, (2, 5, 4)), rng.normal(0, 40, (2, 5, 4)), rng.normal(size=(2, 5, 3))
    checks.append(_judge_attention(q, k, v, "huge scores (in the thousands): a stable softmax"))
    q = np.zeros((1, 5, 2))
    checks.append(
        _judge_attention(q, rng.normal(size=(1, 5, 2)), rng.normal(size=(1, 5, 2)), "q = 0")
    )
    checks += large_score_attention_checks(rng)
    q, k, v = (rng.normal(size=(2, 5, n)) for n in (3, 3, 2))
    checks.append(_judge_attention(q, k, v, "non-contiguous inputs (strided views)", "strided"))
    checks += attention_shape_checks(rng)
    return checks


def large_score_attention_checks(rng: np.random.Generator) -> list[Check]:
    """Scores far apart: across the batch and positions, the future far above the past, and far
    below any finite fill value."""
    B, T, d = 3, 6, 4
    q, k, v = (rng.normal(size=(B, T, d)) for _ in range(3))
    q[1] *= 700.0  # batch 1 scores in the thousands beside batch 0's of order one
    q[2, ::2] *= 900.0  # within batch 2, every other position's scores too
    checks = [_judge_attention(q, k, v, "rows of very different scales")]
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    q = rng.normal(size=(2, T, d)) + 20.0 * u
    k = rng.normal(size=(2, T, d))
    k[:, T // 2 :] += 300.0 * u  # later keys score about 3000 above the earlier ones
    checks.append(
        _judge_attention(
            q,
            k,
            rng.normal(size=(2, T, 3)),
            "the future scores thousands above the past",
        )
    )
    # integer keys and a query of -1e10: every score an exact multiple of 5e9, down to -3e11, far
    # below a finite fill such as -1e9: the masked future must still get exactly 0. The key sums
    # differ within a sequence (10 * a permutation + at most 6), so each row has one clear winner
    k = rng.integers(0, 3, size=(2, 5, 4)).astype(np.float64)
    k[..., 0] = 10.0 * np.stack([rng.permutation(5) + 1 for _ in range(2)])
    q = np.full((2, 5, 4), -1e10)
    checks.append(
        _judge_attention(
            q,
            k,
            rng.normal(size=(2, 5, 2)),
            "scores of about -1e11: the future must be -inf, not a large finite number",
        )
    )
    return checks


def attention_shape_checks(rng: np.random.Generator) -> list[Check]:
    """Every argument of a wrong shape: fewer or more dimensions, a batch or T of 1 that would
    broadcast, another T, another width."""
    B, T, d = 2, 4, 3
    q, k, v = (rng.normal(size=(B, T, d)) for _ in range(3))
    qkv = "expected q, k of the same shape (B, T, d) and v of shape (B, T, d_v)"
    cases = [
        ((q[0], q[0], q[0]), "2-d inputs"),
        ((q[0], k, v), "a 2-d q beside 3-d k and v (it would broadcast)"),
        ((q, k[0], v), "a 2-d k (it would broadcast)"),
        ((q, k, v[0]), "a 2-d v (it would broadcast)"),
        ((q[None], k, v), "a 4-d q (it would broadcast)"),
        ((q, k[None], v), "a 4-d k (it would broadcast)"),
        ((q, k, v[None]), "a 4-d v (it would broadcast)"),
        ((q[:1], k, v), "q of batch 1 beside k and v of batch 2 (it would broadcast)"),
        ((q, k[:1], v), "k of batch 1 beside q and v of batch 2 (it would broadcast)"),
        ((q, k, v[:1]), "v with another batch size (it would broadcast)"),
        ((q, k[:, :1], v), "k with T = 1 beside q with T = 4 (it would broadcast)"),
        ((q, k[:, :3], v), "k with another T than q"),
        ((q[:, :3], k, v), "q with another T than k and v"),
        ((q, k, v[:, :3]), "v with another T"),
        ((q, k[..., :2], v), "k of a different width than q"),
    ]
    return [_rejects(args, {}, f"{what} raises ValueError", qkv) for args, what in cases]
