"""The closed form VC + TC + 2C + L(12C^2 + 9C [+ 4C]) [+ CV + V], as a NumPy integer."""

EXPECT = "pass"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    import numpy as np

    block = 12 * C * C + (13 if attention_bias else 9) * C
    output = 0 if tied else C * V + V
    return np.int64(V * C + T * C + 2 * C + n_layers * block + output)
