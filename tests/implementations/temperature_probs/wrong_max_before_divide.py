"""Subtracts the max of the logits after dividing them: exp(z / t - max z)."""

import numpy as np

EXPECT = "not numerically stable"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=float)
    e = np.exp(z / temperature - z.max())
    return e / e.sum()
