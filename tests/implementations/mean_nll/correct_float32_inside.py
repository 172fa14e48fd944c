"""Takes the logs in float32: right to float32's 7 digits, which the checks accept."""

import math

import numpy as np

EXPECT = "pass"


def mean_nll(probs, words, stoi):
    logs = []
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        p = probs[ids[:-1], ids[1:]].astype(np.float32)
        if np.any(p == 0):
            return math.inf
        logs.append(-np.log(p))
    return float(np.concatenate(logs).mean(dtype=np.float32))
