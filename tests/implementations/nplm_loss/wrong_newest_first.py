"""Concatenates the newest embedding first."""

import numpy as np

EXPECT = "concatenated newest first"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    x = P["E"][X[:, ::-1]].reshape(B, -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - logits[np.arange(B), Y])), logits
