"""The definition as read, in decimals, whose exponents reach far past any float's: exp never
overflows there, so it would pass every case a derived form passes, without the derivation. A
NumPy exercise's sandbox has no decimals."""

from decimal import Decimal

import numpy as np

EXPECT = "arbitrary-precision arithmetic"


def softmax(logits, axis=-1):
    given = np.asarray(logits)
    dtype = given.dtype if np.issubdtype(given.dtype, np.floating) else np.float64
    x = np.moveaxis(given.astype(np.float64), axis, -1)
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    e = [[Decimal(float(v)).exp() for v in row] for row in rows]
    p = np.array([[float(v / sum(row)) for v in row] for row in e]).reshape(x.shape)
    return np.moveaxis(p, -1, axis).astype(dtype)
