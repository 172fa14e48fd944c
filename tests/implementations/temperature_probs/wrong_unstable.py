"""No max subtraction."""

import numpy as np

EXPECT = "nan"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("bad temperature")
    e = np.exp(logits / temperature)
    return e / e.sum()
