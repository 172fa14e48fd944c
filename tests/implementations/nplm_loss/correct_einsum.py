"""Embeddings by a loop over positions, products by einsum, log-sum-exp by np.logaddexp.reduce."""

import numpy as np

EXPECT = "pass"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    x = np.concatenate([P["E"][X[:, k]] for k in range(X.shape[1])], axis=1)
    h = np.tanh(np.einsum("bi,ih->bh", x, P["W1"]) + P["b1"])
    logits = np.einsum("bh,hv->bv", h, P["W2"]) + P["b2"]
    if P["W3"] is not None:
        logits = logits + np.einsum("bi,iv->bv", x, P["W3"])
    log_p = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    return float(-log_p[np.arange(B), Y].sum() / B), logits
