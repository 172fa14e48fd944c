"""softmax(z / t) with chapter 02's stable softmax, and greedy (ties share) below t = 1e-300, where
the quotient could overflow: a threshold in place of a form that holds at every temperature."""

import numpy as np

EXPECT = "rounding lost those differences"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    z = np.asarray(logits, dtype=np.float64)
    if temperature < 1e-300:
        top = z == z.max()
        return top / top.sum()
    scaled = z / temperature
    e = np.exp(scaled - scaled.max())
    return e / e.sum()
