"""Forgets the two layer norms of each block."""

EXPECT = "two layer norms"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 12 * C * C + 5 * C + (4 * C if attention_bias else 0)
    return V * C + T * C + n_layers * block + 2 * C + (0 if tied else C * V + V)
