"""The backward pass in float32 (as a GPU would), gradients handed back as float64."""

import numpy as np

EXPECT = "pass"


def nplm_grads(P, X, Y):
    E, W1, b1, W2, b2 = (np.asarray(P[k], dtype=np.float32) for k in ("E", "W1", "b1", "W2", "b2"))
    B, d = X.shape[0], E.shape[1]
    x = E[X].reshape(B, -1)
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    dz = np.exp(logits - logits.max(axis=1, keepdims=True))
    dz /= dz.sum(axis=1, keepdims=True)
    dz[np.arange(B), Y] -= 1
    dz /= B
    dpre = (dz @ W2.T) * (1 - h * h)
    dE = np.zeros_like(E)
    np.add.at(dE, X.ravel(), (dpre @ W1.T).reshape(-1, d))
    grads = {
        "E": dE,
        "W1": x.T @ dpre,
        "b1": dpre.sum(axis=0),
        "W2": h.T @ dz,
        "b2": dz.sum(axis=0),
    }
    return {name: g.astype(np.float64) for name, g in grads.items()}
