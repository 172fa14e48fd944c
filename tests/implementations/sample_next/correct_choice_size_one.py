"""Filter, then rng.choice(V, size=1): the token as a one-element array (the draws are the same)."""

import numpy as np

EXPECT = "pass"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    if top_k is not None:
        cut = np.argsort(-probs)[top_k:]
        probs[cut] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
        probs /= probs.sum()
    return rng.choice(len(probs), size=1, p=probs)
