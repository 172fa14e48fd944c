"""An explicit per-example loop."""

import numpy as np

EXPECT = "pass"


def nplm_grads(P, X, Y):
    B, d = X.shape[0], P["E"].shape[1]
    g = {k: np.zeros_like(P[k]) for k in ["E", "W1", "b1", "W2", "b2"]}
    for context, target in zip(X, Y):
        x = np.concatenate([P["E"][i] for i in context])
        h = np.tanh(x @ P["W1"] + P["b1"])
        z = h @ P["W2"] + P["b2"]
        p = np.exp(z - z.max())
        p /= p.sum()
        p[target] -= 1
        dz = p / B
        g["W2"] += np.outer(h, dz)
        g["b2"] += dz
        dpre = (P["W2"] @ dz) * (1 - h**2)
        g["W1"] += np.outer(x, dpre)
        g["b1"] += dpre
        dx = P["W1"] @ dpre
        for k, i in enumerate(context):
            g["E"][i] += dx[k * d : (k + 1) * d]
    return g
