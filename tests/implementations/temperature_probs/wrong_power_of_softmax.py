"""softmax(logits) ** (1/τ), renormalised: right on paper, 0/0 once p ** (1/τ) underflows."""

import numpy as np

EXPECT = "** (1/temperature)"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    p = np.exp(logits - logits.max())
    p /= p.sum()
    q = p ** (1.0 / temperature)
    return q / q.sum()
