"""A stable log-softmax that shifts the logits in place, and so returns the shifted ones."""

import numpy as np

EXPECT = "minus a constant in each row"


def nplm_loss(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """The catalogued implementation, as its file\'s docstring says."""
    B = X.shape[0]
    x = P["E"][X].reshape(B, -1)  # (B, (n-1)d)
    h = np.tanh(x @ P["W1"] + P["b1"])  # (B, dh)
    logits = h @ P["W2"] + P["b2"]  # (B, V)
    if P["W3"] is not None:
        logits += x @ P["W3"]
    logits -= logits.max(axis=-1, keepdims=True)  # stable: no exponent above 0
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(B), Y].mean()), logits
