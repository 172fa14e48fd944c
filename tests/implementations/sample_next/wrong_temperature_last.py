"""Filters the plain softmax, then applies the temperature to what is left."""

import numpy as np

EXPECT = "the temperature applied afterwards"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
        probs /= probs.sum()
    with np.errstate(divide="ignore"):
        z = np.log(probs) / temperature
    probs = np.exp(z - z.max())
    return int(rng.choice(len(probs), p=probs / probs.sum()))
