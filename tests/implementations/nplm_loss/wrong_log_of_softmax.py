"""Stable softmax, then log of it: -inf once a target's probability underflows to 0."""

import numpy as np

EXPECT = "log-softmax is not numerically stable"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    x = P["E"][X].reshape(B, -1)
    h = np.tanh(x @ P["W1"] + P["b1"])
    logits = h @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(B), Y]).mean()), logits
