"""argsort and a mask."""

import numpy as np

EXPECT = "pass"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("need k >= 1 and temperature > 0")
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    keep = np.argsort(p)[::-1][:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()
