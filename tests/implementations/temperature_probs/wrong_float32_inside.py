"""Divides and exponentiates in float32: a temperature near the smallest float64 is 0 in float32."""

import numpy as np

EXPECT = "not numerically stable"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float32) / np.float32(temperature)
    e = np.exp(z - z.max())
    return e / e.sum()
