"""Divides the caller's float64 logits in place (astype with copy=False returns the same array)."""

import numpy as np

EXPECT = "modified"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = logits.astype(np.float64, copy=False)
    z /= temperature
    e = np.exp(z - z.max())
    return e / e.sum()
