"""Gives Wq, Wk, Wv, Wo biases whatever attention_bias says."""

import math

EXPECT = "one width too narrow"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) < 1:
        raise ValueError("V, T, n_layers and n_heads are at least 1")
    L, H = n_layers, n_heads
    a = 12 * L
    b = V + T + 2 + L * 13 + (0 if tied else V)
    c = 0 if tied else V
    if budget < c:
        raise ValueError("no width fits")
    C = (math.isqrt(b * b + 4 * a * (budget - c)) - b) // (2 * a) // H * H
    if C < H:
        raise ValueError("no width fits")
    return C
