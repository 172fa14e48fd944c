"""Gives Wq, Wk, Wv, Wo biases."""

EXPECT = "no biases"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (12 * C * C + 13 * C) + 2 * C + C * V + V
