"""What to watch while training: tanh saturation, the gain that keeps activations alive, update-to-data ratios."""

import numpy as np


def saturation(h: np.ndarray, threshold: float = 0.97) -> float:
    """Fraction of tanh activations with |h| > threshold (where tanh is nearly flat: little gradient passes)."""
    return float((np.abs(h) > threshold).mean())


def tanh_gain(points: int = 200) -> float:
    """1 / sqrt(E[tanh(z)^2]) for z ~ N(0, 1), by Gauss-Hermite quadrature: the gain that keeps the variance at 1."""
    z, w = np.polynomial.hermite_e.hermegauss(points)  # weight exp(-z^2 / 2)
    return float(1.0 / np.sqrt((w * np.tanh(z) ** 2).sum() / w.sum()))


def tanh_stack(
    x: np.ndarray, depth: int, width: int, gain: float, rng: np.random.Generator
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Activations and their gradients in a deep tanh stack with weights N(0, gain^2 / fan_in).

    The loss is a fixed random readout of the last layer, so the gradients are what backpropagation
    would deliver to each layer. Returns ([h_1 .. h_depth], [dL/dh_1 .. dL/dh_depth]), each (B, width).
    """
    import torch

    h = torch.tensor(x, dtype=torch.float64, requires_grad=True)  # (B, fan_in)
    layers = []
    for _ in range(depth):
        W = rng.normal(size=(h.shape[1], width)) * gain / np.sqrt(h.shape[1])
        h = torch.tanh(h @ torch.from_numpy(W))  # (B, width)
        h.retain_grad()
        layers.append(h)
    readout = rng.normal(size=tuple(h.shape)) / h.shape[0]  # dL/dh of the last layer
    (h * torch.from_numpy(readout)).sum().backward()  # autograd delivers dL/dh to every layer
    return [h.detach().numpy() for h in layers], [h.grad.numpy() for h in layers]


def update_to_data(before: dict, after: dict) -> dict[str, float]:
    """log10(std(after - before) / std(after)) per parameter: about -3 is a healthy step size."""
    return {
        name: float(np.log10(np.std(after[name] - before[name]) / np.std(after[name])))
        for name in before
        if before[name] is not None and np.std(after[name]) > 0
    }
