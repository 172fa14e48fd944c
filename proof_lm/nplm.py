"""The MLP language model in plain NumPy: parameters as a dict of arrays, forward pass, loss and gradients."""

import numpy as np

from proof_lm.functional import cross_entropy, cross_entropy_grad, log_softmax


def nplm_logits(P: dict, X: np.ndarray) -> np.ndarray:
    """Logits (B, V) for contexts X (B, n-1), oldest first; P has E, W1, b1, W2, b2 and W3 (or None)."""
    x = P["E"][X].reshape(X.shape[0], -1)  # (B, (n-1)d)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    return logits if P.get("W3") is None else logits + x @ P["W3"]


def nplm_mean_loss(P: dict, X: np.ndarray, Y: np.ndarray) -> float:
    """Mean cross-entropy of the model on (X, Y), computed with a stable log-softmax."""
    return float(-log_softmax(nplm_logits(P, X))[np.arange(len(Y)), Y].mean())


def init_nplm(
    V: int, d: int, context: int, dh: int, rng: np.random.Generator, gain: float = 5 / 3
) -> dict:
    """Random parameters: unit-normal embeddings, fan-in scaled tanh layer (gain), small output layer."""
    return {
        "E": rng.normal(size=(V, d)),
        "W1": rng.normal(size=(context * d, dh)) * gain / np.sqrt(context * d),
        "b1": np.zeros(dh),
        "W2": rng.normal(size=(dh, V)) * 0.1,
        "b2": np.zeros(V),
        "W3": None,
    }


def nplm_loss_and_grads(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
    """Mean cross-entropy and its gradients for E, W1, b1, W2, b2 (no direct connections)."""
    if P.get("W3") is not None:
        raise ValueError("nplm_loss_and_grads handles models without direct connections (W3=None)")
    B, d = X.shape[0], P["E"].shape[1]
    x = P["E"][X].reshape(B, -1)  # (B, (n-1)d)
    h = np.tanh(x @ P["W1"] + P["b1"])  # (B, dh)
    logits = h @ P["W2"] + P["b2"]  # (B, V)
    dz = cross_entropy_grad(logits, Y)  # (B, V), already divided by B
    dpre = (dz @ P["W2"].T) * (1.0 - h**2)  # (B, dh)
    dE = np.zeros_like(P["E"])
    np.add.at(dE, X.ravel(), (dpre @ P["W1"].T).reshape(-1, d))  # scatter-add, oldest first
    grads = {"E": dE, "W1": x.T @ dpre, "b1": dpre.sum(0), "W2": h.T @ dz, "b2": dz.sum(0)}
    return cross_entropy(logits, Y), grads
