"""Never checks p_base."""

import numpy as np

EXPECT = "p_base must lie in [0, 1]"


def min_p_probs(logits, p_base, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    kept = np.where(p >= p_base * p.max(), p, 0.0)
    return kept / kept.sum()
