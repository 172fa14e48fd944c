"""Log-sum-exp written as a Python loop over the logits, each shifted by the largest before the division."""

import math

import numpy as np

EXPECT = "pass"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("the temperature must be > 0")
    top = max(float(z) for z in logits)
    scaled = [(float(z) - top) / temperature for z in logits]  # each <= 0, the largest 0
    log_total = math.log(sum(math.exp(z) for z in scaled))
    return np.array([math.exp(z - log_total) for z in scaled])
