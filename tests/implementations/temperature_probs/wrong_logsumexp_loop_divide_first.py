"""Log-sum-exp written as a Python loop over the logits, each divided first: the quotient overflows at a tiny temperature."""

import math

import numpy as np

EXPECT = "not numerically stable"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("the temperature must be > 0")
    scaled = [float(z) / temperature for z in logits]
    top = max(scaled)
    log_total = top + math.log(sum(math.exp(z - top) for z in scaled))
    return np.array([math.exp(z - log_total) for z in scaled])
