"""n symbols and no biases: V*d + n*d*dh + V*dh."""

EXPECT = "how many symbols does a model of order n read"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    fixed = V * d + (n * d * V if direct else 0)
    dh = (budget - fixed) // (n * d + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
