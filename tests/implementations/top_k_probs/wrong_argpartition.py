"""np.argpartition(-p, k) fails when k >= V: 'k beyond V keeps everything' is not handled."""

import numpy as np

EXPECT = "raised"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k must be >= 1 and temperature > 0")
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    out = np.zeros_like(p)
    top = np.argpartition(-p, k)[:k]
    out[top] = p[top]
    return out / out.sum()
