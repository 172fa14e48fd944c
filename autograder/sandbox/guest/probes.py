"""The sgd_train probe and its problems: trusted code that builds callables in the grading process.

Mounted in every grading sandbox with the rest of `autograder.sandbox.guest`; in the sandboxes of the
exercises it answers (linear_loss_and_grad, bigram_loss_and_grad) the softmax regression that drives
sgd_train is cut out and refuses to run (`autograder.judge.answer_key.GRADER_ANSWERS`).

A probe is called as probe(student_fn, *plain_args) and returns plain data only. Whatever it
reports is judged by the parent against references the parent computed itself.
"""

from collections.abc import Callable

import numpy as np


def softmax_regression(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
    """Mean cross-entropy of X @ W + b and its gradients for W and b (P may hold other entries)."""
    logits = X @ P["W"] + P["b"]  # (B, V)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    B = len(Y)
    dz = np.exp(log_probs)
    dz[np.arange(B), Y] -= 1.0
    dz /= B
    return float(-log_probs[np.arange(B), Y].mean()), {"W": X.T @ dz, "b": dz.sum(axis=0)}


def least_squares(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
    """Half the mean squared error of X @ w + c (c a 0-d array) and its gradients."""
    residual = X @ P["w"] + P["c"] - Y  # (B,)
    B = len(Y)
    return float(0.5 * np.mean(residual**2)), {
        "w": X.T @ residual / B,
        "c": np.array(residual.sum() / B),
    }


def paired_vectors(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
    """Half the mean squared error of X @ u + tanh(X) @ w: two parameters of one shape, their
    gradients handed back in the other order (w first)."""
    features = np.tanh(X)
    residual = X @ P["u"] + features @ P["w"] - Y  # (B,)
    B = len(Y)
    return float(0.5 * np.mean(residual**2)), {
        "w": features.T @ residual / B,
        "u": X.T @ residual / B,
    }


PROBLEMS = {
    "softmax_regression": softmax_regression,
    "least_squares": least_squares,
    "paired_vectors": paired_vectors,
}


def sgd_train_probe(
    fn: Callable,
    params: dict,
    problem: str,
    batches: list,
    learning_rate: float,
    as_generator: bool,
) -> dict:
    """Run sgd_train with the trusted loss_and_grads of `problem`; log the parameters of every call.

    Reports the losses returned, the entries of `params` afterwards (updated in place or replaced in
    the dict, both are fine) and a copy of the parameters loss_and_grads saw at each call.
    """
    params = {k: None if v is None else np.array(v, dtype=np.float64) for k, v in params.items()}
    seen: list[dict] = []
    handed: list[tuple[dict, dict]] = []  # the gradient arrays handed out, and copies of them

    def loss_and_grads(P: dict, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict]:
        seen.append({k: np.array(v, copy=True) for k, v in P.items() if v is not None})
        loss, grads = PROBLEMS[problem](P, X, Y)
        handed.append((dict(grads), {k: g.copy() for k, g in grads.items()}))
        return loss, grads

    pairs = [(np.array(X), np.array(Y)) for X, Y in batches]
    copies = [(X.copy(), Y.copy()) for X, Y in pairs]
    losses = fn(
        params, loss_and_grads, (pair for pair in pairs) if as_generator else pairs, learning_rate
    )
    grads_modified = sorted(
        {k for grads, kept in handed for k, g in grads.items() if not np.array_equal(g, kept[k])}
    )
    batches_modified = any(
        not (np.array_equal(X, X0) and np.array_equal(Y, Y0))
        for (X, Y), (X0, Y0) in zip(pairs, copies, strict=True)
    )
    return {
        "losses": losses,
        "params": params,
        "seen": seen,
        "grads_modified": grads_modified,
        "batches_modified": batches_modified,
    }


def _type_names(value: object) -> object:
    """The exact type name of `value`, or for a pair (a tuple or list) the list of its items'."""
    if isinstance(value, tuple | list):
        return [type(item).__name__ for item in value]
    return type(value).__name__


def typed_probe(fn: Callable, *args: object) -> dict:
    """Call fn(*args) and report the answer with the exact types of its items, judged before they
    become plain data (which turns a NumPy int64 into an int), and the arguments afterwards."""
    value = fn(*args)
    items = [_type_names(item) for item in value] if isinstance(value, list | tuple) else None
    return {"value": value, "items": items, "args_after": list(args)}
