"""Forgets the position embeddings."""

EXPECT = "position embeddings"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    block = 12 * C * C + 9 * C + (4 * C if attention_bias else 0)
    return V * C + n_layers * block + 2 * C + (0 if tied else C * V + V)
