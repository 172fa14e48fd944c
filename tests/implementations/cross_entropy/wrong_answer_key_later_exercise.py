"""The chapter's later exercise, label smoothing at eps = 0, with its own cell not done yet."""

import numpy as np

EXPECT = "not implemented yet"


def cross_entropy(logits, targets):
    logits, targets = np.asarray(logits), np.asarray(targets)
    if logits.ndim != 2 or targets.shape != (logits.shape[0],):
        raise ValueError("logits must be (B, V) and targets (B,)")
    return label_smoothing_loss_and_grad(logits, targets, 0.0)[0]


def label_smoothing_loss_and_grad(logits, targets, eps):
    raise NotImplementedError  # the released stub: a later exercise's reference would answer
