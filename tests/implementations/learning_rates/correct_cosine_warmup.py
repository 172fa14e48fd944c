"""A warm-up to 2.0, then half a cosine to zero, as a NumPy array."""

import numpy as np

EXPECT = "pass"


def learning_rates(steps: int) -> list[float]:
    t = np.arange(steps)
    return 2.0 * np.minimum(1.0, (t + 1) / 20) * 0.5 * (1 + np.cos(np.pi * t / steps))
