"""Filter, then rng.choice, the token as a 0-d array."""

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
    return np.array(rng.choice(len(probs), p=probs))
