"""Multiplies by the temperature."""

import numpy as np

EXPECT = "made the distribution sharper"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("bad temperature")
    z = logits * temperature
    e = np.exp(z - z.max())
    return e / e.sum()
