"""The cut at the k-th largest distinct probability: equally likely tokens above it take one of the k places, so (2, 2, 1, 0) at k = 2 keeps three tokens."""

import numpy as np

EXPECT = "the k largest distinct probabilities"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("need k >= 1 and temperature > 0")
    z = np.asarray(logits, dtype=float) / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    levels = np.unique(p)[::-1]  # the distinct probabilities, likeliest first
    kth = levels[min(k, len(levels)) - 1]
    out = np.where(p >= kth, p, 0.0)
    return out / out.sum()
