"""Log-sum-exp by np.logaddexp.reduce, gradients by einsum and an explicit one-hot matrix."""

import numpy as np

EXPECT = "pass"


def linear_loss_and_grad(weights, bias, inputs, targets):
    B, V = inputs.shape[0], weights.shape[1]
    z = np.einsum("bd,dv->bv", inputs, weights) + bias
    log_p = z - np.logaddexp.reduce(z, axis=1, keepdims=True)
    onehot = np.eye(V)[targets]
    loss = -np.einsum("bv,bv->", onehot, log_p) / B
    dz = (np.exp(log_p) - onehot) / B
    return float(loss), np.einsum("bd,bv->dv", inputs, dz), np.einsum("bv->v", dz)
