"""The library's perplexity of a mean NLL."""

import numpy as np

from proof_lm.metrics import ppl

EXPECT = "answer-key rule"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        return ppl(float(-np.mean(np.log(np.asarray(token_probs, dtype=float)))))
