"""Counts a tied output layer's shared array a second time (and no bias)."""

EXPECT = "which counts once"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 12 * C * C + 9 * C + (4 * C if attention_bias else 0)
    return V * C + T * C + n_layers * block + 2 * C + C * V + (0 if tied else V)
