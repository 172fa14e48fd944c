"""The draft with two bugs fixed: it still draws from the global random state."""

import numpy as np


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    scaled = logits / temperature
    exps = np.exp(scaled - scaled.max())
    return exps / exps.sum()


def top_k_probs(logits, k, temperature=1.0):
    if k < 1:
        raise ValueError("k must be at least 1")
    probs = temperature_probs(logits, temperature)
    kept = np.zeros_like(probs)
    top = np.argsort(-probs)[:k]
    kept[top] = probs[top]
    return kept / kept.sum()


def top_p_probs(logits, p, temperature=1.0):
    probs = temperature_probs(logits, temperature)
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    keep = order[before < p]
    kept = np.zeros_like(probs)
    kept[keep] = probs[keep]
    kept[order[0]] = probs[order[0]]
    return kept / kept.sum()


EXPECT = "the global random state was used"


def sample_next(
    logits: np.ndarray,
    rng: np.random.Generator,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> int:
    """The catalogued draft, as its file\'s docstring says."""
    probs = temperature_probs(logits, temperature)
    with np.errstate(divide="ignore"):  # log 0 = -inf, which the softmax turns back into 0
        if top_k is not None:
            probs = top_k_probs(np.log(probs), top_k)
        if top_p is not None:
            probs = top_p_probs(np.log(probs), top_p)
    return int(np.random.choice(len(probs), p=probs))
