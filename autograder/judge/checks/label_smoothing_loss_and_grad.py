"""Hidden checks for chapter 02's challenge: label_smoothing_loss_and_grad.

The reference is PyTorch in float64: `functional.cross_entropy(..., label_smoothing=eps)` and its autograd
gradient, the definition the contract follows (eps / V to every class, the target included).
"""

import numpy as np
import torch
from torch.nn import functional

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_raises,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="label_smoothing_loss_and_grad",
    chapter="02_neural_bigram",
    points=2,
    extra=True,
)


def reference_smoothed(logits: np.ndarray, targets: np.ndarray, eps: float) -> tuple:
    """(mean loss, gradient w.r.t. the logits) by PyTorch autograd in float64."""
    z = torch.tensor(np.asarray(logits, dtype=np.float64), requires_grad=True)
    loss = functional.cross_entropy(
        z, torch.tensor(np.asarray(targets, dtype=np.int64)), label_smoothing=eps
    )
    loss.backward()
    return float(loss), z.grad.numpy().copy()


def _mistakes(logits: np.ndarray, targets: np.ndarray, eps: float) -> dict[str, tuple]:
    """(loss, gradient) of the classic slips, from the definitions."""
    B, V = logits.shape
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    p = np.exp(log_p)
    onehot = np.eye(V)[targets]
    q = (1 - eps) * onehot + eps / V
    q_other = (1 - eps) * onehot + (eps / (V - 1)) * (1 - onehot)
    loss = float(-(q * log_p).sum() / B)
    return {
        "spread": (float(-(q_other * log_p).sum() / B), (p - q_other) / B),
        "plain": (float(-log_p[np.arange(B), targets].mean()), (p - onehot) / B),
        "batch": (loss * B, p - q),
        "sign": (loss, (q - p) / B),
    }


HINTS = {
    "spread": "eps is spread over the other V - 1 classes only: PyTorch's label_smoothing "
    "spreads it over all V classes, the target included",
    "plain": "that is the plain cross-entropy's: here eps changes nothing, as if the target "
    "were not smoothed",
    "batch": "exactly B times too large: the loss is a mean over the batch",
    "sign": "the gradient has the wrong sign: it points uphill for the loss",
}


def _check(logits: np.ndarray, targets: np.ndarray, eps: float, what: str) -> Check:
    loss_ref, grad_ref = reference_smoothed(logits, targets, eps)
    mistakes = _mistakes(logits, targets, eps)
    size = float(np.abs(logits).max(initial=0))  # float32 inside: autograder.judge.expect.tolerance

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        loss, grad = tuple_answer(outcome, ["loss", "grad"])
        loss = as_number(loss)
        grad = as_array(grad, logits.shape)
        if not (np.isfinite(loss) and np.isfinite(grad).all()):
            raise CheckFailed("got nan or inf: the log-softmax is not numerically stable")
        with labelled("the loss"):
            expect_close(
                loss,
                loss_ref,
                rtol=1e-9,
                atol=1e-12,
                diagnoses=[(HINTS[k], m[0]) for k, m in mistakes.items() if k != "sign"],
                inputs=size,
            )
        with labelled("the gradient"):
            expect_close(
                grad,
                grad_ref,
                rtol=1e-7,
                atol=1e-12,
                diagnoses=[(HINTS[k], m[1]) for k, m in mistakes.items()],
                inputs=size,
            )
        expect_unchanged(outcome, (logits, targets, eps))

    return Check(what, [Call((logits, targets, eps))], judge)


def _rejects(args: tuple, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(args)], judge)


def label_smoothing_loss_and_grad_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes and eps, eps 0 (plain cross-entropy), repeated targets, huge logits (and rows
    of very different scale), bad input."""
    checks = []
    for B, V, eps in [(5, 4, 0.1), (16, 27, 0.2), (1, 3, 0.5), (9, 7, float(rng.uniform(0, 0.9)))]:
        logits = rng.normal(0, 2, (B, V))
        targets = rng.integers(0, V, B)
        checks.append(_check(logits, targets, eps, f"B={B}, V={V}, eps {eps:.3f}"))
    logits = rng.normal(0, 1, (6, 5))
    checks += [
        _check(logits, np.array([2, 2, 2, 0, 2, 4]), 0.0, "eps 0 is the plain cross-entropy"),
        _check(logits, np.array([1, 1, 3, 3, 1, 0]), 0.3, "repeated targets"),
        _check(rng.normal(0, 1, (4, 6)) * 1000, rng.integers(0, 6, 4), 0.1, "logits of +-1000"),
        _check(
            rng.normal(0, 1, (4, 6)) * np.array([[1000.0], [1.0], [1.0], [300.0]]),
            rng.integers(0, 6, 4),
            0.1,
            "rows of very different scale (logits near 1000 beside logits near 1)",
        ),
        _check(
            rng.normal(0, 1, (3, 5)).astype(np.float32).astype(np.float64) + 50.0,
            np.array([0, 4, 2]),
            0.25,
            "every logit near 50",
        ),
        _rejects(
            (rng.normal(size=(3, 4)), np.array([0, 1]), 0.1),
            "targets of the wrong length raise ValueError",
            "expected logits (B, V) and targets (B,)",
        ),
        _rejects(
            (rng.normal(size=4), np.array([0]), 0.1),
            "1-d logits raise ValueError",
            "expected logits (B, V) and targets (B,)",
        ),
        _rejects(
            (rng.normal(size=(3, 4)), np.array([0, 1, 2]), 1.5),
            "eps > 1 raises ValueError",
            "eps must lie in [0, 1]",
        ),
        _rejects(
            (rng.normal(size=(3, 4)), np.array([0, 1, 2]), -0.1),
            "eps < 0 raises ValueError",
            "eps must lie in [0, 1]",
        ),
    ]
    return checks
