"""Hidden checks for chapter 07: causal_attention, multi_head_attention, layer_norm,
layer_norm_backward, gpt_params.

References are plain loops over batch, head and position (multi-head attention also through
torch.nn.functional.scaled_dot_product_attention with is_causal=True), layer_norm_backward is
judged against central finite differences in float64, and gpt_params against the parameters of
proof_lm.gpt.TinyGPT built here for random configurations. Diagnoses are the classic mistakes
written out in NumPy.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import in_layout
from autograder.judge.expect import (
    as_array,
    exact_count,
    expect_close,
    expect_fresh,
    expect_raises,
    expect_unchanged,
    labelled,
    matches,
    tuple_answer,
    value_of,
)
from autograder.sandbox.guest.calls import Call, Outcome
from proof_lm.gpt import TinyGPT

# float64 answers agree to ~1e-13 here; float32 inside is off by ~5e-7 of the answer's size,
# which passes: `matches` widens this to autograder.judge.expect.FLOAT32_RTOL unless strict
RTOL, ATOL = 1e-9, 1e-9


def _rejects(args: tuple, kwargs: dict, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(args, kwargs)], judge)


# ---------------------------------------------------------------- causal_attention


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
            "future's share was dropped instead of never being given",
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
            "got nan or inf: at large scores exp overflows (or every past entry underflows): "
            "the softmax is not stable row by row, over the scores each row keeps"
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
                diagnoses=[("return weights @ v, not weights @ q", weights @ q)]
                if q.shape == v.shape
                else [],
                note=" (the weights are right: the output is weights @ v)",
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
            "the future scores thousands above the past (take the maximum over j <= t only)",
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


# ---------------------------------------------------------------- multi_head_attention


def reference_mha(
    x: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray, n_heads: int
) -> np.ndarray:
    """Loop over heads: head h uses columns h*D:(h+1)*D of x @ W; heads side by side, then @ Wo."""
    C = x.shape[2]
    D = C // n_heads
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    heads = []
    for h in range(n_heads):
        cols = slice(h * D, (h + 1) * D)
        heads.append(reference_attention(q[..., cols], k[..., cols], v[..., cols])[0])
    return np.concatenate(heads, axis=-1) @ Wo


def torch_mha(
    x: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray, n_heads: int
) -> np.ndarray:
    """The same through torch.nn.functional.scaled_dot_product_attention(is_causal=True), float64."""
    t = [torch.tensor(a, dtype=torch.float64) for a in (x, Wq, Wk, Wv, Wo)]
    B, T, C = x.shape

    def split(a: torch.Tensor) -> torch.Tensor:
        return a.view(B, T, n_heads, C // n_heads).transpose(1, 2)

    q, k, v = (split(t[0] @ W) for W in t[1:4])
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    return (heads.transpose(1, 2).reshape(B, T, C) @ t[4]).numpy()


def variant_mha(
    x: np.ndarray,
    W: tuple,
    n_heads: int,
    split: str = "blocks",
    merge: str = "blocks",
    scale: str = "head",
    causal: bool = True,
    project: bool = True,
    transpose: bool = False,
) -> np.ndarray:
    """Multi-head attention with one thing changed (the classic mistakes)."""
    Wq, Wk, Wv, Wo = (w.T if transpose else w for w in W)
    B, T, C = x.shape
    H, D = n_heads, C // n_heads

    def heads_of(a: np.ndarray) -> np.ndarray:
        if split == "reshape":  # (B, T, C) read as (B, H, T, D) without a transpose
            return a.reshape(B, H, T, D)
        if split == "interleaved":  # head h gets columns h, h + H, h + 2H, ...
            return a.reshape(B, T, D, H).transpose(0, 3, 1, 2)
        return a.reshape(B, T, H, D).transpose(0, 2, 1, 3)

    q, k, v = heads_of(x @ Wq), heads_of(x @ Wk), heads_of(x @ Wv)  # (B, H, T, D)
    factor = {"head": 1 / math.sqrt(D), "width": 1 / math.sqrt(C), "none": 1.0}[scale]
    scores = q @ k.transpose(0, 1, 3, 2) * factor
    if causal:
        scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    out = _softmax(scores) @ v  # (B, H, T, D)
    if merge == "reshape":
        merged = out.reshape(B, T, C)
    elif merge == "interleaved":
        merged = out.transpose(0, 2, 3, 1).reshape(B, T, C)
    else:
        merged = out.transpose(0, 2, 1, 3).reshape(B, T, C)
    return merged @ Wo if project else merged


def _judge_mha(
    x: np.ndarray,
    W: tuple,
    n_heads: int,
    what: str,
    against_torch: bool = False,
    layout: str | None = None,
) -> Check:
    expected = torch_mha(x, *W, n_heads) if against_torch else reference_mha(x, *W, n_heads)
    H = n_heads
    B, T, C = x.shape

    def heads(a: np.ndarray) -> np.ndarray:
        return a.reshape(B, T, H, C // H).transpose(0, 2, 1, 3)

    size = score_size(heads(x @ W[0]), heads(x @ W[1]))  # float32 inside: expect.tolerance
    found = [
        (
            "positions and heads are mixed: the split to (B, H, T, D) does not keep each "
            "position's D columns of one head together (try your split on np.arange)",
            variant_mha(x, W, H, split="reshape", merge="reshape"),
        ),
        (
            "the heads are split right but merged in the wrong order: the merge must undo the "
            "split step by step, in reverse",
            variant_mha(x, W, H, merge="reshape"),
        ),
        (
            "the heads take every H-th column: which columns of x @ Wq belong to one head?",
            variant_mha(x, W, H, split="interleaved", merge="interleaved"),
        ),
        (
            "the heads are merged in the wrong order: the merged columns are interleaved across heads",
            variant_mha(x, W, H, merge="interleaved"),
        ),
        (
            "the weights are too flat, more so with more heads: the scale follows the model width, not what one head's scores are dot products of",
            variant_mha(x, W, H, scale="width"),
        ),
        (
            "the weights are too peaked: the scores are not scaled",
            variant_mha(x, W, H, scale="none"),
        ),
        (
            "no causal mask: position t sees later positions",
            variant_mha(x, W, H, causal=False),
        ),
        (
            "the output projection is missing: Wo is never used",
            variant_mha(x, W, H, project=False),
        ),
        (
            "the projections are transposed: the weights are (C_in, C_out)",
            variant_mha(x, W, H, transpose=True),
        ),
    ]
    if H > 1:
        found.append(
            (
                "that is one head of width C: n_heads was not used to split the width",
                variant_mha(x, W, 1),
            )
        )
    diagnoses = [
        (hint, candidate)
        for hint, candidate in found
        if not matches(candidate, expected, RTOL, ATOL, inputs=size)
    ]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = as_array(value_of(outcome), x.shape)
        if not np.isfinite(answer).all() and np.isfinite(expected).all():
            raise CheckFailed(
                "got nan or inf: at large scores exp overflows (or every past entry underflows): "
                "the softmax is not stable row by row, in every head, over the scores each row "
                "keeps"
            )
        expect_close(answer, expected, RTOL, ATOL, diagnoses=diagnoses, inputs=size)
        expect_unchanged(outcome, (x, *W, n_heads))
        expect_fresh(outcome, ("x", "Wq", "Wk", "Wv", "Wo"))

    return in_layout(Check(what, [Call((x, *W, n_heads))], judge), layout)


def random_mha_case(rng: np.random.Generator, B: int, T: int, C: int) -> tuple[np.ndarray, tuple]:
    """x (B, T, C) and four (C, C) weights scaled so that scores are of order one."""
    x = rng.normal(size=(B, T, C))
    W = tuple(rng.normal(0, 1.2 / math.sqrt(C), (C, C)) for _ in range(4))
    return x, W


def multi_head_attention_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes and head counts against a loop reference and torch's SDPA; T = 1; bad shapes."""
    checks = []
    for B, T, C, H in [(1, 5, 4, 2), (2, 7, 12, 3), (2, 6, 8, 1), (3, 4, 6, 6), (1, 9, 16, 4)]:
        x, W = random_mha_case(rng, B, T, C)
        checks.append(_judge_mha(x, W, H, f"B={B}, T={T}, C={C}, {H} heads (loop reference)"))
    for B, T, C, H in [(2, 8, 12, 4), (1, 6, 10, 2)]:
        x, W = random_mha_case(rng, B, T, C)
        checks.append(
            _judge_mha(
                x,
                W,
                H,
                f"B={B}, T={T}, C={C}, {H} heads (against scaled_dot_product_attention, is_causal=True)",
                against_torch=True,
            )
        )
    x, W = random_mha_case(rng, 2, 1, 6)
    checks.append(_judge_mha(x, W, 3, "T = 1"))
    x, W = random_mha_case(rng, 2, 5, 6)
    checks.append(_judge_mha(x, W, 3, "non-contiguous inputs (strided views)", layout="strided"))
    checks += large_score_mha_checks(rng)
    checks += mha_shape_checks(rng)
    return checks


def large_score_mha_checks(rng: np.random.Generator) -> list[Check]:
    """Scores in the thousands in one head beside order one in another, positions of different
    scales, and later keys that score far above the past."""
    B, T, C, H = 2, 6, 8, 2
    x, (Wq, Wk, Wv, Wo) = random_mha_case(rng, B, T, C)
    Wq = Wq.copy()
    Wq[:, C // H :] *= 600.0  # head 1's scores in the thousands, head 0's of order one
    x[:, 1::2] *= 3.0  # every other position on another scale
    x[1] *= 5.0  # and the second sequence on another again
    checks = [
        _judge_mha(
            x,
            (Wq, Wk, Wv, Wo),
            H,
            "head 1's scores in the thousands beside head 0's of order one (a shift per head "
            "and per row)",
        )
    ]
    x, (Wq, Wk, Wv, Wo) = random_mha_case(rng, B, T, C)
    x[:, T // 2 :] *= 40.0  # later positions: keys (and queries) far larger
    checks.append(
        _judge_mha(
            x,
            (Wq * 50.0, Wk, Wv, Wo),
            H,
            "later keys score thousands above the earlier ones (the maximum over j <= t only)",
        )
    )
    return checks


def mha_shape_checks(rng: np.random.Generator) -> list[Check]:
    """Wrong n_heads, x of the wrong dimensions, each weight of a wrong (maybe broadcastable) shape."""
    x, W = random_mha_case(rng, 1, 4, 6)
    weight = "each weight must be (C, C)"
    checks = [
        _rejects(
            (x, *W, 4),
            {},
            "C = 6 with 4 heads raises ValueError",
            "C must be a multiple of n_heads",
        ),
        _rejects((x, *W, 0), {}, "0 heads raises ValueError", "n_heads must be at least 1"),
        _rejects((x, *W, -1), {}, "-1 heads raises ValueError", "n_heads must be at least 1"),
        _rejects((x[0], *W, 2), {}, "a 2-d x raises ValueError", "expected x of shape (B, T, C)"),
        _rejects(
            (x[None], *W, 2), {}, "a 4-d x raises ValueError", "expected x of shape (B, T, C)"
        ),
    ]
    wider = rng.normal(size=(6, 8))
    for i, name in enumerate(("Wq", "Wk", "Wv", "Wo")):
        for bad, what in ((W[i][:, :4], "(6, 4)"), (wider, "(6, 8)"), (W[i][None], "(1, 6, 6)")):
            args = (x, *W[:i], bad, *W[i + 1 :], 2)
            checks.append(_rejects(args, {}, f"{name} of shape {what} raises ValueError", weight))
    return checks


# ---------------------------------------------------------------- layer_norm


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


def layer_norm_variants(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> list[tuple[str, np.ndarray | None]]:
    """(hint, output) for the classic layer-norm mistakes."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        naive_var = (x**2).mean(axis=-1, keepdims=True) - mean**2
        return [
            (
                "the spread is slightly off, more so for small C: is the variance divided by C or by C - 1?",
                reference_layer_norm(x, gamma, beta, eps, ddof=1) if x.shape[-1] > 1 else None,
            ),
            (
                "the output differs where the variance is tiny: where does eps enter the denominator?",
                (x - mean) / (np.sqrt(var) + eps) * gamma + beta,
            ),
            (
                "eps was left out: the output is what eps = 0 gives",
                (x - mean) / np.sqrt(var) * gamma + beta,
            ),
            (
                "normalised over the batch: layer norm normalises each position over its own features",
                (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) * gamma + beta
                if x.ndim > 1 and x.shape[0] > 1
                else None,
            ),
            (
                "the eps argument was ignored: the result is the same for every eps",
                reference_layer_norm(x, gamma, beta, 1e-5) if eps != 1e-5 else None,
            ),
            (
                "gamma and beta were ignored: the output is the normalised x alone",
                (x - mean) / np.sqrt(var + eps),
            ),
            (
                "gamma scales and beta shifts, not the other way round",
                (x - mean) / np.sqrt(var + eps) * beta + gamma,
            ),
            (
                "the variance loses every digit when the mean is large: a difference of two "
                "large, nearly equal numbers (catastrophic cancellation)",
                (x - mean) / np.sqrt(naive_var + eps) * gamma + beta,
            ),
        ]


def _judge_layer_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    eps: float | None,
    what: str,
    note: str = "",
    atol: float = 1e-8,
    layout: str | None = None,
) -> Check:
    e = 1e-5 if eps is None else eps
    expected = reference_layer_norm(x, gamma, beta, e)
    strict = bool(note)  # a row of mean 1e6 times its spread needs float64: float32 cannot hold it
    diagnoses = [
        (hint, candidate)
        for hint, candidate in layer_norm_variants(x, gamma, beta, e)
        if candidate is not None and not matches(candidate, expected, RTOL, atol, strict)
    ]
    call = Call((x, gamma, beta), {} if eps is None else {"eps": eps})

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = as_array(value_of(outcome), x.shape)
        if not np.isfinite(answer).all():
            raise CheckFailed(
                "got nan or inf: put eps inside the square root, and compute the variance as "
                "mean((x - mean)^2), which cannot go negative (mean(x^2) - mean^2 can)"
            )
        expect_close(answer, expected, RTOL, atol, diagnoses=diagnoses, note=note, strict=strict)
        expect_unchanged(outcome, (x, gamma, beta))
        expect_fresh(outcome, ("x", "gamma", "beta"))

    return in_layout(Check(what, [call], judge), layout)


def layer_norm_checks(rng: np.random.Generator) -> list[Check]:
    """1-d, 2-d and 3-d inputs, default and large eps, constant rows, a large mean, bad gamma."""
    checks = []
    for shape, eps in [
        ((6,), None),
        ((4, 5), None),
        ((2, 3, 8), 1e-5),
        ((3, 4, 2), 0.5),
        ((5, 7), 0.1),
        ((2, 2, 3, 4), None),
    ]:
        C = shape[-1]
        x = rng.normal(rng.normal(0, 2), rng.uniform(0.3, 3), shape)
        gamma, beta = rng.normal(1, 0.5, C), rng.normal(0, 0.5, C)
        checks.append(
            _judge_layer_norm(
                x, gamma, beta, eps, f"x of shape {shape}, eps {'default' if eps is None else eps}"
            )
        )
    x = np.repeat(rng.normal(size=(3, 1)), 4, axis=1)
    x[1] += rng.normal(size=4)
    checks.append(
        _judge_layer_norm(
            x, rng.normal(size=4), rng.normal(size=4), None, "constant rows (variance 0) give beta"
        )
    )
    x = rng.normal(rng.normal(0, 0.1), 0.01, (4, 6))  # eps a tenth of the variance
    checks.append(
        _judge_layer_norm(
            x,
            rng.normal(1, 0.5, 6),
            rng.normal(0, 0.5, 6),
            None,
            "a spread of 0.01 with the default eps (1e-5, a tenth of the variance)",
        )
    )
    x = 1e8 + rng.normal(size=(2, 6))
    checks.append(
        _judge_layer_norm(
            x,
            np.ones(6),
            np.zeros(6),
            1e-5,
            "a mean of 1e8 with unit spread",
            note=" (with a mean of 1e8, a variance taken as the difference of two large, nearly"
            " equal numbers loses every digit; float32 loses them too: its 7 digits cannot hold"
            " 1e8 + x)",
            # x itself holds only ~1.5e-8 of absolute precision at 1e8: correct ways of taking the
            # mean differ by that much after normalising; the cancellation bug is off by O(1)
            atol=1e-6,
        )
    )
    x = rng.normal(size=(2, 3, 4))
    checks.append(
        _judge_layer_norm(x, rng.normal(size=4), rng.normal(size=4), 1e-5, "C = 4, random affine")
    )
    checks.append(
        _judge_layer_norm(
            different_scales(rng, 6),
            rng.normal(1, 0.5, 6),
            rng.normal(size=6),
            1e-5,
            "rows of very different means and spreads (1e6 beside 0, spreads 1e-2 to 1e4)",
            note=" (a row of mean 1e6 or -3e4: compute the variance as mean((x - mean)^2), and "
            "in float64: float32's 7 digits cannot hold such a row)",
        )
    )
    x = rng.normal(size=(2, 3, 5))
    checks.append(
        _judge_layer_norm(
            x,
            rng.normal(size=5),
            rng.normal(size=5),
            1e-5,
            "non-contiguous inputs",
            layout="strided",
        )
    )
    return checks + layer_norm_shape_checks(rng)


def different_scales(rng: np.random.Generator, C: int) -> np.ndarray:
    """Rows (positions) of very different means and spreads, one of them in a 3-d batch."""
    x = rng.normal(size=(2, 3, C))
    x[0, 1] = 1e6 + rng.normal(size=C)  # cancels in mean(x^2) - mean^2
    x[0, 2] = -3e4 + 1e-2 * rng.normal(size=C)
    x[1, 0] *= 1e4
    x[1, 2] *= 1e-2
    return x


def layer_norm_shape_checks(rng: np.random.Generator) -> list[Check]:
    """gamma and beta each of a shape that would broadcast: (1,), (1, C), (C, 1), (), and (T,)."""
    x = rng.normal(size=(2, 3, 4))  # T = 3, C = 4
    hint = "gamma and beta must have shape (C,)"
    checks = []
    for index, name in enumerate(("gamma", "beta")):
        for bad in (np.ones(1), np.ones((1, 4)), np.ones((4, 1)), np.array(1.0), np.ones(3)):
            args = [x, np.ones(4), np.zeros(4)]
            args[1 + index] = bad
            checks.append(
                _rejects(
                    tuple(args),
                    {},
                    f"{name} of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
                    hint,
                )
            )
    return checks


# ---------------------------------------------------------------- layer_norm_backward


def finite_difference_layer_norm(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float, h: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Central differences in float64 of L = sum(dout * layer_norm(x, gamma, beta)) in x, gamma and beta."""
    beta = np.zeros_like(gamma)

    def loss(x_: np.ndarray, gamma_: np.ndarray, beta_: np.ndarray) -> float:
        return float(np.sum(dout * reference_layer_norm(x_, gamma_, beta_, eps)))

    def numeric(index: int) -> np.ndarray:
        args = [x.copy(), gamma.copy(), beta.copy()]
        target = args[index]
        grad = np.zeros_like(target)
        for i in np.ndindex(target.shape):
            saved = target[i]
            target[i] = saved + h
            up = loss(*args)
            target[i] = saved - h
            down = loss(*args)
            target[i] = saved
            grad[i] = (up - down) / (2 * h)
        return grad

    return numeric(0), numeric(1), numeric(2)


def layer_norm_backward_variants(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]], np.ndarray]:
    """(dx diagnoses, dgamma diagnoses, the right dx in closed form): the classic mistakes of the
    backward pass, written out."""
    C = x.shape[-1]
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) / std
    g = dout * gamma  # gradient at x_hat
    unbiased_std = np.sqrt(x.var(axis=-1, keepdims=True, ddof=1) + eps) if C > 1 else std
    xhat_unbiased = (x - mean) / unbiased_std
    dx = [
        (
            "mean and variance depend on x too: dx needs the paths through them as well as the "
            "direct one (see the chapter's hints)",
            g / std,
        ),
        (
            "the path through the variance is missing: each x also moves its row's variance",
            (g - g.mean(axis=-1, keepdims=True)) / std,
        ),
        (
            "the path through the mean is missing: each x also moves its row's mean",
            (g - xhat * (g * xhat).mean(axis=-1, keepdims=True)) / std,
        ),
        (
            "dx ignores gamma: the gradient reaching x_hat goes through the scale",
            (dout - dout.mean(-1, keepdims=True) - xhat * (dout * xhat).mean(-1, keepdims=True))
            / std,
        ),
        (
            "the eps argument was ignored: the result is the same for every eps",
            layer_norm_backward_variants(dout, x, gamma, 1e-5)[2] if eps != 1e-5 else None,
        ),
        (
            "the variance loses every digit when the mean is large: a difference of two large, "
            "nearly equal numbers (catastrophic cancellation)",
            naive_variance_backward(dout, x, gamma, eps),
        ),
        (
            "the backward uses another variance than the forward (biased or unbiased?)",
            (
                g
                - g.mean(axis=-1, keepdims=True)
                - xhat_unbiased * (g * xhat_unbiased).sum(axis=-1, keepdims=True) / (C - 1)
            )
            / unbiased_std,
        ),
    ]
    correct = (
        g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True)
    ) / std
    dgamma = [
        ("dgamma is sum(dout * x_hat), dbeta is sum(dout): swapped", dout.sum(axis=axes)),
        (
            "dgamma is sum(dout * x_hat) with x_hat normalised, not dout * x",
            (dout * x).sum(axis=axes),
        ),
        ("sum over the batch, do not average", (dout * xhat).mean(axis=axes)),
    ]
    return [(h, c) for h, c in dx if c is not None], dgamma, correct


def closed_form_layer_norm_backward(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dx, dgamma, dbeta in closed form, two-pass statistics in float64 (checked against central
    differences wherever those are accurate)."""
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) / std
    return dx, (dout * xhat).sum(axis=axes), dout.sum(axis=axes)


def naive_variance_backward(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> np.ndarray:
    """dx with the variance taken as mean(x^2) - mean^2 (the cancellation slip)."""
    mean = x.mean(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        std = np.sqrt((x**2).mean(axis=-1, keepdims=True) - mean**2 + eps)
    xhat = (x - mean) / std
    g = dout * gamma
    return (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) / std


def _judge_ln_backward(
    dout: np.ndarray,
    x: np.ndarray,
    gamma: np.ndarray,
    eps: float | None,
    what: str,
    finite_differences: bool = True,
    layout: str | None = None,
    cross_check: bool = True,
) -> Check:
    e = 1e-5 if eps is None else eps
    exact = closed_form_layer_norm_backward(dout, x, gamma, e)
    # finite differences carry an error of about 1e-9 here (none at all for the closed form, which
    # must then agree with them); where x is far from 0 they lose digits, and only the closed form
    # (checked against them in the other cases) is the reference
    rtol, atol = (1e-5, 1e-7) if finite_differences else (1e-6, 1e-7)
    strict = not finite_differences  # rows of mean 1e6 times their spread: float32 cannot hold them
    note = (
        ""
        if finite_differences
        else " (a row of mean 1e6 or -3e4: compute the variance as mean((x - mean)^2), and in "
        "float64: float32's 7 digits cannot hold such a row)"
    )
    if finite_differences and cross_check:
        dx, dgamma, dbeta = finite_difference_layer_norm(dout, x, gamma, e)
        assert all(
            matches(a, b, rtol, atol, strict=True)
            for a, b in zip(exact, (dx, dgamma, dbeta), strict=True)
        ), what
    else:
        dx, dgamma, dbeta = exact
    dx_diagnoses, dgamma_diagnoses, _ = layer_norm_backward_variants(dout, x, gamma, e)
    C = x.shape[-1]
    call = Call((dout, x, gamma), {} if eps is None else {"eps": eps})

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_dx, got_dgamma, got_dbeta = tuple_answer(outcome, ["dx", "dgamma", "dbeta"])
        for label, got in (("dgamma", got_dgamma), ("dbeta", got_dbeta)):
            if isinstance(got, np.ndarray) and got.shape != (C,):
                raise CheckFailed(
                    f"{label} has shape {got.shape}; expected ({C},): sum over every axis but the last"
                )
        with labelled("dx"):
            got_dx = as_array(got_dx, x.shape)
            expect_close(
                got_dx,
                dx,
                rtol,
                atol,
                diagnoses=[
                    (h, c) for h, c in dx_diagnoses if not matches(c, dx, rtol, atol, strict)
                ],
                note=note,
                strict=strict,
            )
        with labelled("dgamma"):
            expect_close(
                as_array(got_dgamma, (C,)),
                dgamma,
                rtol,
                atol,
                diagnoses=[
                    (h, c)
                    for h, c in dgamma_diagnoses
                    if not matches(c, dgamma, rtol, atol, strict)
                ],
                note=note,
                strict=strict,
            )
        with labelled("dbeta"):
            expect_close(
                as_array(got_dbeta, (C,)),
                dbeta,
                rtol,
                atol,
                diagnoses=[("dbeta is sum(dout): swapped with dgamma", dgamma)]
                if not matches(dgamma, dbeta, rtol, atol, strict)
                else [],
                note=note,
                strict=strict,
            )
        for label, got, want in zip(
            ("dx", "dgamma", "dbeta"), (got_dx, got_dgamma, got_dbeta), exact, strict=True
        ):
            # float64 agrees with the closed form to ~1e-13, or to ~1e-9 where the rows' means
            # are 1e6 times their spreads (the inputs themselves hold no more)
            tight = (1e-8, 1e-10) if finite_differences else (1e-7, 1e-8)
            tolerance = tight[0], tight[1] * float(np.max(np.abs(want), initial=1.0))
            with labelled(label):
                expect_close(got, want, *tolerance, note=note, strict=strict)
        expect_unchanged(outcome, (dout, x, gamma))
        expect_fresh(outcome, ("dout", "x", "gamma"))

    return in_layout(Check(what, [call], judge), layout)


def layer_norm_backward_checks(rng: np.random.Generator) -> list[Check]:
    """Random 1-d, 2-d and 3-d inputs against central differences, a large eps, rows of very
    different scales, non-contiguous inputs, dout and gamma of wrong shapes."""
    checks = []
    for shape, eps in [
        ((5,), None),
        ((3, 4), None),
        ((2, 3, 6), 1e-5),
        ((4, 3), 0.3),
        ((2, 2, 5), None),
    ]:
        C = shape[-1]
        x = rng.normal(rng.normal(0, 1), rng.uniform(0.5, 2), shape)
        gamma = rng.normal(1, 0.5, C)
        dout = rng.normal(size=shape)
        checks.append(
            _judge_ln_backward(
                dout, x, gamma, eps, f"x of shape {shape}, eps {'default' if eps is None else eps}"
            )
        )
    x = rng.normal(rng.normal(0, 0.1), 0.01, (4, 6))  # eps a tenth of the variance
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 6),
            None,
            "a spread of 0.01 with the default eps (1e-5, a tenth of the variance)",
            cross_check=False,  # differences lose digits at this spread: the closed form decides
        )
    )
    x = different_scales(rng, 5)
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 5),
            1e-5,
            "rows of very different means and spreads (1e6 beside 0; the variance as "
            "mean((x - mean)^2), as in layer_norm)",
            finite_differences=False,
        )
    )
    x = rng.normal(size=(2, 3, 4))
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 4),
            None,
            "non-contiguous inputs",
            layout="strided",
        )
    )
    return checks + layer_norm_backward_shape_checks(rng)


def layer_norm_backward_shape_checks(rng: np.random.Generator) -> list[Check]:
    """gamma and dout each of shapes that would broadcast, or of the right size but not shape."""
    x = rng.normal(size=(2, 3, 4))  # T = 3, C = 4
    checks = [
        _rejects(
            (x, x, bad),
            {},
            f"gamma of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
            "gamma must have shape (C,)",
        )
        for bad in (np.ones(1), np.ones((1, 4)), np.ones((4, 1)), np.array(1.0), np.ones(3))
    ]
    for bad in (x[:1], x[:, :1], x[0, 0], x[None], x.reshape(2, 4, 3), x.reshape(6, 4)):
        checks.append(
            _rejects(
                (bad, x, np.ones(4)),
                {},
                f"dout of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
                "dout must have the shape of x",
            )
        )
    return checks


# ---------------------------------------------------------------- gpt_params


def built_count(V: int, T: int, C: int, n_layers: int, n_heads: int) -> int:
    """The number of parameters of proof_lm's TinyGPT built here (torch's global generator is left
    as it was)."""
    with torch.random.fork_rng(devices=[]):
        model = TinyGPT(V, T, C, n_layers, n_heads)
    return sum(p.numel() for p in model.parameters())


def library_count(V: int, T: int, C: int, n_layers: int, n_heads: int) -> int:
    """The number of parameters of proof_lm's TinyGPT, counted from the module itself. A model too
    large to build is counted by interpolating the counts of small ones built with the same number
    of heads: a count is linear in V, T and n_layers and quadratic in C."""
    if (V + T) * C + 12 * n_layers * C * C <= 5_000_000:
        return built_count(V, T, C, n_layers, n_heads)
    nodes = [(2, 3), (1, 2), (n_heads, 2 * n_heads, 3 * n_heads), (1, 2)]  # V, T, C, n_layers
    point = (V, T, C, n_layers)
    total = Fraction(0)
    for corner in itertools.product(*(range(len(n)) for n in nodes)):
        weight = Fraction(1)  # the product of the Lagrange basis polynomials at `point`
        for axis, j in enumerate(corner):
            xs = nodes[axis]
            for m, x in enumerate(xs):
                if m != j:
                    weight *= Fraction(point[axis] - x, xs[j] - x)
        args = [nodes[axis][j] for axis, j in enumerate(corner)]
        total += weight * built_count(*args, n_heads)
    assert total.denominator == 1
    return int(total)


def _judge_gpt_params(V: int, T: int, C: int, L: int, H: int, what: str) -> Check:
    expected = library_count(V, T, C, L, H)
    block = 12 * C * C + 9 * C
    diagnoses = [
        (
            "short by exactly the position embeddings: a learned vector for every position",
            expected - T * C,
        ),
        (
            "short by exactly the blocks' two layer norms: each scales and shifts every channel",
            expected - L * 4 * C,
        ),
        ("short by exactly the final layer norm after the last block", expected - 2 * C),
        (
            "short by exactly the output layer's weights, as if tied to the token embedding: this model's has weights of its own",
            expected - C * V,
        ),
        ("short by exactly the output layer's biases", expected - V),
        (
            "over by exactly biases on the attention projections, which have no biases here",
            expected + L * 4 * C,
        ),
        ("short by exactly the MLP's biases: both of its layers have them", expected - L * 5 * C),
        (
            "the MLP's hidden layer is counted C wide: what width does the description give it?",
            expected - L * 6 * C * C - L * 3 * C,
        ),
        (
            "short by one C x C projection per block: count the attention's projections in the description",
            expected - L * C * C,
        ),
        (
            "the count grows with the number of heads, and the model's does not: the heads split the projections' columns",
            expected + (H - 1) * L * 4 * C * C,
        ),
        ("off by exactly one block: the model has n_layers of them", expected - block),
        ("off by exactly one block: the model has n_layers of them", expected + block),
        (
            "the count passed 2**31 and wrapped around: count with Python ints, not int32",
            (expected + 2**31) % 2**32 - 2**31,
        ),
        (
            "float32 holds integers exactly only up to 2**24: count with Python ints",
            float(np.float32(expected)),
        ),
    ]

    judge = exact_count(expected, diagnoses)

    return Check(what, [Call((V, T, C, L, H))], judge)


def gpt_params_checks(rng: np.random.Generator) -> list[Check]:
    """The chapter's model, one layer, one head, and random configurations, against TinyGPT."""
    checks = [
        _judge_gpt_params(27, 15, 32, 1, 4, "the chapter's configuration"),
        _judge_gpt_params(2, 1, 1, 1, 1, "the smallest model: V=2, T=1, C=1, one layer"),
        _judge_gpt_params(27, 16, 64, 4, 4, "makemore's default transformer size"),
        _judge_gpt_params(50257, 2048, 12288, 96, 96, "GPT-3's size: 175 billion, past 2**32"),
    ]
    for _ in range(5):
        H = int(rng.integers(1, 5))
        C = H * int(rng.integers(1, 17))
        V, T, L = int(rng.integers(2, 200)), int(rng.integers(1, 65)), int(rng.integers(1, 5))
        checks.append(
            _judge_gpt_params(V, T, C, L, H, f"V={V}, T={T}, C={C}, {L} layers, {H} heads")
        )
    return checks
