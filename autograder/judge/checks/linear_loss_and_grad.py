"""Hidden checks for chapter 04's `linear_loss_and_grad`: random shapes, B = 1 and B > 1, repeated targets, large logits, against autograd.

References come from PyTorch autograd in float64; failures are diagnosed from the shape of the
error.
"""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="linear_loss_and_grad",
    chapter="04_gradients",
    points=3,
    kind="debug",
    grader=("probes:softmax_regression",),
)


def torch_linear(weights, bias, inputs, targets) -> tuple[float, np.ndarray, np.ndarray]:
    """Loss and gradients of mean softmax cross-entropy of inputs @ weights + bias, by autograd."""
    W = torch.tensor(np.asarray(weights, dtype=np.float64), requires_grad=True)
    b = torch.tensor(np.asarray(bias, dtype=np.float64), requires_grad=True)
    loss = torch.nn.functional.cross_entropy(
        torch.tensor(np.asarray(inputs, dtype=np.float64)) @ W + b,
        torch.tensor(targets, dtype=torch.int64),
    )
    loss.backward()
    return loss.item(), W.grad.numpy(), b.grad.numpy()


def _judge_linear(weights, bias, inputs, targets, what: str) -> Check:
    loss, dW, db = torch_linear(weights, bias, inputs, targets)
    B = len(targets)
    logits = torch.tensor(inputs @ weights + bias, dtype=torch.float64)
    picked = torch.log_softmax(logits, dim=1)[np.arange(B), np.asarray(targets, dtype=np.int64)]
    log_of_mean = (torch.logsumexp(picked, dim=0) - np.log(B)).item()  # log of the mean probability
    probs = torch.softmax(logits, dim=1).numpy()
    probs[:, targets] -= 1.0  # the block-indexing slip
    block = {"dW": inputs.T @ probs / B, "db": probs.sum(axis=0) / B}
    size = float(
        np.abs(inputs @ weights + bias).max(initial=0)
    )  # see autograder.judge.expect.tolerance

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_loss, got_dW, got_db = tuple_answer(outcome, ["loss", "dW", "db"])
        with labelled("loss"):
            expect_close(
                as_number(got_loss),
                loss,
                rtol=1e-8,
                atol=1e-10,
                diagnoses=[
                    (
                        "the loss is exactly B times the contract's: how should it depend on the "
                        "batch size?",
                        loss * B,
                    ),
                    (
                        "the loss is below the contract's, and equals it only when every row's "
                        "target has the same probability: which average over the rows is the "
                        "cross-entropy?",
                        -log_of_mean,
                    ),
                ],
                inputs=size,
            )
        if isinstance(got_db, np.ndarray) and got_db.shape == (B, len(bias)) and B > 1:
            raise CheckFailed(
                f"db has shape {got_db.shape}, not the bias's {bias.shape}: one bias serves every row of the batch"
            )
        if isinstance(got_dW, np.ndarray) and got_dW.shape == dW.T.shape != dW.shape:
            raise CheckFailed(
                f"dW has shape {got_dW.shape}; it must have the weights' shape {dW.shape}"
            )
        got_dW = as_array(got_dW, dW.shape, kinds="f")
        got_db = as_array(got_db, db.shape, kinds="f")
        common = [
            ("exactly B times too large: the loss is a mean over the batch", B),
            ("the wrong sign: that is the gradient of the log-likelihood, not of the loss", -1),
        ]
        for name, got, ref in [("dW", got_dW, dW), ("db", got_db, db)]:
            with labelled(name):
                expect_close(
                    got,
                    ref,
                    rtol=1e-7,
                    atol=1e-10,
                    diagnoses=[(hint, ref * factor) for hint, factor in common]
                    + [
                        (
                            "the target term lands on a (B, B) block: dz[:, targets] is every "
                            "row's entries at every target, not one entry per row",
                            block[name],
                        )
                    ],
                    inputs=size,
                )
        expect_unchanged(outcome, (weights, bias, inputs, targets))

    return Check(what, [Call((weights, bias, inputs, targets))], judge)


def linear_loss_and_grad_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes, B = 1 and B > 1, repeated targets, large logits, against autograd."""
    checks = [
        _judge_linear(
            np.zeros((2, 3)),
            np.zeros(3),
            np.array([[1.0, 2.0], [3.0, -1.0]]),
            np.array([0, 2]),
            "the visible example: zero weights, batch 2",
        ),
    ]
    for D, V, B in [(3, 4, 1), (5, 3, 8), (7, 10, 16), (2, 5, 3)]:
        checks.append(
            _judge_linear(
                rng.normal(size=(D, V)),
                rng.normal(size=V),
                rng.normal(size=(B, D)),
                rng.integers(0, V, B),
                f"random D={D}, V={V}, batch {B}",
            )
        )
    checks.append(
        _judge_linear(
            rng.normal(size=(4, 6)),
            rng.normal(size=6),
            rng.normal(size=(12, 4)),
            np.full(12, 5),
            "every target the same",
        )
    )
    checks.append(
        _judge_linear(
            rng.normal(0, 100, size=(3, 5)),
            rng.normal(size=5),
            rng.normal(0, 5, size=(6, 3)),
            rng.integers(0, 5, 6),
            "logits in the thousands",
        )
    )
    checks.append(
        _judge_linear(
            np.array([[1000.0, 0.0, -1000.0]]),
            np.zeros(3),
            np.array([[1.0], [-1.0]]),
            np.array([2, 0]),
            "logits of +-1000 whose targets get probability about exp(-2000)",
        )
    )
    checks.append(
        _judge_linear(
            rng.normal(size=(3, 4)),
            rng.normal(size=4),
            rng.normal(size=(5, 3)),
            rng.integers(0, 4, 5).astype(np.int32),
            "int32 targets",
        )
    )
    scale = rng.permutation([0.0, 1.0, 300.0, 300.0, 0.0, 1.0])[:, None]  # (B, 1)
    checks += [
        _judge_linear(
            rng.normal(0, 3, size=(4, 5)),
            rng.normal(size=5),
            rng.normal(size=(6, 4)) * scale,
            rng.integers(0, 5, 6),
            "rows of logits on very different scales (near 0 and near +-1000)",
        ),
        _judge_linear(
            rng.normal(size=(3, 4)),
            rng.normal(size=4),
            np.eye(3, dtype=np.int64)[rng.integers(0, 3, 5)],
            rng.integers(0, 4, 5),
            "integer (one-hot) inputs",
        ),
        _judge_linear(
            rng.normal(size=(3, 1)),
            rng.normal(size=1),
            rng.normal(size=(4, 3)),
            np.zeros(4, dtype=np.int64),
            "V = 1: loss and gradients are 0",
        ),
    ]
    checks += [
        with_layout(
            _judge_linear(
                rng.normal(size=(4, 3)),
                rng.normal(size=3),
                rng.normal(size=(5, 4)),
                rng.integers(0, 3, 5),
                "random D=4, V=3, batch 5",
            ),
            layout,
        )
        for layout in ("transposed", "strided")
    ]
    return checks
