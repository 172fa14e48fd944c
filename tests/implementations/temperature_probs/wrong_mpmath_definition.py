"""exp(z / T) over its sum as read, in mpmath's arbitrary precision: no overflow to derive away.
A NumPy exercise's sandbox has no mpmath."""

import mpmath
import numpy as np

EXPECT = "arbitrary-precision arithmetic"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    e = [mpmath.exp(mpmath.mpf(float(z)) / temperature) for z in np.asarray(logits).ravel()]
    total = mpmath.fsum(e)
    return np.array([float(v / total) for v in e]).reshape(np.shape(logits))
