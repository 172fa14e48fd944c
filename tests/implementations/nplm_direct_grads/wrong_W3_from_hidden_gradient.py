"""dW3 from the gradient at the hidden pre-activations, padded."""

import numpy as np

EXPECT = "how it reaches W3"


def nplm_direct_grads(P, X, Y):
    B, d = X.shape[0], P["E"].shape[1]
    x = P["E"][X].reshape(B, -1)
    h = np.tanh(x @ P["W1"] + P["b1"])
    logits = h @ P["W2"] + P["b2"] + x @ P["W3"]
    dz = np.exp(logits - logits.max(axis=1, keepdims=True))
    dz /= dz.sum(axis=1, keepdims=True)
    dz[np.arange(B), Y] -= 1.0
    dz /= B
    dpre = (dz @ P["W2"].T) * (1.0 - h**2)
    dx = dpre @ P["W1"].T + dz @ P["W3"].T
    dE = np.zeros_like(P["E"])
    np.add.at(dE, X.ravel(), dx.reshape(-1, d))
    dW3 = x.T @ (dz * (1.0 - (h @ P["W2"]) ** 2))
    return {
        "E": dE,
        "W1": x.T @ dpre,
        "b1": dpre.sum(0),
        "W2": h.T @ dz,
        "b2": dz.sum(0),
        "W3": dW3,
    }
