"""Right filters, but the softmax does not subtract the max: nan probabilities at logits near 1000."""

import numpy as np

EXPECT = "not numerically stable"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    probs = np.exp(z) / np.exp(z).sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
        probs /= probs.sum()
    return int(rng.choice(len(probs), p=probs))
