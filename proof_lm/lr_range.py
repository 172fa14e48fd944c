"""The learning-rate range test: train briefly while the rate grows geometrically, watch the loss."""

from collections.abc import Callable

import numpy as np


def geometric_rates(start: float, stop: float, steps: int) -> np.ndarray:
    """`steps` learning rates from `start` to `stop`, evenly spaced on a log scale."""
    if not 0 < start < stop or steps < 2:
        raise ValueError(f"need 0 < start < stop and steps >= 2, got {start}, {stop}, {steps}")
    return np.geomspace(start, stop, steps)


def lr_range_test(
    train_step: Callable[[float], float], rates: np.ndarray, blow_up: float = 4.0
) -> np.ndarray:
    """Loss of one `train_step(rate)` per rate, in order; stops (nan after) once the loss exceeds `blow_up` x its best."""
    losses = np.full(len(rates), np.nan)
    best = np.inf
    for i, rate in enumerate(rates):
        losses[i] = train_step(float(rate))
        best = min(best, losses[i])
        if not np.isfinite(losses[i]) or losses[i] > blow_up * best:
            break
    return losses


def smooth(values: np.ndarray, beta: float = 0.9) -> np.ndarray:
    """Exponential moving average started at the first value (nan stays nan), as plotted in range tests."""
    out = np.full(len(values), np.nan)
    average = values[0] if len(values) else np.nan
    for i, value in enumerate(values):
        if np.isnan(value):
            break
        average = beta * average + (1 - beta) * value
        out[i] = average
    return out


def suggest_rate(rates: np.ndarray, losses: np.ndarray, factor: float = 3.0) -> float:
    """The rate where the smoothed loss is lowest, divided by `factor` (safely before the blow-up)."""
    smoothed = smooth(np.asarray(losses, dtype=np.float64))
    if np.isnan(smoothed).all():
        raise ValueError("no finite loss to choose from")
    return float(rates[int(np.nanargmin(smoothed))] / factor)
