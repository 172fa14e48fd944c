"""Floats throughout (C / n_heads per head), exact below 2**53: returned as a float."""

EXPECT = "pass"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    D = C / n_heads
    per_block = n_heads * 4 * C * D + 2 * (2.0 * C) + 8.0 * C * C + 5.0 * C
    per_block += 4.0 * C * attention_bias
    return (V + T) * C * 1.0 + n_layers * per_block + 2.0 * C + (1 - tied) * (C + 1.0) * V
