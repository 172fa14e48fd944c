"""What the checks of `temperature_probs`, `top_k_probs`, `top_p_probs`, `sample_next` share.

References sort explicitly and loop in Python floats; sample_next is judged in distribution over
thousands of draws from fixed seeds (deterministic), never by exact ids.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_raises,
    expect_unchanged,
    float32_rtol,
)
from autograder.sandbox.guest.protocol import Call, Outcome

WORKED = np.array([2.0, 1.0, 0.1])


def reference_temperature(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / temperature) by a loop, shifted before the division: every step finite
    for any finite logits at any positive temperature (the others' exponents go to -inf)."""
    top = max(float(z) for z in logits)
    exps = [math.exp((float(z) - top) / temperature) for z in logits]
    total = math.fsum(exps)
    return np.array([e / total for e in exps])


def reference_top_k(logits: np.ndarray, k: int, temperature: float = 1.0) -> np.ndarray:
    """Keep every token at least as probable after temperature as the k-th; renormalise."""
    probs = reference_temperature(logits, temperature)
    kth = sorted(probs, reverse=True)[min(k, len(probs)) - 1]
    keep = [i for i in range(len(probs)) if probs[i] >= kth]
    out = np.zeros(len(probs))
    total = math.fsum(probs[i] for i in keep)
    for i in keep:
        out[i] = probs[i] / total
    return out


def reference_top_p(
    logits: np.ndarray, p: float, temperature: float = 1.0, strict: bool = True
) -> np.ndarray:
    """Keep, most probable first, each token whose preceding mass is < p (the top always); renormalise."""
    probs = reference_temperature(logits, temperature)
    out, before = np.zeros(len(probs)), 0.0
    for rank, i in enumerate(sorted(range(len(probs)), key=lambda j: -probs[j])):
        if rank > 0 and (before >= p if strict else before + probs[i] > p):
            break
        out[i] = probs[i]
        before += probs[i]
    return out / math.fsum(out)


def distinct_logits(rng: np.random.Generator, V: int, scale: float = 2.0) -> np.ndarray:
    """Random logits whose probabilities are well apart (no ties at any cut)."""
    while True:
        logits = rng.normal(0, scale, V)
        gaps = np.diff(np.sort(logits))
        if gaps.min() > 0.05:
            return logits


UNSTABLE = (
    "got nan or inf: not numerically stable at these logits and this temperature: an "
    "intermediate overflowed, or every term underflowed to 0 and the renormalisation was 0/0"
)


def _judge_probs(
    fn_args: tuple,
    kwargs: dict,
    logits: np.ndarray,
    expected: np.ndarray,
    what: str,
    diagnoses: list,
    temperature: float = 1.0,
    rtol: float | None = None,
    note: str = "",
) -> Check:
    # float32 inside passes: logits / temperature held in float32 are off by 6e-8 of their size,
    # which exp turns into a relative error of the probabilities (float32_rtol); 1e-5 for logits
    # of order one, more for logits near 200 at temperature 0.001 (0.05, where float32 inside is
    # off by 1.5%: every slip those cases catch is off by far more, nan, or keeps other tokens)
    # (`rtol`, when given, replaces that allowance: for a case whose answer float64 holds exactly)
    scale = float(np.abs(np.asarray(logits, dtype=np.float64)).max(initial=0.0)) / temperature
    rtol = float32_rtol(scale) if rtol is None else rtol

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, logits.shape, kinds="f")
        if not np.isfinite(probs).all():
            raise CheckFailed(UNSTABLE + " (or every token was filtered out)")
        expect_close(
            probs,
            expected,
            rtol=rtol,
            atol=rtol * 1e-3,
            diagnoses=[(h, c) for h, c in diagnoses if c is not None],
            note=note,
        )
        expect_unchanged(outcome, (logits,))

    return Check(what, [Call(fn_args, kwargs)], judge)


def _judge_rejects(fn_args: tuple, kwargs: dict, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(fn_args, kwargs)], judge)


def clear_of_boundaries(logits: np.ndarray, p: float, temperature: float) -> float:
    """`p`, moved if needed so that no cumulative mass lies within 1e-6 of it (ties are left open)."""
    probs = np.sort(reference_temperature(logits, temperature))[::-1]
    before = np.concatenate([[0.0], np.cumsum(probs)[:-1]])
    while p < 1.0 and np.abs(before - p).min() < 1e-6:
        p = min(1.0, p + 0.01)
    return p
