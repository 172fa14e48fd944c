"""The count module by module as a function of C, inverted by bisection over multiples of the heads."""

EXPECT = "pass"


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    if V < 1 or T < 1 or n_layers < 1 or n_heads < 1:
        raise ValueError("no such model")

    def count(C):
        D = C // n_heads
        attention = n_heads * 3 * (C * D + (D if attention_bias else 0)) + C * C
        attention += C if attention_bias else 0
        block = attention + 2 * 2 * C + (C * 4 * C + 4 * C) + (4 * C * C + C)
        output = 0 if tied else C * V + V
        return V * C + T * C + n_layers * block + 2 * C + output

    if count(n_heads) > budget:
        raise ValueError("even the narrowest model is over the budget")
    low, high = 1, 2  # in heads
    while count(high * n_heads) <= budget:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        if count(mid * n_heads) <= budget:
            low = mid
        else:
            high = mid
    return low * n_heads
