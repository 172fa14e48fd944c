"""Temperature and the threshold in float32, returns float64."""

import numpy as np

EXPECT = "pass"


def min_p_probs(logits, p_base, temperature=1.0):
    if not 0.0 <= p_base <= 1.0:
        raise ValueError("p_base must lie in [0, 1]")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float32) / np.float32(temperature)
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    kept = np.where(probs >= np.float32(p_base) * probs.max(), probs, 0)
    return (kept / kept.sum()).astype(np.float64)
