"""math.sqrt for a first guess, then the guess and its neighbours checked with the integer count."""

import math

import numpy as np

EXPECT = "pass"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) <= 0:
        raise ValueError("bad arguments")
    H = n_heads

    def count(C):
        per_block = 12 * C * C + 9 * C + 4 * C * attention_bias
        return (V + T) * C + n_layers * per_block + 2 * C + (1 - tied) * (C + 1) * V

    a, b, c = 12 * n_layers, count(1) - count(0) - 12 * n_layers, count(0)
    guess = (-b + math.sqrt(b * b + 4 * a * max(budget - c, 0))) / (2 * a)
    C = int(guess) // H * H
    while count(C + H) <= budget:
        C += H
    while C >= H and count(C) > budget:
        C -= H
    if C < H:
        raise ValueError("no width fits")
    return np.int64(C)
