"""Sums the parts in an int32 array: wraps around past 2**31 parameters."""

import numpy as np

EXPECT = "wrapped around"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 12 * C * C + (13 if attention_bias else 9) * C
    output = 0 if tied else C * V + V
    parts = np.array([V * C, T * C, block, 2 * C, output], dtype=np.int64)
    parts = parts.astype(np.int32)
    layers = np.array([1, 1, n_layers, 1, 1], dtype=np.int32)
    return int((parts * layers).sum())
