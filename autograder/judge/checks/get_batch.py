"""Hidden checks for chapter 08's `get_batch`: windows and their shift on random data, one valid start, uniform starts, the generator, errors."""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.judge.checks.gpt_shared import _array, _judge_reproducible, _report
from autograder.judge.declaration import Exercise
from autograder.judge.expect import expect_raises
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="get_batch",
    chapter="08_gpt",
    points=2,
    kind="debug",
    library=("gpt2:get_batch",),
    probe_only=True,
)


def _judge_batch_runs(
    data: np.ndarray, block_size: int, batch_size: int, report: dict
) -> list[np.ndarray]:
    """Each run's shapes, types and windows; return each run's start offsets."""
    starts_per_run = []
    position = {int(v): i for i, v in enumerate(data)}
    for run in report["runs"]:
        for name, value, kind in zip(("x", "y"), (run["x"], run["y"]), run["types"], strict=True):
            if kind != "torch.int64":
                raise CheckFailed(f"{name} is {kind}; expected a torch int64 tensor")
            _array(value, (batch_size, block_size), name)
        x, y = run["x"], run["y"]
        starts = np.array([position.get(int(v), -1) for v in x[:, 0]])
        if (starts < 0).any():
            raise CheckFailed("x holds ids that are not in data: where do the windows come from?")
        for row, start in enumerate(starts):
            window = data[start : start + block_size]
            if len(window) < block_size or not np.array_equal(x[row], window):
                raise CheckFailed(
                    f"row {row} of x is not block_size consecutive ids of data from one start"
                )
            after = data[start + 1 : start + block_size + 1]
            if not np.array_equal(y[row], after):
                if np.array_equal(y[row][:-1], x[row][1:]):
                    raise CheckFailed(
                        "y is not data one position ahead of x at its end: y's last id is not the "
                        "one after x's last"
                    )
                raise CheckFailed(
                    "y is not x shifted by one position in data: are x and y cut from the same "
                    "start?"
                )
        starts_per_run.append(starts)
    return starts_per_run


def _batch_call(data: np.ndarray, block_size: int, batch_size: int, seeds: list[int]) -> Call:
    return Call((data, block_size, batch_size, seeds), probe=torch_probes.get_batch_probe)


def _judge_get_batch_windows(
    rng: np.random.Generator, N: int, block_size: int, batch: int
) -> Check:
    data = rng.permutation(10 * N)[:N].astype(np.int64)  # distinct ids: a window tells its start
    seeds = [int(s) for s in rng.integers(0, 2**31, 2)]

    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if len(data) == block_size + 1 and outcome.raised("ValueError"):
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids is long enough, it holds "
                "exactly one window (start 0)"
            )
        if len(data) == block_size + 1 and "expects 'from' to be less than 'to'" in (
            outcome.message or ""
        ):
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids holds one window, and "
                "the last valid start, 0, is never drawn (which starts does your range hold?)"
            )
        if len(data) == block_size + 1 and outcome.error is not None:
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids holds one window, at "
                "start 0 (which starts does your range hold?)"
            )
        report = _report(outcome)
        _judge_batch_runs(data, block_size, batch, report)
        if not np.array_equal(report["data_after"], data):
            raise CheckFailed(
                "data was modified: an in-place operation wrote into the caller's tensor"
            )

    return Check(
        f"len(data) = {N}, block_size = {block_size}, batch_size = {batch}: windows of data, y one ahead",
        [_batch_call(data, block_size, batch, seeds)],
        judge,
    )


def _judge_get_batch_distribution(rng: np.random.Generator) -> Check:
    block_size, starts = 5, 9
    data = rng.permutation(1000)[: block_size + starts].astype(np.int64)
    batch = 4500
    seeds = [int(s) for s in rng.integers(0, 2**31, 1)]

    def judge(outcomes: list[Outcome]) -> None:
        (got,) = _judge_batch_runs(data, block_size, batch, _report(outcomes[0]))
        counts = np.bincount(got, minlength=starts)
        expected = batch / starts
        spread = math.sqrt(expected * (1 - 1 / starts))
        if counts[-1] == 0:
            raise CheckFailed(
                f"the last valid start, {starts - 1} here, is never drawn "
                "(is torch.randint's high inclusive or exclusive?)"
            )
        if counts[0] == 0:
            raise CheckFailed("start 0 is never drawn, though a window starting there fits in data")
        worst = int(np.argmax(np.abs(counts - expected)))
        if abs(counts[worst] - expected) > 5 * spread:
            raise CheckFailed(
                f"start {worst} was drawn {counts[worst]} times in {batch}; about {expected:.0f} "
                "expected: the starts are not uniform over the valid ones"
            )
        # the joint distribution: row i + 1's start minus row i's (mod the number of starts) is
        # uniform when the rows are independent; consecutive, sorted or repeated starts are not
        steps = np.bincount((got[1:] - got[:-1]) % starts, minlength=starts)
        pairs = batch - 1
        step_spread = math.sqrt(pairs / starts * (1 - 1 / starts))
        odd = int(np.argmax(np.abs(steps - pairs / starts)))
        if abs(steps[odd] - pairs / starts) > 5 * step_spread:
            raise CheckFailed(
                f"the rows of one batch are not independent: row i + 1 starts {odd} after row i "
                f"(mod {starts}) in {steps[odd]} of {pairs} pairs, about {pairs / starts:.0f} "
                "expected: what does each row's start depend on?"
            )

    return Check(
        f"starts independent and uniform over all {starts} valid starts (4,500 windows)",
        [_batch_call(data, block_size, batch, seeds)],
        judge,
    )


def _judge_get_batch_generator(rng: np.random.Generator) -> Check:
    data = rng.permutation(500)[:60].astype(np.int64)
    seed = int(rng.integers(0, 2**31))
    seeds = [seed, seed, seed + 1]

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        runs = _judge_batch_runs(data, 4, 16, report)
        _judge_reproducible(
            report,
            *runs,
            "the starts came from torch's, NumPy's or Python's own random state, not from the "
            "generator passed in",
            "batches",
        )

    return Check(
        "reproducible from the generator alone; the global random state untouched",
        [_batch_call(data, 4, 16, seeds)],
        judge,
    )


def get_batch_checks(rng: np.random.Generator) -> list[Check]:
    """Windows and their shift on random data, one valid start, uniform starts, the generator, errors."""
    checks = [
        _judge_get_batch_windows(rng, N, T, B) for N, T, B in [(40, 8, 6), (100, 16, 3), (9, 1, 20)]
    ]
    checks.append(
        _judge_get_batch_windows(rng, 7, 6, 5)
    )  # len(data) = block_size + 1: start 0 only
    checks[-1].name = "data one id longer than block_size: the only window starts at 0"
    checks += [_judge_get_batch_distribution(rng), _judge_get_batch_generator(rng)]
    for N, T in [(8, 8), (5, 8)]:
        data = rng.permutation(100)[:N].astype(np.int64)

        def judge(outcomes: list[Outcome]) -> None:
            expect_raises(outcomes[0], "ValueError", "data must be longer than block_size")

        checks.append(
            Check(
                f"len(data) = {N}, block_size = {T} raises ValueError",
                [_batch_call(data, T, 2, [0])],
                judge,
            )
        )
    return checks
