"""Splits dx into blocks the wrong way: reshape(B, d, n-1) interleaves the embedding coordinates."""

import numpy as np

EXPECT = "dE is wrong"


def nplm_grads(P, X, Y):
    B, c = X.shape
    d = P["E"].shape[1]
    x = P["E"][X].reshape(B, -1)
    h = np.tanh(x @ P["W1"] + P["b1"])
    z = h @ P["W2"] + P["b2"]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(B), Y] -= 1
    dz = p / B
    dpre = (dz @ P["W2"].T) * (1 - h**2)
    dx = dpre @ P["W1"].T
    blocks = dx.reshape(B, d, c).transpose(0, 2, 1)  # the slip: coordinates interleaved
    dE = np.zeros_like(P["E"])
    np.add.at(dE, X.ravel(), blocks.reshape(-1, d))
    return {"E": dE, "W1": x.T @ dpre, "b1": dpre.sum(0), "W2": h.T @ dz, "b2": dz.sum(0)}
