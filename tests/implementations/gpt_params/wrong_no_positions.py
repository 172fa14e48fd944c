"""Forgets the position embeddings."""

EXPECT = "position embeddings"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + n_layers * (12 * C * C + 9 * C) + 2 * C + C * V + V
