"""Factors the logits: no normaliser column."""

import numpy as np

EXPECT = "gives the logits, not the log-probabilities"


def log_prob_factors(P: dict, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A (N, r) and the model's B (r, V) with A @ B = the log-probabilities on contexts X."""
    N = X.shape[0]
    x = P["E"][X].reshape(N, -1)  # (N, (n-1)d), oldest embedding first
    h = np.tanh(x @ P["W1"] + P["b1"])  # (N, dh)
    logits = h @ P["W2"] + P["b2"]  # (N, V)
    features, rows = [h], [P["W2"]]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
        features, rows = [h, x], [P["W2"], P["W3"]]
    A = np.hstack([*features, np.ones((N, 1))])  # (N, r)
    B = np.vstack([*rows, P["b2"][None, :]])  # (r, V)
    return A, B
