"""The count is affine in dh: what dh multiplies, and what it does not, then a floor division."""

EXPECT = "pass"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    per_unit = x + 1 + (d if tied else V)
    dh = (budget - fixed) // per_unit
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
