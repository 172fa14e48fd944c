"""Counts each head's (C, D) slices and sums them back."""

EXPECT = "pass"


def gpt_params(V, T, C, n_layers, n_heads):
    D = C // n_heads
    attention = n_heads * 3 * C * D + C * C
    block = attention + 2 * 2 * C + (C * 4 * C + 4 * C) + (4 * C * C + C)
    return V * C + T * C + n_layers * block + 2 * C + C * V + V
