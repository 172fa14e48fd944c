"""The draft with two bugs fixed: rows and columns of probs are still swapped."""

import numpy as np

EXPECT = "rows and columns are swapped"


def mean_nll(probs: np.ndarray, words: list[str], stoi: dict[str, int]) -> float:
    """The catalogued draft, as its file\'s docstring says."""
    word_losses = []
    for word in words:
        ids = np.array([stoi[ch] for ch in "." + word + "."])
        previous, following = ids[:-1], ids[1:]
        word_losses.append(-np.log(probs[following, previous]))
    return float(np.concatenate(word_losses).mean())
