"""The chapter-05 draft with two bugs fixed and one left: temperature."""

import numpy as np

EXPECT = "ignores the temperature"


def temperature_probs(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p_probs(logits: np.ndarray, p: float, temperature: float = 1.0) -> np.ndarray:
    """A colleague's top-p: it runs, and it is wrong (three bugs)."""
    probs = top_k_probs(logits, len(logits))  # noqa: F821 - the reference, as in grading
    order = np.argsort(-probs)
    mass = np.cumsum(probs[order]) - probs[order]  # the mass before each token
    keep = np.union1d(order[mass < p], order[:1])
    kept_logits = np.where(np.isin(np.arange(len(probs)), keep), logits, -np.inf)
    return temperature_probs(kept_logits, temperature)
