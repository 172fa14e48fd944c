"""Factors the probabilities: exp of the log-probabilities, rank and all."""

import numpy as np

EXPECT = "probabilities, not log-probabilities"


def log_prob_factors(P, X):
    N, V = X.shape[0], P["E"].shape[0]
    x = P["E"][X].reshape(N, -1)
    h = np.tanh(x @ P["W1"] + P["b1"])
    logits = h @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
    top = logits.max(axis=1, keepdims=True)
    probs = np.exp(logits - top)
    return probs / probs.sum(axis=1, keepdims=True), np.eye(V)
