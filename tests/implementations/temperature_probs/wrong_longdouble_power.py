"""p ** (1 / t) as read, in np.longdouble: right on the worked logits at t = 0.0001, 0/0 on ties."""

import numpy as np

EXPECT = "nan"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    z = np.asarray(logits, dtype=np.longdouble)
    p = np.exp(z) / np.exp(z).sum()
    powered = p ** (1 / np.longdouble(temperature))
    return (powered / powered.sum()).astype(np.float64)
