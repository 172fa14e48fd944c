"""einsum in float32 for the layers, logits handed back as float64."""

import numpy as np

EXPECT = "pass"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    E, W1, b1, W2, b2 = (np.asarray(P[k], dtype=np.float32) for k in ("E", "W1", "b1", "W2", "b2"))
    x = E[X].reshape(B, -1)
    h = np.tanh(np.einsum("bi,ij->bj", x, W1) + b1)
    logits = np.einsum("bj,jv->bv", h, W2) + b2
    if P["W3"] is not None:
        logits = logits + np.einsum("bi,iv->bv", x, np.asarray(P["W3"], dtype=np.float32))
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(B), Y].mean()), logits.astype(np.float64)
