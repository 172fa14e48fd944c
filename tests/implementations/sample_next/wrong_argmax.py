"""Always greedy."""

import numpy as np


def _filter(logits, temperature, top_k, top_p):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
        probs /= probs.sum()
    return probs


EXPECT = "an argmax?"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    return int(np.argmax(_filter(logits, temperature, top_k, top_p)))
