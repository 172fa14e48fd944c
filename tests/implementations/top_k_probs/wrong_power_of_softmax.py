"""Top-k of exp(z - max z) ** (1 / t): far logits lose their mass at large temperatures."""

import numpy as np

EXPECT = "entries differ"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k >= 1, temperature > 0")
    z = np.asarray(logits, dtype=float)
    p = np.exp(z - z.max()) ** (1 / temperature)
    keep = np.argsort(-p, kind="stable")[:k]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()
