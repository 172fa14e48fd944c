"""The draft handed out in chapter 05: three bugs (temperature, order, generator)."""

import numpy as np

EXPECT = "global random state"


def sample_next(
    logits: np.ndarray,
    rng: np.random.Generator,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> int:
    """The catalogued draft, as its file\'s docstring says."""
    probs = temperature_probs(logits, 1.0)  # noqa: F821 - the reference, as in grading
    with np.errstate(divide="ignore"):  # log 0 = -inf, which the softmax turns back into 0
        if top_p is not None:
            probs = top_p_probs(np.log(probs), top_p)  # noqa: F821 - the reference, as in grading
        if top_k is not None:
            probs = top_k_probs(np.log(probs), top_k)  # noqa: F821 - the reference, as in grading
        probs = temperature_probs(np.log(probs), temperature)  # noqa: F821 - the reference, as in grading
    return int(np.random.choice(len(probs), p=probs))
