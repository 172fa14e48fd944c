"""Gradient descent on a (V, V) logit table from bigram counts alone.

The mean cross-entropy over N bigram pairs depends on the data only through the count table:
loss = -sum_ij counts[i, j] log softmax(W)[i, j] / N, so each step costs O(V^2), not O(N). The
gradient is PyTorch's autograd (imported when called): chapter 02 asks you to derive it.
"""

from collections.abc import Callable, Sequence

import numpy as np
from tqdm.auto import tqdm


def _descend(
    counts: np.ndarray,
    steps: int,
    learning_rate: float,
    weight_decays: Sequence[float],
    progress: bool = False,
    record: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Full-batch gradient descent from zero tables, one per weight decay, side by side: the final
    tables (k, V, V); `record(tables, losses (k,))` sees each step's tables and losses before it."""
    import torch

    if len(weight_decays) == 0:
        raise ValueError("expected at least one weight decay")
    if counts.sum() <= 0:
        raise ValueError("counts are all zero: expected a table of bigram counts")
    total = float(counts.sum())
    C = torch.as_tensor(np.ascontiguousarray(counts, dtype=np.float64))  # (V, V)
    decay = torch.tensor(list(weight_decays), dtype=torch.float64)  # (k,)
    W = torch.zeros((len(weight_decays), *C.shape), dtype=torch.float64, requires_grad=True)
    for _ in tqdm(range(steps), disable=not progress, desc="gradient descent"):
        nll = -(C * torch.log_softmax(W, dim=-1)).sum(dim=(-2, -1)) / total
        losses = nll + decay * (W**2).sum(dim=(-2, -1))  # (k,)
        (grad,) = torch.autograd.grad(losses.sum(), W)  # each table's gradient is its own loss's
        if record is not None:
            record(W.detach().numpy(), losses.detach().numpy())
        with torch.no_grad():
            W -= learning_rate * grad
    return W.detach().numpy()


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

    losses, gaps = [], []

    def record(tables: np.ndarray, step_losses: np.ndarray) -> None:
        losses.append(float(step_losses[0]))
        if target is not None:
            probs = torch.softmax(torch.from_numpy(tables[0]), dim=1).numpy()
            gaps.append(float(np.abs(probs - target).max()))

    table = _descend(counts, steps, learning_rate, [weight_decay], progress, record)[0]
    return table, losses, gaps


def fit_tables(
    counts: np.ndarray, steps: int, learning_rate: float, weight_decays: Sequence[float]
) -> np.ndarray:
    """`fit_table`'s final table for each weight decay, fitted side by side: (len(weight_decays), V, V)."""
    return _descend(counts, steps, learning_rate, weight_decays)
