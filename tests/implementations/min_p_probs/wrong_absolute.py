"""p >= p_base."""

import numpy as np

EXPECT = "the threshold is absolute"


def min_p_probs(logits, p_base, temperature=1.0):
    if not 0.0 <= p_base <= 1.0:
        raise ValueError("p_base must lie in [0, 1]")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    kept = np.where(p >= p_base, p, 0.0)
    if kept.sum() == 0:
        kept[p.argmax()] = 1.0
    return kept / kept.sum()
