"""The closed form 2VC + TC + V + 2C + L(12C^2 + 9C), as a NumPy integer."""

EXPECT = "pass"


def gpt_params(V, T, C, n_layers, n_heads):
    import numpy as np

    return np.int64(2 * V * C + T * C + V + 2 * C + n_layers * (12 * C * C + 9 * C))
