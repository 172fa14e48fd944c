"""The draft with its three bugs fixed: a stable log-softmax and its gradient in one step, the mean of the rows' losses, the mean's 1/B."""

import numpy as np

EXPECT = "pass"


def linear_loss_and_grad(
    weights: np.ndarray, bias: np.ndarray, inputs: np.ndarray, targets: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    B = inputs.shape[0]
    rows = np.arange(B)
    logits = inputs @ weights + bias  # (B, V)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = float(-log_probs[rows, targets].mean())
    dlogits = np.exp(log_probs)
    dlogits[rows, targets] -= 1.0
    dlogits /= B
    return loss, inputs.T @ dlogits, dlogits.sum(axis=0)
