"""Both paths in float32, gradients handed back as float64."""

import numpy as np

EXPECT = "pass"


def nplm_direct_grads(P, X, Y):
    names = ("E", "W1", "b1", "W2", "b2", "W3")
    E, W1, b1, W2, b2, W3 = (np.asarray(P[k], dtype=np.float32) for k in names)
    B, d = X.shape[0], E.shape[1]
    x = E[X].reshape(B, -1)
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2 + x @ W3
    dz = np.exp(logits - logits.max(axis=1, keepdims=True))
    dz /= dz.sum(axis=1, keepdims=True)
    dz[np.arange(B), Y] -= 1
    dz /= B
    dpre = (dz @ W2.T) * (1 - h**2)
    dx = dpre @ W1.T + dz @ W3.T
    dE = np.zeros_like(E)
    np.add.at(dE, X.ravel(), dx.reshape(-1, d))
    grads = [dE, x.T @ dpre, dpre.sum(axis=0), h.T @ dz, dz.sum(axis=0), x.T @ dz]
    return {name: g.astype(np.float64) for name, g in zip(names, grads, strict=True)}
