"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator: gather the needed probabilities, mean of -log."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def mean_nll(probs, words, stoi):
    ids = [stoi[ch] for w in words for ch in "." + w + "."]
    pairs = [(stoi[a], stoi[b]) for w in words for a, b in zip("." + w, w + ".", strict=True)]
    del ids
    p = torch.tensor(np.asarray(probs, dtype=np.float64))
    rows, cols = zip(*pairs, strict=True)
    return float(-torch.log(p[list(rows), list(cols)]).mean())
