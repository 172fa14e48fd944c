"""Sums the parts in an int32 array: wraps around past 2**31 parameters."""

import numpy as np

EXPECT = "wrapped around"


def gpt_params(V, T, C, n_layers, n_heads):
    parts = np.array([V * C, T * C, 12 * C * C + 9 * C, 2 * C, C * V + V], dtype=np.int64)
    parts = parts.astype(np.int32)
    layers = np.array([1, 1, n_layers, 1, 1], dtype=np.int32)
    return int((parts * layers).sum())
