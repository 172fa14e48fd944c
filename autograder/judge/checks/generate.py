"""Hidden checks for chapter 08's `generate`: the distribution of the next id, cropping, a sure model's ids, the generator, the mode."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.gpt_shared import _array, _judge_reproducible, _report
from autograder.judge.declaration import Exercise
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="generate",
    chapter="08_gpt",
    points=3,
    kind="debug",
    library=("gpt2:generate",),
    probe_only=True,
)


def toy_probs(W: np.ndarray, U: np.ndarray, context: np.ndarray) -> np.ndarray:
    """The next-id distribution the toy model and a correct generate give for one context."""
    logits = W[context[-1]] + U[context[0]]
    e = np.exp(logits - logits.max())
    return e / e.sum()


def _fits(counts: np.ndarray, probs: np.ndarray) -> bool:
    """Counts of one draw per row agree with probs: no count where p = 0, within 5 sigma elsewhere."""
    n = counts.sum()
    if (counts[probs == 0] > 0).any():
        return False
    spread = np.sqrt(n * probs * (1 - probs)) + 1e-12
    return bool((np.abs(counts - n * probs) <= 5 * spread + 1).all())


def _expected_rows(out: np.ndarray, T0: int, steps: int, block: int, row_major: bool) -> list:
    """The contexts a correct generate feeds, in the order of batched steps (or row by row)."""
    rows = range(out.shape[0])
    windows = [(r, out[r, max(0, T0 + i - block) : T0 + i]) for i in range(steps) for r in rows]
    if row_major:
        windows.sort(key=lambda pair: pair[0])
    return [window for _, window in windows]


def _judge_generate_runs(
    report: dict, idx: np.ndarray, steps: int, block: int, train_mode: bool
) -> list[np.ndarray]:
    """Shapes, dtypes, the prefix, the contexts fed, eval mode and no_grad; return the outputs."""
    B, T0 = idx.shape
    outs = []
    for run in report["runs"]:
        if run["type"] != "torch.int64":
            raise CheckFailed(f"generate returned {run['type']}; expected a torch int64 tensor")
        out = _array(run["out"], (B, T0 + steps), "the output")
        if not np.array_equal(out[:, :T0], idx):
            raise CheckFailed("the output must start with idx itself, then the new ids")
        if not np.array_equal(run["idx_after"], idx):
            raise CheckFailed("idx was modified in place: the caller's tensor must not change")
        if any(run["training"]):
            raise CheckFailed("the model ran in training mode while sampling: dropout was active")
        if any(run["grad"]):
            raise CheckFailed("the model ran with gradients on: sampling built an autograd graph")
        if run["mode_after"] != train_mode:
            mode = "training" if train_mode else "eval"
            raise CheckFailed(
                f"the model was in {mode} mode before generate and not after: the caller's "
                "mode was not restored"
            )
        fed = [row for context in run["contexts"] for row in context]
        if steps and len(fed) != B * steps:
            raise CheckFailed(
                f"the model was called on {len(fed)} contexts for {B} rows and {steps} new ids; "
                "expected one forward pass per new id"
            )
        for row_major in (False, True):
            wanted = _expected_rows(out, T0, steps, block, row_major)
            if all(
                len(a) == len(b) and np.array_equal(a, b) for a, b in zip(fed, wanted, strict=True)
            ):
                break
        else:
            bad = next(
                i
                for i, (a, b) in enumerate(
                    zip(fed, _expected_rows(out, T0, steps, block, False), strict=True)
                )
                if len(a) != len(b) or not np.array_equal(a, b)
            )
            got, want = fed[bad], _expected_rows(out, T0, steps, block, False)[bad]
            if len(got) < len(want):
                raise CheckFailed(
                    f"the model was fed {len(got)} ids where {len(want)} were available: the "
                    "context was cut shorter than block_size"
                )
            raise CheckFailed(
                "at some step the model was fed other ids of the row than the ones that tell it "
                "most about the next id"
            )
        outs.append(out)
    return outs


def _generate_call(
    W: np.ndarray,
    U: np.ndarray,
    block: int,
    idx: np.ndarray,
    steps: int,
    seeds: list[int],
    train_mode: bool,
) -> Call:
    return Call((W, U, block, idx, steps, seeds, train_mode), probe=torch_probes.generate_probe)


def _crop_hint(outcome: Outcome) -> None:
    if outcome.error is not None and "reads at most block_size" in outcome.message:
        raise CheckFailed(
            f"context not cropped ({outcome.message}): a row grew longer than the model can read"
        )


def _judge_generate_distribution(rng: np.random.Generator, T0: int) -> Check:
    V, block, B = 6, 4, 4000
    W, U = rng.normal(size=(V, V)), rng.normal(size=(V, V))
    idx = np.repeat(rng.integers(0, V, (1, T0)), B, axis=0)
    context = idx[0, -block:]
    probs = toy_probs(W, U, context)
    candidates = [
        (
            "sampled from the first position's logits: which position predicts the next id?",
            toy_probs(W, U, context[:1]),
        ),
        (
            "context not cropped: the ids drawn follow a context the model cannot read whole",
            toy_probs(W, U, idx[0]) if block < T0 else None,
        ),
    ]
    seeds = [int(rng.integers(0, 2**31))]

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        (out,) = _judge_generate_runs(_report(outcomes[0]), idx, 1, block, False)
        counts = np.bincount(out[:, -1], minlength=V)[:V]
        if _fits(counts, probs):
            return
        for hint, candidate in candidates:
            if candidate is not None and _fits(counts, candidate):
                raise CheckFailed(hint)
        raise CheckFailed(
            "the new ids do not follow the model's distribution of the next id: frequencies "
            f"{np.round(counts / B, 3).tolist()}, expected {np.round(probs, 3).tolist()}"
        )

    return Check(
        f"the distribution of the next id: {B} rows, T={T0}, block_size={block}",
        [_generate_call(W, U, block, idx, 1, seeds, False)],
        judge,
    )


def _sure(
    W: np.ndarray, U: np.ndarray, idx: np.ndarray, steps: int, block: int, read: int = -1
) -> np.ndarray:
    """The ids of a model sure of each next one; `read` is the position whose logits are read."""
    out = idx.copy()
    for _ in range(steps):
        picks = [int(np.argmax(W[row[-block:][read]] + U[row[-block:][0]])) for row in out]
        out = np.concatenate([out, np.array(picks)[:, None]], axis=1)
    return out


def _judge_generate_sure(rng: np.random.Generator) -> Check:
    V, block, steps = 7, 4, 9
    while True:  # a case where reading the first position's logits gives other ids (most do)
        # after id a the model favours id perm[a] by 40 give or take noise: by 25 or more after
        # every pair (last id, first id), all but e^-25 of the probability, so that every correct
        # sampler draws that one id at each step
        W = rng.normal(size=(V, V)) + 40.0 * np.eye(V)[rng.permutation(V)]
        U = rng.normal(size=(V, V))
        ranked = np.sort(W[:, None, :] + U[None, :, :], axis=-1)
        idx = rng.integers(0, V, (3, 2))
        expected = _sure(W, U, idx, steps, block)
        first = _sure(W, U, idx, steps, block, read=0)
        if (ranked[..., -1] - ranked[..., -2]).min() >= 25 and not np.array_equal(first, expected):
            break
    seeds = [int(rng.integers(0, 2**31))]

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        (out,) = _judge_generate_runs(_report(outcomes[0]), idx, steps, block, False)
        if np.array_equal(out, first):
            raise CheckFailed(
                "sampled from the first position's logits: which position predicts the next id?"
            )
        if not np.array_equal(out, expected):
            column = int(np.argwhere(out != expected)[0][1])
            raise CheckFailed(
                "this model puts nearly all its probability on one next id at every step, and "
                f"the ids drawn are other ones from position {column} on"
            )

    return Check(
        f"a model sure of each next id: {steps} new ids from T=2 with block_size={block}, "
        "crops as it goes",
        [_generate_call(W, U, block, idx, steps, seeds, False)],
        judge,
    )


def _judge_generate_generator(rng: np.random.Generator) -> Check:
    V, block, steps = 8, 5, 12
    W, U = rng.normal(0, 0.5, (V, V)), rng.normal(0, 0.5, (V, V))
    idx = rng.integers(0, V, (6, 3))
    seed = int(rng.integers(0, 2**31))

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        report = _report(outcomes[0])
        runs = _judge_generate_runs(report, idx, steps, block, True)
        _judge_reproducible(
            report,
            *runs,
            "the draws do not come from the generator passed in alone",
            "ids",
        )

    return Check(
        "reproducible from the generator alone; eval mode, no_grad, the training mode restored",
        [_generate_call(W, U, block, idx, steps, [seed, seed, seed + 1], True)],
        judge,
    )


def _judge_generate_nothing(rng: np.random.Generator) -> Check:
    """0 new ids from a model in training mode and from one in eval mode: idx back, and the model
    in the mode it was handed over in."""
    W, U = rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    idx = rng.integers(0, 5, (2, 3))
    modes = (True, False)

    def judge(outcomes: list[Outcome]) -> None:
        for outcome, train_mode in zip(outcomes, modes, strict=True):
            _judge_generate_runs(_report(outcome), idx, 0, 4, train_mode)

    return Check(
        "max_new_tokens=0 returns idx, the model in training or eval mode as handed over",
        [_generate_call(W, U, 4, idx, 0, [0], train_mode) for train_mode in modes],
        judge,
    )


def generate_checks(rng: np.random.Generator) -> list[Check]:
    """The distribution of the next id, cropping, a sure model's ids, the generator, the mode."""
    return [
        _judge_generate_distribution(rng, 3),
        _judge_generate_distribution(rng, 6),
        _judge_generate_distribution(rng, 2),
        _judge_generate_sure(rng),
        _judge_generate_generator(rng),
        _judge_generate_nothing(rng),
    ]
