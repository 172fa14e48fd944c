"""Hidden checks for chapter 03's log_prob_factors: the softmax bottleneck as a factorisation.

The log-probabilities the MLP gives N contexts form an (N, V) matrix. The student returns factors
A (N, r) and B (r, V) with A @ B equal to that matrix, B the model's own (the same for any
contexts), and r at most dh + 2 (dh + (n - 1)d + 2 with direct connections): the rank bound.
"""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.nplm_loss import random_params
from autograder.judge.declaration import Exercise
from autograder.judge.expect import as_array, expect_close, expect_unchanged, labelled, tuple_answer
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="log_prob_factors",
    chapter="03_mlp_lm",
    points=2,
    kind="derive",
)


def model_log_probs(P: dict, X: np.ndarray, part: str = "log_probs") -> np.ndarray:
    """The model's (N, V) log-probabilities by a loop over contexts; `part` builds the slips."""
    rows = []
    for context in X:
        x = np.concatenate([P["E"][i] for i in context])  # ((n-1)d,), oldest first
        h = np.tanh(x @ P["W1"] + P["b1"])
        logits = h @ P["W2"] + (0.0 if part == "no_bias" else P["b2"])
        if P["W3"] is not None and part != "no_direct":
            logits = logits + x @ P["W3"]
        top = logits.max()
        log_probs = logits - top - np.log(np.exp(logits - top).sum())
        rows.append({"logits": logits, "probs": np.exp(log_probs)}.get(part, log_probs))
    return np.array(rows)


def rank_bound(P: dict) -> int:
    """dh + 2, plus (n - 1)d when the model has direct connections."""
    bound = P["W1"].shape[1] + 2
    return bound + (P["W1"].shape[0] if P["W3"] is not None else 0)


def _factors(outcome: Outcome, N: int, V: int) -> tuple[np.ndarray, np.ndarray]:
    A, B = tuple_answer(outcome, ["A", "B"])
    if not (isinstance(A, np.ndarray) and A.ndim == 2 and A.shape[0] == N):
        raise CheckFailed(f"A: expected a NumPy array of shape ({N}, r), one row per context")
    with labelled("A"):
        A = as_array(A, A.shape, kinds="f")
    with labelled("B"):
        B = as_array(B, (A.shape[1], V), kinds="f")
    return A, B


def _judge(P: dict, X: np.ndarray, X_other: np.ndarray, what: str) -> Check:
    """A @ B against the model's log-probabilities on X; B again on other contexts; r bounded."""
    expected = model_log_probs(P, X)
    N, V = expected.shape
    bound = rank_bound(P)
    direct = P["W3"] is not None
    diagnoses = [
        (
            "it gives the logits, not the log-probabilities",
            model_log_probs(P, X, "logits"),
        ),
        ("it gives probabilities, not log-probabilities", model_log_probs(P, X, "probs")),
        ("it misses the output bias b2", model_log_probs(P, X, "no_bias")),
        (
            "it misses the direct connections: W3 is given",
            model_log_probs(P, X, "no_direct") if direct else None,
        ),
    ]

    def judge(outcomes: list[Outcome]) -> None:
        first, second = outcomes
        A, B = _factors(first, N, V)
        r = A.shape[1]
        product = A @ B
        if not np.isfinite(product).all():
            raise CheckFailed(
                f"A @ B has nan or inf for logits up to {np.abs(model_log_probs(P, X, 'logits')).max():.0f}: "
                "the normaliser is not numerically stable"
            )
        scale = float(np.abs(expected).max())
        with labelled("A @ B"):
            expect_close(
                product,
                expected,
                rtol=1e-7,
                atol=1e-9 * max(1.0, scale),
                diagnoses=[(h, c) for h, c in diagnoses if c is not None],
                inputs=scale,
            )
        if r > bound:
            raise CheckFailed(
                f"A @ B is right, but through r = {r} numbers per context, more than every model "
                "of this shape needs"
                + (" (with r = V, B can be the identity: no bottleneck is found)" if r == V else "")
                + ": which parts of one context's log-probability vector depend on the context?"
            )
        A2, B2 = _factors(second, len(X_other), V)
        if B2.shape != B.shape or not np.allclose(B2, B, rtol=1e-9, atol=1e-12):
            raise CheckFailed(
                "B changed with the contexts: B is the model's, the same matrix whatever contexts "
                "A describes"
            )
        with labelled("A @ B on other contexts"):
            expect_close(
                A2 @ B2, model_log_probs(P, X_other), rtol=1e-7, atol=1e-9 * max(1.0, scale)
            )
        expect_unchanged(first, (P, X))

    return Check(what, [Call((P, X)), Call((P, X_other))], judge)


def _contexts(rng: np.random.Generator, V: int, c: int, N: int) -> np.ndarray:
    return rng.integers(0, V, (N, c))


def log_prob_factors_checks(rng: np.random.Generator) -> list[Check]:
    """Random models with and without direct connections, every context of a tiny model, V below
    the bound, one hidden unit, logits in the hundreds."""
    checks = []
    for V, d, c, dh, N, direct, scale in [
        (27, 4, 3, 5, 60, False, 1.0),
        (30, 2, 2, 3, 80, True, 1.0),
        (19, 3, 1, 1, 40, False, 1.0),
        (12, 2, 2, 4, 144, False, 1.0),
        (40, 3, 3, 6, 90, False, 1000.0),
        (25, 2, 2, 4, 70, True, 1000.0),
        (5, 2, 2, 6, 25, False, 1.0),
    ]:
        P = random_params(rng, V, d, c, dh, direct, scale=scale)
        X = _contexts(rng, V, c, N)
        if (V, N) == (12, 144):  # every context of a 12-symbol, context-2 model
            X = np.stack(np.meshgrid(np.arange(V), np.arange(V), indexing="ij"), -1).reshape(-1, 2)
        what = (
            f"V={V}, context {c}, d={d}, dh={dh}, {N} contexts"
            + (", direct connections" if direct else "")
            + (f", logits scaled by {scale:g}" if scale != 1 else "")
        )
        checks.append(_judge(P, X, _contexts(rng, V, c, 7), what))
    # A hidden unit that one context in 40^6 switches on: its direction is missing from the span of
    # any sample of contexts, so only factors built from the model itself reproduce that context.
    P = random_params(rng, 40, 8, 6, 5, False)
    special = rng.integers(0, 40, 6)
    x_special = P["E"][special].reshape(-1)
    P["W1"][:, 0] = 50.0 * x_special / (x_special @ x_special)
    P["b1"][0] = -45.0  # on only where x . x_special / |x_special|^2 passes 0.9
    X = np.vstack([_contexts(rng, 40, 6, 30), special[None, :]])
    what = "V=40, context 6, d=8, dh=5, one hidden unit that a single context switches on"
    checks.append(_judge(P, X, _contexts(rng, 40, 6, 7), what))
    return checks
