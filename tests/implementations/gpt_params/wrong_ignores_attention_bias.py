"""Never counts the attention projections' biases."""

EXPECT = "attention projections' biases"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    return V * C + T * C + n_layers * (12 * C * C + 9 * C) + 2 * C + (0 if tied else C * V + V)
