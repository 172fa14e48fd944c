"""Sum over the batch."""

import numpy as np

EXPECT = "exactly B times the contract's"


def nplm_loss(P, X, Y):
    B = X.shape[0]
    x = P["E"][X].reshape(B, -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    if P["W3"] is not None:
        logits = logits + x @ P["W3"]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.sum(lse - logits[np.arange(B), Y])), logits
