"""Hidden checks for chapter 03's challenge: fourgram_probs (a smoothed 4-gram, designed against a target).

The student's function sees only the training words. The judge holds the held-out names and the
target: a held-out loss at least MARGIN nats below the best add-k model of any order up to 4 whose
order and k are tuned on those held-out names themselves, which no function of the training words
alone can match by add-k. The letters are renamed by a random permutation on each run, so a design
learns from the counts it is given, not from a copy of the corpus or from English.

Measured on the corpus (four random splits at each size, 4,000 held-out names each): at 3,000
training names the best add-k is a trigram at about 2.29 nats and the margins of some designs are
0.028 (absolute discounting, d = 0.75), 0.043 (Witten-Bell interpolation of orders 4 to 1), 0.05
(linear interpolation with fixed weights); at 8,000 names 0.043 to 0.08. Add-k 4-grams backed off
to add-k trigrams for unseen contexts miss at 3,000 names (0.035 to 0.042 behind the best add-k).
"""

import math
from functools import cache

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.cases import alphabet_vocab
from autograder.judge.declaration import Exercise
from autograder.judge.expect import array_answer, expect_raises, expect_unchanged
from autograder.sandbox.guest.protocol import Call, Outcome
from proof_lm.corpus import load_names

EXERCISE = Exercise(
    name="fourgram_probs",
    chapter="03_mlp_lm",
    points=2,
    extra=True,
    kind="design",
)

ORDER = 4  # the table's order: P(next | the three symbols before it)
MARGIN = 0.01  # nats per symbol the design must be ahead of the best add-k
SIZES = (3000, 8000)  # training names in the two target checks
HELD_OUT = 4000  # held-out names in each
K_GRID = np.logspace(-3, 1, 121)  # add-k's k, tuned on the held-out names
SUM_TOLERANCE = 1e-5  # how far a row's sum may be from 1 (float32 rounding stays within it)


def codes(words: list[str], stoi: dict[str, int], n: int) -> np.ndarray:
    """The ids of every n-gram of `word.` padded with n-1 leading dots: int64 (N, n)."""
    rows = []
    for word in words:
        ids = [stoi["."]] * (n - 1) + [stoi[ch] for ch in word] + [stoi["."]]
        rows += [ids[i : i + n] for i in range(len(ids) - n + 1)]
    return np.array(rows, dtype=np.int64).reshape(-1, n)


def best_add_k(
    train: list[str], held_out: list[str], stoi: dict[str, int]
) -> tuple[float, int, float]:
    """(loss, order, k): the lowest held-out mean NLL of add-k models of orders 1 to 4, k on K_GRID."""
    V = len(stoi)
    seen, tested = codes(train, stoi, ORDER), codes(held_out, stoi, ORDER)
    best = (math.inf, 0, 0.0)
    for n in range(1, ORDER + 1):
        base = V ** np.arange(n - 1, -1, -1)  # row-major index of an n-gram
        grams, contexts = seen[:, ORDER - n :] @ base, seen[:, ORDER - n : -1] @ base[1:]
        gram_counts = np.bincount(grams, minlength=V**n)
        context_counts = np.bincount(contexts, minlength=V ** (n - 1))
        wanted = tested[:, ORDER - n :] @ base
        c = gram_counts[wanted][:, None]  # (M, 1)
        total = context_counts[wanted // V][:, None]
        losses = -np.log((c + K_GRID) / (total + K_GRID * V)).mean(axis=0)  # (len(K_GRID),)
        i = int(np.argmin(losses))
        if losses[i] < best[0]:
            best = (float(losses[i]), n, float(K_GRID[i]))
    return best


@cache
def _names() -> tuple[str, ...]:
    return tuple(load_names())


def _renamed(rng: np.random.Generator, size: int) -> tuple[list[str], list[str]]:
    """`size` training names and HELD_OUT others, drawn from the corpus, letters renamed at random."""
    names = _names()
    letters = "abcdefghijklmnopqrstuvwxyz"
    table = str.maketrans(letters, "".join(rng.permutation(list(letters))))
    order = rng.permutation(len(names))
    train = [names[i].translate(table) for i in order[:size]]
    held_out = [names[i].translate(table) for i in order[size : size + HELD_OUT]]
    return train, held_out


def as_table(outcome: Outcome, V: int) -> np.ndarray:
    """The answer as a (V,) * 4 float table of distributions over the last axis, or a failure."""
    table = array_answer(outcome, (V,) * ORDER, kinds="f").astype(np.float64)
    if not np.isfinite(table).all():
        raise CheckFailed("the table holds nan or inf: every entry is a probability")
    if (table < 0).any():
        raise CheckFailed("the table holds a negative entry: every entry is a probability")
    sums = table.sum(axis=-1)
    worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(sums - 1))), sums.shape))
    if abs(sums[worst] - 1) > SUM_TOLERANCE:
        raise CheckFailed(
            f"the row of context {worst} sums to {sums[worst]:.6g}: every row is a distribution "
            "over the next symbol, whether or not its context occurs in the training words"
        )
    return table


def _judge_target(train: list[str], held_out: list[str], stoi: dict[str, int]) -> Check:
    best, n, k = best_add_k(train, held_out, stoi)
    tested = codes(held_out, stoi, ORDER)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        table = as_table(outcome, len(stoi))
        probs = table[tuple(tested.T)]
        if (probs == 0).any():
            raise CheckFailed(
                f"{int((probs == 0).sum())} held-out 4-grams have probability 0: one event the "
                "model calls impossible makes the held-out loss infinite"
            )
        loss = float(-np.log(probs).mean())
        if loss > best - MARGIN:
            raise CheckFailed(
                f"held-out loss {loss:.4f} nats per symbol after {len(train)} training names; the "
                f"best add-k model (order {n}, k = {k:.3g}, both tuned on the held-out names "
                f"themselves) reaches {best:.4f}, and the target is {best - MARGIN:.4f}: how much "
                "a context's own counts can be trusted depends on how often it was seen, and "
                "add-k treats every context alike"
            )
        expect_unchanged(outcome, (train, stoi))

    what = (
        f"{len(train)} training names (letters renamed): held-out loss at least {MARGIN} below "
        "the best add-k model's"
    )
    return Check(what, [Call((train, stoi))], judge)


def _judge_small(words: list[str], stoi: dict[str, int]) -> Check:
    seen = codes(words, stoi, ORDER)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        table = as_table(outcome, len(stoi))
        if (table[tuple(seen.T)] == 0).any():
            raise CheckFailed("a 4-gram of the training words has probability 0")
        expect_unchanged(outcome, (words, stoi))

    what = f"V={len(stoi)}, {len(words)} words: a (V, V, V, V) table of distributions"
    return Check(what, [Call((words, stoi))], judge)


def _judge_follows(stoi: dict[str, int]) -> Check:
    words = ["ab"] * 30  # each of three contexts seen 30 times, always followed by one symbol
    dot, a, b = stoi["."], stoi["a"], stoi["b"]
    follows = [((dot, dot, dot), a), ((dot, dot, a), b), ((dot, a, b), dot)]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        table = as_table(outcome, len(stoi))
        for context, symbol in follows:
            p = float(table[(*context, symbol)])
            if p <= 0.5:
                raise CheckFailed(
                    f"the context of ids {context}, seen 30 times and followed by id {symbol} "
                    f"every time, gives id {symbol} probability {p:.3f}: counts that consistent "
                    "should carry most of their row (and the axes hold stoi's ids)"
                )

    what = "30 copies of 'ab': each context's one follower takes most of its row"
    return Check(what, [Call((words, stoi))], judge)


def _rejects(words: list[str], stoi: dict[str, int]) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", "a word holds a symbol stoi does not have")

    return Check(
        "a word with a symbol outside stoi raises ValueError", [Call((words, stoi))], judge
    )


def _judge_empty(stoi: dict[str, int]) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        as_table(outcomes[0], len(stoi))

    return Check("no training words: still a table of distributions", [Call(([], stoi))], judge)


def fourgram_probs_checks(rng: np.random.Generator) -> list[Check]:
    """A small vocabulary with ids in any order, consistent counts, no words, a bad symbol; the
    target at two sizes."""
    small = {".": 0, "b": 1, "a": 2}  # ids in no alphabetical order
    words = ["".join(rng.choice(["a", "b"], size=int(rng.integers(1, 6)))) for _ in range(12)]
    checks = [
        _judge_small(words, small),
        _judge_follows(small),
        _judge_empty(small),
        _rejects(["ab", "aXb"], small),
    ]
    stoi = alphabet_vocab()
    for size in SIZES:
        checks.append(_judge_target(*_renamed(rng, size), stoi))
    return checks
