"""What the checks of `sgd_train`, `batchnorm_forward`, `batchnorm_backward` share.

sgd_train runs in a probe with a trusted loss_and_grads; its trajectory is replayed here exactly.
Batch normalisation is referenced by plain per-feature loops and, for the backward pass, by
central finite differences in float64; failures are diagnosed by matching the known slips.
"""

import numpy as np

LARGE_MEAN_NOTE = (
    " (a feature's mean is 1e6 times its spread here: a variance taken as the difference of two "
    "large, nearly equal numbers loses every digit, and so does float32, whose 7 digits cannot "
    "even hold such a feature)"
)


def different_scales(rng: np.random.Generator, B: int) -> np.ndarray:
    """(B, 4): features of mean 0 and spread 1, mean 1e6, mean -3e4 and spread 1e-2, spread 1e3."""
    x = rng.normal(size=(B, 4))
    x[:, 1] += 1e6
    x[:, 2] = -3e4 + 1e-2 * x[:, 2]
    x[:, 3] *= 1e3
    return x
