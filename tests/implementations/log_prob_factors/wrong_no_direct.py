"""Ignores W3: the direct connections are left out of the factors."""

import numpy as np

EXPECT = "misses the direct connections"


def log_prob_factors(P: dict, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A (N, r) and the model's B (r, V) with A @ B = the log-probabilities on contexts X."""
    N, V = X.shape[0], P["E"].shape[0]
    x = P["E"][X].reshape(N, -1)  # (N, (n-1)d), oldest embedding first
    h = np.tanh(x @ P["W1"] + P["b1"])  # (N, dh)
    logits = h @ P["W2"] + P["b2"]  # (N, V)
    features, rows = [h], [P["W2"]]
    top = logits.max(axis=1, keepdims=True)
    normaliser = top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True))  # (N, 1)
    A = np.hstack([*features, np.ones((N, 1)), -normaliser])  # (N, r)
    B = np.vstack([*rows, P["b2"][None, :], np.ones((1, V))])  # (r, V)
    return A, B
