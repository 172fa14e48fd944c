"""Ties the head to the embedding."""

EXPECT = "as if tied to the token embedding"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (12 * C * C + 9 * C) + 2 * C + V
