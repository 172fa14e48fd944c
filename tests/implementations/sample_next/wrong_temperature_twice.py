"""Divides by the temperature twice: once itself, once more through temperature_probs."""

import numpy as np

EXPECT = "divided by the temperature twice"


def sample_next(
    logits: np.ndarray,
    rng: np.random.Generator,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> int:
    """The next id, drawn at the temperature among the filtered ids."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    probs = temperature_probs(scaled, temperature)  # noqa: F821 - the reference, as in grading
    with np.errstate(divide="ignore"):  # log 0 = -inf, which the softmax turns back into 0
        if top_k is not None:
            probs = top_k_probs(np.log(probs), top_k)  # noqa: F821 - the reference, as in grading
        if top_p is not None:
            probs = top_p_probs(np.log(probs), top_p)  # noqa: F821 - the reference, as in grading
    return int(rng.choice(len(probs), p=probs))
