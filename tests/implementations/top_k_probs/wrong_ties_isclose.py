"""Ties at the cut judged by np.isclose: a token a millionth less likely than the k-th is kept as if it tied."""

import numpy as np

EXPECT = "a millionth less likely than the k-th"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("need k >= 1 and temperature > 0")
    z = np.asarray(logits, dtype=float) / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    kth = np.sort(p)[::-1][min(k, len(p)) - 1]
    keep = (p > kth) | np.isclose(p, kth)  # ties, up to rounding
    out = np.where(keep, p, 0.0)
    return out / out.sum()
