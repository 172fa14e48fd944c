"""Clips the scaled logits to keep exp finite instead of subtracting the max."""

import numpy as np

EXPECT = "differ"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    e = np.exp(np.clip(logits / temperature, -700, 700))
    return e / e.sum()
