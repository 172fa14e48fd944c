"""exp(mean log p): one over the perplexity."""

import numpy as np

EXPECT = "1/perplexity"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        return float(np.exp(np.mean(np.log(token_probs))))
