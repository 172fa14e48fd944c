"""An MLP of width C instead of 4C."""

EXPECT = "counted C wide"


def gpt_params(V, T, C, n_layers, n_heads):
    return V * C + T * C + n_layers * (6 * C * C + 6 * C) + 2 * C + C * V + V
