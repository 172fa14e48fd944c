"""The right quadratic solved in float64: past 2**53 the root lands a width off."""

import math

EXPECT = "past 2**53"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) < 1:
        raise ValueError("V, T, n_layers and n_heads are at least 1")
    a = 12 * n_layers
    b = V + T + 2 + n_layers * (13 if attention_bias else 9) + (0 if tied else V)
    c = 0 if tied else V
    root = (-b + math.sqrt(b * b + 4 * a * (budget - c))) / (2 * a) if budget >= c else 0
    C = math.floor(root / n_heads) * n_heads
    if C < n_heads:
        raise ValueError("no width fits")
    return C
