"""Returns 0 when not even n_heads channels fit, instead of the contract's ValueError."""

import math

EXPECT = "no width fits"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) < 1:
        raise ValueError("V, T, n_layers and n_heads are at least 1")
    a = 12 * n_layers
    b = V + T + 2 + n_layers * (13 if attention_bias else 9) + (0 if tied else V)
    c = 0 if tied else V
    return (math.isqrt(b * b + 4 * a * max(budget - c, 0)) - b) // (2 * a) // n_heads * n_heads
