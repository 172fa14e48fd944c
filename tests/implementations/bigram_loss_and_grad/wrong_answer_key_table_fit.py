"""The library's loss and gradient of a logit table, fed the pairs' counts."""

import numpy as np

from proof_lm.table_fit import table_loss_and_grad

EXPECT = "answer-key rule"


def bigram_loss_and_grad(table, previous, targets):
    counts = np.zeros(np.shape(table))
    np.add.at(counts, (previous, targets), 1.0)
    return table_loss_and_grad(np.asarray(table, dtype=float), counts)
