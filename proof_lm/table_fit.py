"""Gradient descent on a (V, V) logit table from bigram counts alone.

The mean cross-entropy over N bigram pairs depends on the data only through the count table:
loss = -sum_ij counts[i, j] log softmax(W)[i, j] / N, so each step costs O(V^2), not O(N).
"""

import numpy as np
from tqdm.auto import tqdm

from proof_lm.functional import log_softmax


def table_loss_and_grad(
    table: np.ndarray, counts: np.ndarray, weight_decay: float = 0.0
) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of the pairs behind `counts` plus weight_decay * sum(W^2), and its gradient."""
    total = counts.sum()
    if total <= 0:
        raise ValueError("counts are all zero: expected a table of bigram counts")
    log_probs = log_softmax(table)
    rows = counts.sum(axis=1, keepdims=True)
    loss = -(counts * log_probs).sum() / total + weight_decay * (table**2).sum()
    grad = (rows * np.exp(log_probs) - counts) / total + 2 * weight_decay * table
    return float(loss), grad


def fit_table(
    counts: np.ndarray,
    steps: int,
    learning_rate: float,
    weight_decay: float = 0.0,
    target: np.ndarray | None = None,
    progress: bool = False,
) -> tuple[np.ndarray, list[float], list[float]]:
    """Full-batch gradient descent from a zero table; return (table, losses, max |softmax(W) - target|)."""
    table = np.zeros(counts.shape, dtype=np.float64)
    losses, gaps = [], []
    for _ in tqdm(range(steps), disable=not progress, desc="gradient descent"):
        loss, grad = table_loss_and_grad(table, counts, weight_decay)
        losses.append(loss)
        if target is not None:
            gaps.append(float(np.abs(np.exp(log_softmax(table)) - target).max()))
        table -= learning_rate * grad
    return table, losses, gaps
