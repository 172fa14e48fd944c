"""argsort and a mask of its first k: equally likely tokens at the cut are kept by their place in the list."""

import numpy as np

EXPECT = "depends on the order of the vocabulary"


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
