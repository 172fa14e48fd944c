"""Divide, subtract the max, exponentiate."""

import numpy as np

EXPECT = "pass"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()
