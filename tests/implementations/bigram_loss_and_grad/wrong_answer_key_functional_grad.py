"""The library's cross-entropy gradient, scattered by hand."""

import numpy as np

from proof_lm.functional import cross_entropy, cross_entropy_grad

EXPECT = "answer-key rule"


def bigram_loss_and_grad(table, previous, targets):
    grad = np.zeros(np.shape(table))
    np.add.at(grad, previous, cross_entropy_grad(table[previous], targets))
    return cross_entropy(table[previous], targets), grad
