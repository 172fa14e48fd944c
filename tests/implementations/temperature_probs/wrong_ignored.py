"""Ignores the temperature."""

import numpy as np

EXPECT = "ignored"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("bad temperature")
    e = np.exp(logits - logits.max())
    return e / e.sum()
