"""Forgets the two layer norms of each block."""

EXPECT = "two layer norms"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (12 * C * C + 5 * C) + 2 * C + C * V + V
