"""The draft handed out in chapter 05: three bugs (the ranking, the crossing token, the temperature)."""

import numpy as np

EXPECT = "the ranking runs the wrong way"


def temperature_probs(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p_probs(logits: np.ndarray, p: float, temperature: float = 1.0) -> np.ndarray:
    """A colleague's top-p: it runs, and it is wrong (three bugs)."""
    probs = top_k_probs(logits, len(logits))  # noqa: F821 - the reference, as in grading
    order = np.argsort(probs)
    mass = np.cumsum(probs[order])
    keep = np.union1d(order[mass < p], order[:1])
    kept_logits = np.where(np.isin(np.arange(len(probs)), keep), logits, -np.inf)
    return temperature_probs(kept_logits, temperature)
