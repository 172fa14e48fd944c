"""The draft with two bugs fixed: it still averages the words' means."""

import numpy as np

EXPECT = "the mean of each word's mean"


def mean_nll(probs: np.ndarray, words: list[str], stoi: dict[str, int]) -> float:
    """The catalogued draft, as its file\'s docstring says."""
    nll = []  # one array of -ln P per word
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        p = probs[ids[:-1], ids[1:]]  # P(next | previous) at each predicted position
        nll.append(-np.log(p))  # nats per predicted symbol
    return float(np.mean([word_nll.mean() for word_nll in nll]))  # the mean per symbol
