"""Forgets the final layer norm."""

EXPECT = "final layer norm"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 12 * C * C + 9 * C + (4 * C if attention_bias else 0)
    return V * C + T * C + n_layers * block + (0 if tied else C * V + V)
