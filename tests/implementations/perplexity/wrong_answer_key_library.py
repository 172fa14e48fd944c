"""The library's perplexity of a mean NLL."""

import numpy as np

from proof_lm.metrics import perplexity_from_nll

EXPECT = "answer-key rule"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        return perplexity_from_nll(float(-np.mean(np.log(np.asarray(token_probs, dtype=float)))))
