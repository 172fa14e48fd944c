"""The MLP language model on NumPy arrays: parameters as a dict of arrays, forward pass, loss and gradients.

Arrays in and out; the forward pass runs on PyTorch's tensors (imported when called) and the
gradients come from its autograd, so the library holds no answer to chapter 03's and 04's exercises.
"""

import math

import numpy as np

NAMES = ("E", "W1", "b1", "W2", "b2", "W3")


def _tensor_forward(P: dict, X: np.ndarray, grad: bool = False):
    """(logits (B, V) as a tensor, the parameters as float64 tensors) for contexts X (B, n-1)."""
    import torch

    T = {
        k: torch.tensor(np.ascontiguousarray(P[k], dtype=np.float64), requires_grad=grad)
        for k in NAMES
        if P.get(k) is not None
    }
    x = T["E"][torch.as_tensor(np.ascontiguousarray(X), dtype=torch.int64)].flatten(
        1
    )  # (B, (n-1)d)
    logits = torch.tanh(x @ T["W1"] + T["b1"]) @ T["W2"] + T["b2"]
    return (logits if "W3" not in T else logits + x @ T["W3"]), T


def _targets(Y: np.ndarray):
    """Y as int64 targets; ValueError for an id below 0 (which cross_entropy would skip or wrap)."""
    import torch

    Y = torch.as_tensor(np.ascontiguousarray(Y), dtype=torch.int64)
    if bool((Y < 0).any()):
        raise ValueError("targets must be ids >= 0")
    return Y


def nplm_logits(P: dict, X: np.ndarray) -> np.ndarray:
    """Logits (B, V) for contexts X (B, n-1), oldest first; P has E, W1, b1, W2, b2 and W3 (or None)."""
    return _tensor_forward(P, X)[0].numpy()


def nplm_mean_loss(P: dict, X: np.ndarray, Y: np.ndarray) -> float:
    """Mean cross-entropy of the model on (X, Y) (PyTorch's, stable for any logits)."""
    import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

    logits, _ = _tensor_forward(P, X)
    return F.cross_entropy(logits, _targets(Y)).item()


def init_nplm(
    V: int, d: int, context: int, dh: int, rng: np.random.Generator, gain: float = 5 / 3
) -> dict:
    """Random parameters: unit-normal embeddings, fan-in scaled tanh layer (gain), small output layer.

    Drawn from `rng` and scaled as PyTorch tensors, returned as float64 arrays.
    """
    import torch

    def normal(*shape: int) -> torch.Tensor:
        return torch.from_numpy(rng.normal(size=shape))

    return {
        "E": normal(V, d).numpy(),
        "W1": (normal(context * d, dh) * gain / math.sqrt(context * d)).numpy(),
        "b1": torch.zeros(dh, dtype=torch.float64).numpy(),
        "W2": (normal(dh, V) * 0.1).numpy(),
        "b2": torch.zeros(V, dtype=torch.float64).numpy(),
        "W3": None,
    }


def nplm_loss_and_grads(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
    """Mean cross-entropy and its gradients for E, W1, b1, W2, b2 (no direct connections), by autograd."""
    import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

    if P.get("W3") is not None:
        raise ValueError("nplm_loss_and_grads handles models without direct connections (W3=None)")
    logits, T = _tensor_forward(P, X, grad=True)
    loss = F.cross_entropy(logits, _targets(Y))
    loss.backward()
    return loss.item(), {k: T[k].grad.numpy() for k in ("E", "W1", "b1", "W2", "b2")}
