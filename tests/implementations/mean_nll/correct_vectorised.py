"""All pairs at once; -log(0) = inf propagates through the mean."""

import numpy as np

EXPECT = "pass"


def mean_nll(probs, words, stoi):
    text = "".join("." + w for w in words) + "."
    ids = np.array([stoi[c] for c in text])
    starts = np.arange(len(text) - 1)  # ".ab.b." shares each boundary dot
    p = probs[ids[starts], ids[starts + 1]]
    with np.errstate(divide="ignore"):
        return float(np.mean(-np.log(p)))
