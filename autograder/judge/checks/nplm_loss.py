"""Hidden checks for chapter 03's `nplm_loss`: random configurations with and without W3, order-sensitive contexts, logits near 1000.

The reference is the same model written in PyTorch (float64) and reduced by
torch.nn.functional.cross_entropy.
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
from proof_lm.baselines import TorchContextMLP, numpy_params

EXERCISE = Exercise(
    name="nplm_loss",
    chapter="03_mlp_lm",
    points=3,
    kind="debug",
    library=(
        "nplm:_tensor_forward",
        "nplm:nplm_logits",
        "nplm:nplm_mean_loss",
        "nplm:nplm_loss_and_grads",
        "baselines:TorchContextMLP",
    ),
)


def torch_nplm(
    P: dict,
    X: np.ndarray,
    Y: np.ndarray,
    newest_first: bool = False,
    use_tanh: bool = True,
    use_direct: bool = True,
    reduction: str = "mean",
    bias_after_tanh: bool = False,
) -> tuple[float, np.ndarray]:
    """The model in PyTorch float64: loss by F.cross_entropy; variants build the classic mistakes."""
    t = {
        key: None if value is None else torch.tensor(value, dtype=torch.float64)
        for key, value in P.items()
    }
    ids = torch.tensor(X[:, ::-1].copy() if newest_first else X, dtype=torch.int64)
    x = t["E"][ids].flatten(1)  # (B, (n-1)d)
    pre = x @ t["W1"] + (0.0 if bias_after_tanh else t["b1"])
    hidden = torch.tanh(pre) if use_tanh else pre
    logits = (hidden + t["b1"] if bias_after_tanh else hidden) @ t["W2"] + t["b2"]
    if t.get("W3") is not None and use_direct:
        logits = logits + x @ t["W3"]
    loss = torch.nn.functional.cross_entropy(
        logits, torch.tensor(Y, dtype=torch.int64), reduction=reduction
    )
    return loss.item(), logits.numpy()


def random_params(
    rng: np.random.Generator, V: int, d: int, c: int, dh: int, direct: bool, scale: float = 1.0
) -> dict:
    """Parameters of an NPLM with context c = n - 1 (W3 None unless direct)."""
    return {
        "E": rng.normal(0, 1, (V, d)),
        "W1": rng.normal(0, 1 / np.sqrt(c * d), (c * d, dh)),
        "b1": rng.normal(0, 0.1, dh),
        "W2": rng.normal(0, scale / np.sqrt(dh), (dh, V)),
        "b2": rng.normal(0, 0.1, V) * scale,
        "W3": rng.normal(0, 0.3, (c * d, V)) if direct else None,
    }


NEWEST_FIRST = (
    "the context was concatenated newest first: which embedding does the contract put first?"
)


NO_DIRECT = "W3 is given and the logits leave it out: the direct connections are missing"
BIAS = (
    "the loss and the logits agree with the contract's only where b1 is 0: where does the "
    "hidden layer's bias enter?"
)
SHIFTED = (
    "the returned logits are the contract's minus a constant in each row: what happened to the "
    "logits array after the forward pass?"
)
PAIRS = (
    "the loss changes when another example's target changes: which log-probabilities does the "
    "mean run over?"
)


def _judge_loss(P: dict, X: np.ndarray, Y: np.ndarray, what: str) -> Check:
    loss, logits = torch_nplm(P, X, Y)
    B, V = len(Y), P["E"].shape[0]
    loss_diagnoses = [
        (
            "the loss is exactly B times the contract's: how should it depend on the batch size?",
            torch_nplm(P, X, Y, reduction="sum")[0],
        ),
        (
            NEWEST_FIRST,
            torch_nplm(P, X, Y, newest_first=True)[0],
        ),
        ("the hidden layer needs tanh", torch_nplm(P, X, Y, use_tanh=False)[0]),
        (BIAS, torch_nplm(P, X, Y, bias_after_tanh=True)[0]),
    ]
    if B > 1:
        log_probs = torch.log_softmax(torch.tensor(logits), dim=1).numpy()
        loss_diagnoses.append((PAIRS, float(-log_probs[:, Y].mean())))
    logit_diagnoses = [
        (
            NEWEST_FIRST,
            torch_nplm(P, X, Y, newest_first=True)[1],
        ),
        ("the hidden layer needs tanh", torch_nplm(P, X, Y, use_tanh=False)[1]),
        (BIAS, torch_nplm(P, X, Y, bias_after_tanh=True)[1]),
        (SHIFTED, logits - logits.max(axis=1, keepdims=True)),
        (SHIFTED, logits - logits.max()),
    ]
    if P["W3"] is not None:
        without = torch_nplm(P, X, Y, use_direct=False)
        loss_diagnoses.append((NO_DIRECT, without[0]))
        logit_diagnoses.append((NO_DIRECT, without[1]))

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_loss, got_logits = tuple_answer(outcome, ["loss", "logits"])
        with labelled("loss"):
            got_loss = as_number(got_loss)
        got_logits = as_array(got_logits, (B, V), kinds="f")
        with labelled("logits"):
            expect_close(got_logits, logits, rtol=1e-7, atol=1e-9, diagnoses=logit_diagnoses)
        if not np.isfinite(got_loss):
            raise CheckFailed(
                f"loss: got {got_loss} for logits up to {np.abs(logits).max():.0f}: "
                "the log-softmax is not numerically stable"
            )
        with labelled("loss"):
            expect_close(
                got_loss,
                loss,
                rtol=1e-7,
                atol=1e-9,
                diagnoses=loss_diagnoses,
                inputs=float(
                    np.abs(logits).max(initial=0)
                ),  # see autograder.judge.expect.tolerance
            )
        expect_unchanged(outcome, (P, X, Y))

    return Check(what, [Call((P, X, Y))], judge)


def nplm_loss_checks(rng: np.random.Generator) -> list[Check]:
    """Random configurations with and without W3, order-sensitive contexts, logits near 1000."""
    visible = np.random.default_rng(0)
    P_small = {
        "E": visible.normal(size=(5, 2)),
        "W1": visible.normal(size=(4, 3)),
        "b1": visible.normal(size=3),
        "W2": np.zeros((3, 5)),
        "b2": np.zeros(5),
        "W3": None,
    }
    X_small, Y_small = np.array([[1, 2], [3, 4], [0, 0]]), np.array([3, 0, 2])
    torch.manual_seed(int(rng.integers(0, 2**31)))
    mlp = TorchContextMLP(
        vocab_size=5, context_length=2, embedding_dim=2, hidden_dim=3, direct=True
    )
    for parameter in mlp.parameters():
        torch.nn.init.normal_(parameter)
    checks = [
        _judge_loss(
            P_small, X_small, Y_small, "the visible example with zero output weights (ln 5)"
        ),
        _judge_loss(
            numpy_params(mlp), X_small, Y_small, "the visible example against TorchContextMLP"
        ),
    ]
    for V, d, c, dh, B, direct in [
        (5, 2, 1, 3, 4, False),
        (7, 3, 2, 5, 6, True),
        (27, 10, 3, 16, 32, False),
        (11, 4, 4, 8, 9, True),
        (4, 2, 3, 6, 1, False),
    ]:
        P = random_params(rng, V, d, c, dh, direct)
        X = rng.integers(0, V, (B, c))
        if c > 1:  # make the order matter: distinct ids in each context
            X = np.stack([rng.choice(V, size=c, replace=False) for _ in range(B)])
        checks.append(
            _judge_loss(
                P,
                X,
                rng.integers(0, V, B),
                f"V={V}, d={d}, context {c}, dh={dh}, batch {B}, {'with' if direct else 'no'} W3",
            )
        )
    P = random_params(rng, 6, 3, 2, 4, False, scale=300.0)
    P["b2"] = rng.permutation([-800.0, 800.0] * 3)
    X = np.stack([rng.choice(6, size=2, replace=False) for _ in range(8)])
    checks.append(
        _judge_loss(P, X, rng.integers(0, 6, 8), "logits near +-1000 (naive softmax overflows)")
    )
    P_big = dict(P_small, b2=np.array([1000.0, 0.0, 0.0, 0.0, -1000.0]))
    checks.append(
        _judge_loss(
            P_big,
            X_small,
            np.array([4, 0, 2]),
            "logits 1000, 0 and -1000: a target's probability is exp(-2000)",
        )
    )
    P = random_params(rng, 5, 2, 2, 3, True)
    P["b2"] = P["b2"] - 1000.0
    checks.append(
        _judge_loss(
            P,
            rng.integers(0, 5, (6, 2)).astype(np.int32),
            rng.integers(0, 5, 6).astype(np.int32),
            "every logit near -1000, int32 ids (exp underflows)",
        )
    )
    P = random_params(rng, 6, 3, 2, 4, True)
    P["E"][0] = 0.0  # contexts of token 0: the direct part is 0, the logits stay near 0
    P["W3"] = P["W3"] / np.abs(P["W3"]).max() * 60.0
    P["E"][1:] *= 10.0  # the other contexts: direct logits in the hundreds to thousands
    X = np.stack([np.zeros(2, int), *rng.integers(1, 6, (4, 2)), np.zeros(2, int)])
    checks.append(
        _judge_loss(
            P,
            X[rng.permutation(len(X))],
            rng.integers(0, 6, len(X)),
            "rows of logits near 0 beside rows in the thousands",
        )
    )
    for layout, direct in [("transposed", True), ("strided", False)]:
        P = random_params(rng, 6, 3, 2, 5, direct)
        X = np.stack([rng.choice(6, size=2, replace=False) for _ in range(7)])
        label = f"V=6, d=3, context 2, dh=5, batch 7, {'with' if direct else 'no'} W3"
        checks.append(with_layout(_judge_loss(P, X, rng.integers(0, 6, 7), label), layout))
    return checks
