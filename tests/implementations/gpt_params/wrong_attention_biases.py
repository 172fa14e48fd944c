"""Gives Wq, Wk, Wv, Wo biases whatever attention_bias says."""

EXPECT = "which have none unless"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    return V * C + T * C + n_layers * (12 * C * C + 13 * C) + 2 * C + (0 if tied else C * V + V)
