"""The power taken in log space, but on log p from a softmax: the far logits' p is already 0."""

import numpy as np

EXPECT = "far logits lost their mass"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float64)
    p = np.exp(z - z.max())
    p = p / p.sum()
    with np.errstate(divide="ignore"):
        scaled = np.log(p) / temperature  # log of p ** (1 / t)
    w = np.exp(scaled - scaled.max())
    return w / w.sum()
