"""Ignores W3."""

import numpy as np

EXPECT = "W3 is given"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    x = P["E"][X].reshape(B, -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(B), Y])), logits
