"""The draft with two bugs fixed: the loss is still the log of a probability, and its gradient goes through 1/p."""

import numpy as np

EXPECT = "the log of a rounded-off probability finite"


def linear_loss_and_grad(
    weights: np.ndarray, bias: np.ndarray, inputs: np.ndarray, targets: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    B = inputs.shape[0]
    rows = np.arange(B)
    logits = inputs @ weights + bias  # (B, V)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)  # softmax, (B, V)
    loss = float(-np.log(probs[rows, targets]).mean())
    dprobs = np.zeros_like(probs)
    dprobs[rows, targets] = -1.0 / (B * probs[rows, targets])  # d(-log p)/dp at each target
    dlogits = probs * (dprobs - (dprobs * probs).sum(axis=1, keepdims=True))  # back through softmax
    return loss, inputs.T @ dlogits, dlogits.sum(axis=0)
