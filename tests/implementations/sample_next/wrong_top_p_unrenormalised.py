"""Top-p on the top-k probabilities before renormalising them: the mass before each token is too small."""

import numpy as np

EXPECT = "which distribution does top-p measure"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
    probs /= probs.sum()
    return int(rng.choice(len(probs), p=probs))
