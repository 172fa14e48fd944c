"""Divide first in np.longdouble (64-bit mantissa where the platform has one), then the stable
softmax: 11 more bits than float64, still short of a difference of one float64 step at 7e-14."""

import numpy as np

EXPECT = "rounding lost those differences"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    z = np.asarray(logits, dtype=np.longdouble) / np.longdouble(temperature)
    with np.errstate(all="ignore"):
        e = np.exp(z - z.max())
    return (e / e.sum()).astype(np.float64)
