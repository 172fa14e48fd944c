"""Subtract the max, then divide by the temperature: the same distribution, also stable."""

import numpy as np

EXPECT = "pass"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    e = np.exp((logits - np.max(logits)) / temperature)
    return e / np.sum(e)
