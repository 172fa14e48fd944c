"""Minibatches for NumPy training loops, drawn with a named generator."""

from collections.abc import Iterator

import numpy as np


def random_batches(
    X: np.ndarray, Y: np.ndarray, batch_size: int, steps: int, rng: np.random.Generator
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`steps` batches (X[i], Y[i]) of `batch_size` rows drawn uniformly with replacement by `rng`."""
    if len(X) != len(Y) or len(X) == 0:
        raise ValueError(f"need as many inputs as targets, at least one: got {len(X)} and {len(Y)}")
    if batch_size < 1 or steps < 0:
        raise ValueError(f"need batch_size >= 1 and steps >= 0, got {batch_size} and {steps}")
    for _ in range(steps):
        index = rng.integers(0, len(Y), batch_size)
        yield X[index], Y[index]
