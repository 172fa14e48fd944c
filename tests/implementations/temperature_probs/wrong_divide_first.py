"""Divide, subtract the max, exponentiate: the quotient overflows at a temperature near the smallest float64."""

import numpy as np

EXPECT = "not numerically stable"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()
