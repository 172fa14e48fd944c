"""Figures the chapters share: the labelled count heatmap, probability bars, smoothed curves."""

import matplotlib.pyplot as plt
import numpy as np

from proof_lm.demo import full_size


def plot_count_heatmap(
    counts: np.ndarray, itos: list[str], ax: plt.Axes | None = None, labels: bool | None = None
) -> plt.Axes:
    """A (V, V) table as a heatmap, each cell labelled with its bigram and its count.

    The 2 V² labels take seconds to draw; by default they are left out when demonstrations run
    small (`proof_lm.demo`, e.g. while nbgrader grades).
    """
    counts = np.asarray(counts)
    V = len(itos)
    if counts.shape != (V, V):
        raise ValueError(f"expected a ({V}, {V}) table for {V} symbols, got shape {counts.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(14, 14))
    ax.imshow(counts, cmap="Blues")
    threshold = counts.max() / 2
    for row in range(V) if (full_size() if labels is None else labels) else ():
        for col in range(V):
            colour = "white" if counts[row, col] > threshold else "dimgray"
            ax.text(
                col, row, itos[row] + itos[col], ha="center", va="bottom", color=colour, fontsize=7
            )
            value = counts[row, col]
            label = f"{value:g}" if np.issubdtype(counts.dtype, np.floating) else str(value)
            ax.text(col, row, label, ha="center", va="top", color=colour, fontsize=6)
    ax.set_xticks(range(V), itos)
    ax.set_yticks(range(V), itos)
    ax.set_xlabel("next character")
    ax.set_ylabel("previous character")
    return ax


def plot_distribution(
    probs: np.ndarray, labels: list[str], title: str = "", ax: plt.Axes | None = None
) -> plt.Axes:
    """A bar chart of one probability distribution over labelled outcomes."""
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 1 or probs.shape[0] != len(labels):
        raise ValueError(
            f"expected a 1-D array of {len(labels)} probabilities, got shape {probs.shape}"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3))
    ax.bar(range(len(labels)), probs, color="tab:blue")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("probability")
    ax.set_ylim(0, max(1e-9, probs.max()) * 1.1)
    ax.set_title(title)
    return ax


def moving_average(values: list[float] | np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(last index of each window, mean of each window) over `window` consecutive values.

    The window shrinks to the number of values when there are fewer, so a short run (a timed
    demonstration on a busy machine, or run small) still gives a curve.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"expected a non-empty 1-D sequence of values, got shape {values.shape}")
    if window < 1:
        raise ValueError(f"window must be a positive number of values, got {window}")
    window = min(window, len(values))
    means = np.convolve(values, np.ones(window) / window, mode="valid")  # (len - window + 1,)
    return np.arange(window - 1, len(values)), means
