"""B from an SVD of the log-probabilities on 4,000 contexts drawn with a fixed seed: B depends on the
model alone, but its rows span only what those contexts show; a direction that a rare context
switches on is missing."""

import numpy as np

EXPECT = "differ"


def _log_probs(P, X):
    x = P["E"][X].reshape(X.shape[0], -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))


def log_prob_factors(P, X):
    V = P["E"].shape[0]
    sample = np.random.default_rng(0).integers(0, V, (4000, X.shape[1]))
    _, S, Vt = np.linalg.svd(_log_probs(P, sample), full_matrices=False)
    B = Vt[: int((S > S[0] * 1e-10).sum())]
    return _log_probs(P, X) @ B.T, B
