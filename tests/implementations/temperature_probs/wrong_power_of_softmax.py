"""exp(z - max z) ** (1 / t): loses the mass of far logits at large temperatures."""

import numpy as np

EXPECT = "far logits lost their mass"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=float)
    e = np.exp(z - z.max()) ** (1 / temperature)
    return e / e.sum()
