"""Counts each head's (C, D) slices and sums them back."""

EXPECT = "pass"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    D = C // n_heads
    attention = n_heads * 3 * (C * D + (D if attention_bias else 0)) + C * C
    attention += C if attention_bias else 0
    block = attention + 2 * 2 * C + (C * 4 * C + 4 * C) + (4 * C * C + C)
    output = 0 if tied else C * V + V
    return V * C + T * C + n_layers * block + 2 * C + output
