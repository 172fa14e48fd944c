"""The draft with its three bugs fixed."""

import numpy as np

EXPECT = "pass"


def mean_nll(probs: np.ndarray, words: list[str], stoi: dict[str, int]) -> float:
    """The catalogued draft, as its file\'s docstring says."""
    nll = []  # one array of -ln P per word
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        p = probs[ids[:-1], ids[1:]]  # P(next | previous) at each predicted position
        nll.append(-np.log(p))  # nats per predicted symbol
    return float(np.concatenate(nll).mean())  # the mean per symbol
