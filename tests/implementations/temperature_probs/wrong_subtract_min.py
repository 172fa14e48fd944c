"""Subtracts the minimum instead of the maximum: overflows when the logits are far apart."""

import numpy as np

EXPECT = "nan or inf"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = logits / temperature
    e = np.exp(z - z.min())
    return e / e.sum()
