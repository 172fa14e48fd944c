"""Right on every model, and answers for arguments that describe none."""

EXPECT = "n = 1"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
