"""A loop that stops once the kept mass reaches p."""

import math

import numpy as np

EXPECT = "pass"


def top_p_probs(logits, p, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be positive")
    z = [x / temperature for x in logits]
    m = max(z)
    e = [math.exp(x - m) for x in z]
    s = sum(e)
    probs = [x / s for x in e]
    out = np.zeros(len(probs))
    mass = 0.0
    for i in sorted(range(len(probs)), key=lambda j: probs[j], reverse=True):
        out[i] = probs[i]
        mass += probs[i]
        if mass >= p:
            break
    return out / out.sum()
