"""Counts a full (C, C) set of projections per head."""

EXPECT = "number of heads"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (4 * n_heads * C * C + 8 * C * C + 9 * C) + 2 * C + C * V + V
