"""Hidden checks for chapter 07's `multi_head_attention`: random shapes and head counts against a loop reference and torch's SDPA; T = 1; bad shapes."""

import math

import numpy as np
import torch

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
    matches,
    value_of,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="multi_head_attention",
    chapter="07_attention",
    points=3,
    kind="debug",
    library=("gpt2:CausalSelfAttention",),
)


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
            "positions and heads are mixed: a head does not see each position's own D columns "
            "of it (try your split on np.arange)",
            variant_mha(x, W, H, split="reshape", merge="reshape"),
        ),
        (
            "positions and heads are mixed: a head does not see each position's own D columns "
            "of it (try your split on np.arange)",
            variant_mha(x, W, H, split="reshape"),
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
                "got nan or inf: at large scores exp overflows, or underflows to 0 over the "
                "scores each row keeps: the softmax is not stable row by row, in every head"
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
        checks.append(
            _judge_mha(x, W, H, f"B={B}, T={T}, C={C}, {H} heads (against a loop over the heads)")
        )
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
            "later keys score thousands above the earlier ones",
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
