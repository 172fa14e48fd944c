"""The product kept in range by pulling out a power of two after every factor (math.frexp)."""

import math

EXPECT = "pass"


def perplexity(token_probs):
    mantissa, exponent, n = 1.0, 0, 0
    for p in token_probs.ravel():
        p = float(p)
        if p == 0:
            return math.inf
        mantissa, shift = math.frexp(mantissa * p)
        exponent += shift
        n += 1
    # (1/k)^n = mantissa * 2^exponent, so ln k = -(ln mantissa + exponent ln 2) / n
    return math.exp(-(math.log(mantissa) + exponent * math.log(2)) / n)
