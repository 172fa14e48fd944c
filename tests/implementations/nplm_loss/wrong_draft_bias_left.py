"""The draft with two bugs fixed: b1 is still added after tanh."""

import numpy as np

EXPECT = "hidden layer's bias"


def nplm_loss(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    B = X.shape[0]
    x = P["E"][X].reshape(B, -1)
    h = np.tanh(x @ P["W1"]) + P["b1"]
    logits = h @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits += x @ P["W3"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(B), Y].mean()), logits
