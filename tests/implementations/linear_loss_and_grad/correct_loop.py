"""One example at a time with outer products."""

import numpy as np

EXPECT = "pass"


def linear_loss_and_grad(weights, bias, inputs, targets):
    B = len(targets)
    loss, dW, db = 0.0, np.zeros_like(weights), np.zeros_like(bias)
    for x, t in zip(inputs, targets):
        z = x @ weights + bias
        m = z.max()
        lse = m + np.log(np.exp(z - m).sum())
        loss += lse - z[t]
        p = np.exp(z - lse)
        p[t] -= 1
        dW += np.outer(x, p) / B
        db += p / B
    return loss / B, dW, db
