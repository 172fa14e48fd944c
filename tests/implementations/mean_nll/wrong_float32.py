"""Takes the logs in float32: right to about 7 digits only."""

import math

import numpy as np

EXPECT = "float64"


def mean_nll(probs, words, stoi):
    logs = []
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        p = probs[ids[:-1], ids[1:]].astype(np.float32)
        if np.any(p == 0):
            return math.inf
        logs.append(-np.log(p))
    return float(np.concatenate(logs).mean(dtype=np.float32))
