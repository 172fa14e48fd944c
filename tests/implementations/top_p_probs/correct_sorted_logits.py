"""Sort the logits, cumulate a log-sum-exp normalised distribution in a loop, stop at p."""

import math

import numpy as np

EXPECT = "pass"


def top_p_probs(logits, p, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float64) / temperature
    log_total = z.max() + math.log(np.exp(z - z.max()).sum())
    out = np.zeros(len(z))
    mass = 0.0
    for i in np.argsort(-z, kind="stable"):
        if mass >= p and mass > 0:
            break
        out[i] = math.exp(z[i] - log_total)
        mass += out[i]
    return out / out.sum()
