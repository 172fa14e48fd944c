"""Compares scaled logits with log(p_base)."""

import numpy as np

EXPECT = "pass"


def min_p_probs(logits, p_base, temperature=1.0):
    if not 0.0 <= p_base <= 1.0:
        raise ValueError("p_base must lie in [0, 1]")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = (logits - logits.max()) / temperature
    with np.errstate(divide="ignore"):
        keep = z >= np.log(p_base)
    e = np.where(keep, np.exp(z), 0.0)
    return e / e.sum()
