"""Forgets the final layer norm."""

EXPECT = "final layer norm"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (12 * C * C + 9 * C) + C * V + V
