"""Returns 0 (or less) when no hidden unit fits, instead of the contract's ValueError."""

EXPECT = "no width fits"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    return max(0, (budget - fixed) // (x + 1 + (d if tied else V)))
