"""The draft with two bugs fixed: it still averages the words' means."""

import numpy as np

EXPECT = "the mean of each word's mean"


def mean_nll(probs: np.ndarray, words: list[str], stoi: dict[str, int]) -> float:
    """The catalogued draft, as its file\'s docstring says."""
    word_losses = []
    for word in words:
        ids = np.array([stoi[ch] for ch in "." + word + "."])
        previous, following = ids[:-1], ids[1:]
        word_losses.append(-np.log(probs[previous, following]).mean())
    return float(np.mean(word_losses))
