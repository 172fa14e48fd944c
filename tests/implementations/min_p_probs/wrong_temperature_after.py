"""Filters at temperature 1, then applies the temperature."""

import numpy as np

EXPECT = "applied after filtering"


def min_p_probs(logits, p_base, temperature=1.0):
    if not 0.0 <= p_base <= 1.0:
        raise ValueError("p_base must lie in [0, 1]")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    p1 = np.exp(logits - logits.max())
    p1 /= p1.sum()
    z = logits / temperature
    p = np.exp(z - z.max())
    kept = np.where(p1 >= p_base * p1.max(), p, 0.0)
    return kept / kept.sum()
