"""Gradient descent on a (V, V) logit table from bigram counts alone.

The mean cross-entropy over N bigram pairs depends on the data only through the count table:
loss = -sum_ij counts[i, j] log softmax(W)[i, j] / N, so each step costs O(V^2), not O(N). The
gradient is PyTorch's autograd (imported when called): chapter 02 asks you to derive it.
"""

from collections.abc import Sequence

import numpy as np
from tqdm.auto import tqdm


def table_loss_and_grad(
    table: np.ndarray, counts: np.ndarray, weight_decay: float = 0.0
) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of the pairs behind `counts` plus weight_decay * sum(W^2), and its gradient."""
    import torch

    total = counts.sum()
    if total <= 0:
        raise ValueError("counts are all zero: expected a table of bigram counts")
    W = torch.tensor(np.ascontiguousarray(table, dtype=np.float64), requires_grad=True)
    counts = torch.as_tensor(np.ascontiguousarray(counts, dtype=np.float64))
    loss = -(counts * torch.log_softmax(W, dim=1)).sum() / total + weight_decay * (W**2).sum()
    loss.backward()
    return loss.item(), W.grad.numpy()


def fit_table(
    counts: np.ndarray,
    steps: int,
    learning_rate: float,
    weight_decay: float = 0.0,
    target: np.ndarray | None = None,
    progress: bool = False,
) -> tuple[np.ndarray, list[float], list[float]]:
    """Full-batch gradient descent from a zero table; return (table, losses, max |softmax(W) - target|)."""
    import torch

    table = np.zeros(counts.shape, dtype=np.float64)
    losses, gaps = [], []
    for _ in tqdm(range(steps), disable=not progress, desc="gradient descent"):
        loss, grad = table_loss_and_grad(table, counts, weight_decay)
        losses.append(loss)
        if target is not None:
            probs = torch.softmax(torch.from_numpy(table), dim=1).numpy()
            gaps.append(float(np.abs(probs - target).max()))
        table -= learning_rate * grad
    return table, losses, gaps


def fit_tables(
    counts: np.ndarray, steps: int, learning_rate: float, weight_decays: Sequence[float]
) -> np.ndarray:
    """`fit_table`'s final table for each weight decay, fitted side by side: (len(weight_decays), V, V)."""
    import torch

    if len(weight_decays) == 0:
        raise ValueError("expected at least one weight decay")
    if counts.sum() <= 0:
        raise ValueError("counts are all zero: expected a table of bigram counts")
    total = float(counts.sum())
    C = torch.as_tensor(np.ascontiguousarray(counts, dtype=np.float64))  # (V, V)
    decay = torch.tensor(list(weight_decays), dtype=torch.float64).view(-1, 1, 1)  # (k, 1, 1)
    W = torch.zeros((len(weight_decays), *C.shape), dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        # the k losses summed: each table's gradient is that of its own loss
        loss = -(C * torch.log_softmax(W, dim=-1)).sum() / total + (decay * W**2).sum()
        (grad,) = torch.autograd.grad(loss, W)
        with torch.no_grad():
            W -= learning_rate * grad
    return W.detach().numpy()
