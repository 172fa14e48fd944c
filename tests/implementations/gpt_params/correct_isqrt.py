"""The count is a C^2 + b C + c: the positive root in integers (math.isqrt), down to a multiple of the heads."""

import math

EXPECT = "pass"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) < 1:
        raise ValueError("V, T, n_layers and n_heads are at least 1")
    a = 12 * n_layers
    b = V + T + 2 + n_layers * (13 if attention_bias else 9) + (0 if tied else V)
    c = 0 if tied else V
    if budget < c:
        raise ValueError("no width fits")
    root = (math.isqrt(b * b + 4 * a * (budget - c)) - b) // (2 * a)
    C = root // n_heads * n_heads
    if C < n_heads:
        raise ValueError("no width fits")
    return C
