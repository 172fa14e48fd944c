"""Keeps the count strictly below the budget: a width that fits it exactly is refused."""

EXPECT = "one width too narrow"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if min(V, T, n_layers, n_heads) < 1:
        raise ValueError("V, T, n_layers and n_heads are at least 1")

    def count(C):
        block = 12 * C * C + (13 if attention_bias else 9) * C
        return (V + T + 2) * C + n_layers * block + (0 if tied else C * V + V)

    C = 0
    step = n_heads
    while count(C + step) < budget:  # doubling, then halving the step
        step *= 2
    while step >= n_heads:
        if count(C + step) < budget:
            C += step
        step //= 2
    if C < n_heads:
        raise ValueError("no width fits")
    return C // n_heads * n_heads
