"""The draft with two bugs fixed: the logits are still shifted by the batch's max."""

import numpy as np

EXPECT = "what keeps each row's max exponent at 0"


def linear_loss_and_grad(
    weights: np.ndarray, bias: np.ndarray, inputs: np.ndarray, targets: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    B = inputs.shape[0]
    rows = np.arange(B)
    logits = inputs @ weights + bias  # (B, V)
    shifted = logits - logits.max()
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = float(-log_probs[rows, targets].mean())
    dlogits = np.exp(log_probs)
    dlogits[rows, targets] -= 1.0
    dlogits /= B
    return loss, inputs.T @ dlogits, dlogits.sum(axis=0)
