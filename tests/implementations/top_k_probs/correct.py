"""argsort, then every token at least as likely as the k-th."""

import numpy as np

EXPECT = "pass"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("need k >= 1 and temperature > 0")
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    kth = p[np.argsort(p)[::-1][: min(k, len(p))][-1]]
    out = np.where(p >= kth, p, 0.0)
    return out / out.sum()
