"""Hidden checks for chapter 07's causal_attention_backward (dq, dk, dv by hand).

The reference is PyTorch autograd in float64 through the forward pass written out (scores,
causal mask, softmax, weighted values); the diagnoses are the classic slips, computed in NumPy.
"""

import math

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_raises,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="causal_attention_backward",
    chapter="07_attention",
    points=3,
    kind="derive",
    given_in_text=("math.sqrt(d)",),
)

PARTS = ("dq", "dk", "dv")


def torch_attention_grads(q, k, v, dout, causal: bool = True) -> tuple:
    """(dq, dk, dv) of sum(out * dout) for causal scaled dot-product attention, by autograd."""
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    T, d = q.shape[1], q.shape[2]
    scores = tq @ tk.transpose(1, 2) / math.sqrt(d)
    if causal:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ tv
    (out * torch.tensor(dout, dtype=torch.float64)).sum().backward()
    return tuple(t.grad.numpy().copy() for t in (tq, tk, tv))


def _slips(q, k, v, dout) -> dict[str, tuple]:
    """(dq, dk, dv) of the classic mistakes."""
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    dw = dout @ v.transpose(0, 2, 1)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True))
    ds_half = w * dw  # the softmax's Jacobian without its second term
    s = 1 / math.sqrt(d)
    dq, dk, dv = ds @ k * s, ds.transpose(0, 2, 1) @ q * s, w.transpose(0, 2, 1) @ dout
    return {
        "scale": (ds @ k, ds.transpose(0, 2, 1) @ q, dv),
        "jacobian": (ds_half @ k * s, ds_half.transpose(0, 2, 1) @ q * s, dv),
        "dv_transpose": (dq, dk, w @ dout),
        "dk_transpose": (dq, ds @ q * s, dv),
        "future": torch_attention_grads(q, k, v, dout, causal=False),
        "swapped": (dk, dq, dv),
    }


HINTS = {
    "scale": "dq and dk are off by a constant factor: which factor did the forward pass put "
    "on the scores?",
    "jacobian": "the softmax's backward pass is incomplete: a weight depends on every score in "
    "its row (the row sums to 1), so the Jacobian has a second term besides the diagonal",
    "dv_transpose": "value j is read by every query t ≥ j; the sum runs over the keys instead",
    "dk_transpose": "key j is scored by every query t ≥ j; the gradient of the scores enters "
    "transposed",
    "future": "these are the gradients of attention without the causal mask: the masked weights "
    "passed gradient",
    "swapped": "dq and dk are swapped",
}


def _check(q, k, v, dout, what: str) -> Check:
    expected = torch_attention_grads(q, k, v, dout)
    slips = _slips(q, k, v, dout)
    # what a gradient would be worth if no weight saturated: float32 inside is off by ~1e-7 of
    # that, even where saturated weights make the true dq and dk tiny (1e-11 at scores near 20)
    reach = float(np.abs(dout).max(initial=0) * np.abs(v).max(initial=0))
    scores = (
        reach * max(np.abs(q).max(initial=0), np.abs(k).max(initial=0)) / math.sqrt(q.shape[-1])
    )
    natural = (scores, scores, float(np.abs(dout).max(initial=0)))  # for dq, dk, dv

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = tuple_answer(outcome, list(PARTS))
        shapes = (q.shape, k.shape, v.shape)
        grads = [as_array(a, shape) for a, shape in zip(answer, shapes, strict=True)]
        if not all(np.isfinite(g).all() for g in grads):
            raise CheckFailed(
                "got nan or inf: a masked score is -inf and its weight exactly 0 (is the softmax "
                "stable, and is -inf ever multiplied by 0?)"
            )
        for index in (2, 0, 1):  # dv first: it needs only the weights
            with labelled(PARTS[index]):
                expect_close(
                    grads[index],
                    expected[index],
                    rtol=1e-7,
                    atol=max(1e-11, 1e-6 * natural[index]),
                    diagnoses=[(HINTS[s], slips[s][index]) for s in HINTS],
                )
        expect_unchanged(outcome, (q, k, v, dout))

    return Check(what, [Call((q, k, v, dout))], judge)


def causal_attention_backward_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes, d_v != d, T = 1, a size far beyond finite differences, scores near ±20 and
    ±1000 and far below -10^4, 2-d inputs rejected, and each argument's shape checked on its own."""
    checks = []
    for B, T, d, dv in [(2, 5, 4, 3), (1, 8, 16, 16), (3, 4, 2, 5), (2, 1, 3, 2), (1, 12, 8, 4)]:
        q, k = rng.normal(size=(B, T, d)), rng.normal(size=(B, T, d))
        v, dout = rng.normal(size=(B, T, dv)), rng.normal(size=(B, T, dv))
        checks.append(_check(q, k, v, dout, f"B={B}, T={T}, d={d}, d_v={dv}"))
    q, k = rng.normal(size=(2, 6, 4)) * 6, rng.normal(size=(2, 6, 4)) * 6
    checks.append(
        _check(q, k, rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 6, 3)), "scores near ±20")
    )
    q, k, v, dout = (rng.normal(size=(2, 128, 64)) for _ in range(4))
    checks.append(
        _check(q, k, v, dout, "B=2, T=128, d=d_v=64: far too many entries for finite differences")
    )

    q, k = rng.normal(size=(2, 7, 4)) * 30, rng.normal(size=(2, 7, 4)) * 30
    checks.append(
        _check(q, k, rng.normal(size=(2, 7, 3)), rng.normal(size=(2, 7, 3)), "scores near ±1000")
    )
    q, k = rng.normal(size=(1, 6, 4)) * 150, rng.normal(size=(1, 6, 4)) * 150
    k[:, 0] = -q[:, 0]  # the first query's only score is about -45,000
    checks.append(
        _check(
            q,
            k,
            rng.normal(size=(1, 6, 2)),
            rng.normal(size=(1, 6, 2)),
            "scores far below -10,000 (a finite stand-in for -inf is not small enough)",
        )
    )

    def rejects(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", "expected q, k (B, T, d), v and dout (B, T, d_v)")

    flat = rng.normal(size=(5, 4))
    checks.append(Check("2-d inputs raise ValueError", [Call((flat, flat, flat, flat))], rejects))
    # each argument wrong on its own, the others valid: every one must be checked
    B, T, d, dv = 2, 4, 3, 2
    good = {
        "q": rng.normal(size=(B, T, d)),
        "k": rng.normal(size=(B, T, d)),
        "v": rng.normal(size=(B, T, dv)),
        "dout": rng.normal(size=(B, T, dv)),
    }
    # a batch of 1 where the others have B: NumPy's broadcasting would carry it through silently
    wrong = {name: ("with a batch of 1", value[:1]) for name, value in good.items()}
    for name, (how, bad) in wrong.items():
        args = tuple(bad if key == name else value for key, value in good.items())
        checks.append(Check(f"{name} alone {how} raises ValueError", [Call(args)], rejects))
    return checks
