"""A cosine written with a division by (steps - 1): nan when steps is 1."""

import numpy as np

EXPECT = "nan or inf"


def learning_rates(steps: int) -> list[float]:
    t = np.arange(steps)
    with np.errstate(all="ignore"):
        return 1.0 * 0.5 * (1 + np.cos(np.pi * t / (steps - 1)))
