"""NumPy building blocks of neural language models: stable softmax, log-softmax, cross-entropy."""

import numpy as np


def log_softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    """log softmax along `axis`, computed as x - max - log(sum(exp(x - max))) so it never overflows."""
    logits = np.asarray(logits, dtype=np.float64)
    shifted = logits - logits.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    """Probabilities along `axis` that sum to 1, stable for logits of any size."""
    return np.exp(log_softmax(logits, axis))


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> float:
    """Mean over the batch of -log softmax(logits)[target]; logits (B, V), targets (B,) ints."""
    logits, targets = np.asarray(logits), np.asarray(targets)
    if logits.ndim != 2 or targets.ndim != 1 or targets.shape[0] != logits.shape[0]:
        raise ValueError(
            f"expected logits of shape (B, V) and targets of shape (B,), got {logits.shape} and {targets.shape}"
        )
    return float(-log_softmax(logits)[np.arange(len(targets)), targets].mean())


def cross_entropy_grad(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Gradient of the mean cross-entropy with respect to the logits: (softmax - onehot) / B."""
    grad = softmax(logits)
    grad[np.arange(len(targets)), targets] -= 1.0
    return grad / len(targets)
