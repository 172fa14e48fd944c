"""The library's softmax of logits / temperature."""

import numpy as np

from proof_lm.functional import softmax

EXPECT = "answer-key rule"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return softmax(np.asarray(logits, dtype=float) / temperature)
