"""exp(z / t - max z): overflows at small temperatures, underflows at large ones."""

import numpy as np

EXPECT = "nan or inf"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k >= 1, temperature > 0")
    z = np.asarray(logits, dtype=float)
    p = np.exp(z / temperature - z.max())
    p /= p.sum()
    keep = np.argsort(-p, kind="stable")[:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()
