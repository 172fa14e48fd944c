"""Right filter, but exp without subtracting the max: nan at large logits or small temperatures."""

import numpy as np

EXPECT = "nan or inf"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k must be >= 1 and temperature > 0")
    e = np.exp(logits / temperature)
    p = e / e.sum()
    out = np.zeros_like(p)
    top = np.argsort(-p)[:k]
    out[top] = p[top]
    return out / out.sum()
