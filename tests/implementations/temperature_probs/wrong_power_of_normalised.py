"""The softmax raised to 1/temperature in log space, divided before its max is taken out: every log-probability below 0 goes to -inf at a tiny temperature."""

import numpy as np

EXPECT = "not numerically stable"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    log_p = logits - logits.max()
    log_p = log_p - np.log(np.exp(log_p).sum())
    scaled = log_p / temperature
    return np.exp(scaled - np.log(np.exp(scaled - scaled.max()).sum()) - scaled.max())
