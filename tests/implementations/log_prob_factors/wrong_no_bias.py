"""Forgets the output bias row."""

import numpy as np

EXPECT = "misses the output bias"


def log_prob_factors(P: dict, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A (N, r) and the model's B (r, V) with A @ B = the log-probabilities on contexts X."""
    N, V = X.shape[0], P["E"].shape[0]
    x = P["E"][X].reshape(N, -1)  # (N, (n-1)d), oldest embedding first
    h = np.tanh(x @ P["W1"] + P["b1"])  # (N, dh)
    logits = h @ P["W2"] + P["b2"]  # (N, V)
    features, rows = [h], [P["W2"]]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
        features, rows = [h, x], [P["W2"], P["W3"]]
    top = logits.max(axis=1, keepdims=True)
    normaliser = top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True))  # (N, 1)
    shifted = logits - P["b2"]
    top = shifted.max(axis=1, keepdims=True)
    normaliser = top + np.log(np.exp(shifted - top).sum(axis=1, keepdims=True))
    A = np.hstack([*features, -normaliser])  # (N, r)
    B = np.vstack([*rows, np.ones((1, V))])  # (r, V)
    return A, B
