"""The k indices of a sort by probability (a stable one, as torch.topk's indices would be): ties at the cut broken by position."""

import numpy as np

EXPECT = "depends on the order of the vocabulary"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1:
        raise ValueError("k must be at least 1")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float64) / temperature
    p = np.exp(z - z.max())
    p = p / p.sum()
    top = np.argsort(-p, kind="stable")[:k]
    kept = np.zeros_like(p)
    kept[top] = p[top]
    return kept / kept.sum()
