"""An MLP of width C instead of 4C."""

EXPECT = "counted C wide"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 6 * C * C + 6 * C + (4 * C if attention_bias else 0)
    return V * C + T * C + n_layers * block + 2 * C + (0 if tied else C * V + V)
