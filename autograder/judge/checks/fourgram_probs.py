"""Hidden checks for chapter 03's challenge: fourgram_probs (a smoothed 4-gram, designed against a target).

The student's function sees only training words. The judge holds the held-out words and the target:
a held-out loss at least MARGIN nats below the best add-k model of any order up to 4 whose order and
k are tuned on those held-out words themselves, which no function of the training words alone can
match by add-k. The words are not the corpus's names: each target check draws a fresh random
language (every context's next-symbol distribution a Dirichlet draw around a smoothed 4-gram of the
corpus, concentration ALPHA) and renames its letters at random, so neither the corpus nor a copy of
it holds the held-out words, and a design that knows English has nothing to hold on to.

Measured (the catalogue and a red team's 20 honest designs, eight languages, the worst margin at
2,000 / 5,000 training words): Witten-Bell 0.076 / 0.046, interpolated Kneser-Ney 0.115 / 0.061,
absolute discounting d = 0.75 0.054 / 0.028, fixed interpolation weights 0.067 / 0.022, deleted
interpolation 0.096 / 0.047; add-k in every form (k cross-validated on the training words
included) at most -0.002, absolute discounting with d = 0.1 -0.15 / -0.065. Designs with badly
chosen parameters miss (back-off with d = 0.75: 0.003 / -0.015); add-k 4-grams backed off to add-k
trigrams land near the target (0.020 / 0.003), so the catalogue holds no verdict on them.
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
from proof_lm.ngram import ngram_counts

EXERCISE = Exercise(
    name="fourgram_probs",
    chapter="03_mlp_lm",
    points=2,
    extra=True,
    kind="design",
)

ORDER = 4  # the table's order: P(next | the three symbols before it)
MARGIN = 0.01  # nats per symbol the design must be ahead of the best add-k
SIZES = (2000, 5000)  # training words in the two target checks
HELD_OUT = 4000  # held-out words in each
ALPHA = 10.0  # how closely a random language follows the corpus model (a Dirichlet's concentration)
MAX_LENGTH = 30  # letters at most in a drawn word (the corpus's longest name has 15)
K_GRID = np.logspace(-3, 1, 121)  # add-k's k, tuned on the held-out words
ROUNDING = 1e-12  # a negative entry this small is a rounded 0
SUM_TOLERANCE = 1e-5  # how far a row's sum may be from 1 (float32 rounding stays within it)


def _suffix_counts(counts: np.ndarray, n: int) -> np.ndarray:
    """A (V,) * ORDER table of counts summed over all but its last n axes: the n-gram counts."""
    return counts.sum(axis=tuple(range(ORDER - n)))


def best_add_k(
    train: list[str], held_out: list[str], stoi: dict[str, int]
) -> tuple[float, int, float]:
    """(loss, order, k): the lowest held-out mean NLL of add-k models of orders 1 to 4, k on K_GRID."""
    V = len(stoi)
    seen, tested = ngram_counts(train, stoi, ORDER), ngram_counts(held_out, stoi, ORDER)
    best = (math.inf, 0, 0.0)
    for n in range(1, ORDER + 1):
        c_n, h_n = _suffix_counts(seen, n), _suffix_counts(tested, n)
        wanted = h_n > 0
        c = c_n[wanted][:, None]  # (M, 1): each held-out n-gram's training count
        total = np.broadcast_to(c_n.sum(axis=-1, keepdims=True), c_n.shape)[wanted][:, None]
        h = h_n[wanted][:, None]
        losses = -(h * np.log((c + K_GRID) / (total + K_GRID * V))).sum(axis=0) / h.sum()
        i = int(np.argmin(losses))
        if losses[i] < best[0]:
            best = (float(losses[i]), n, float(K_GRID[i]))
    return best


@cache
def _corpus_model() -> np.ndarray:
    """A smoothed 4-gram of the whole corpus (interpolated absolute discounting, d = 0.75): (V,) * 4."""
    stoi = alphabet_vocab()
    V = len(stoi)
    counts = ngram_counts(load_names(), stoi, ORDER)
    probs = np.full(V, 1.0 / V)
    for n in range(1, ORDER + 1):
        c = _suffix_counts(counts, n)
        seen = c.sum(axis=-1, keepdims=True)
        kinds = (c > 0).sum(axis=-1, keepdims=True)
        kept = (np.maximum(c - 0.75, 0) + 0.75 * kinds * probs) / np.maximum(seen, 1)
        probs = np.where(seen > 0, kept, probs)
    return probs


def random_language(rng: np.random.Generator) -> np.ndarray:
    """A fresh language: each context's next-symbol distribution drawn from a Dirichlet around the
    corpus model's (concentration ALPHA), no empty word; (V,) * 4, ids of alphabet_vocab()."""
    shapes = ALPHA * _corpus_model()
    language = rng.standard_gamma(shapes)  # normalised gammas: one Dirichlet draw per context
    language[0, 0, 0, 0] = 0.0  # a word has at least one letter
    return language / language.sum(axis=-1, keepdims=True)


def sample_words(rng: np.random.Generator, language: np.ndarray, count: int) -> list[str]:
    """`count` words drawn from `language` side by side, letters renamed by a random permutation."""
    letters = np.array(list(".abcdefghijklmnopqrstuvwxyz"))
    renamed = np.concatenate([letters[:1], rng.permutation(letters[1:])])
    contexts = np.zeros((count, ORDER - 1), dtype=np.int64)
    drawn = np.zeros((count, MAX_LENGTH), dtype=np.int64)  # 0 once a word has ended
    alive = np.ones(count, dtype=bool)
    for step in range(MAX_LENGTH):
        rows = np.cumsum(language[tuple(contexts.T)], axis=-1)  # (count, V)
        symbols = (rows < rng.random((count, 1)) * rows[:, -1:]).sum(axis=-1)
        symbols = np.where(alive, np.minimum(symbols, len(letters) - 1), 0)
        alive &= symbols != 0
        drawn[:, step] = symbols
        contexts = np.concatenate([contexts[:, 1:], symbols[:, None]], axis=1)
    return ["".join(renamed[row[row > 0]]) for row in drawn]


def as_table(outcome: Outcome, V: int) -> np.ndarray:
    """The answer as a (V,) * 4 float table of distributions over the last axis, or a failure."""
    table = array_answer(outcome, (V,) * ORDER, kinds="f").astype(np.float64)
    if not np.isfinite(table).all():
        raise CheckFailed("the table holds nan or inf: every entry is a probability")
    if (table < -ROUNDING).any():
        raise CheckFailed("the table holds a negative entry: every entry is a probability")
    table = np.maximum(table, 0.0)  # rounding's -1e-16 is a 0
    sums = table.sum(axis=-1)
    worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(sums - 1))), sums.shape))
    if abs(sums[worst] - 1) > SUM_TOLERANCE:
        raise CheckFailed(
            f"the row of context {worst} sums to {sums[worst]:.6g}: every row is a distribution "
            "over the next symbol, whether or not its context occurs in the training words"
        )
    return table


def _judge_target(rng: np.random.Generator, size: int, stoi: dict[str, int]) -> Check:
    language = random_language(rng)
    words = sample_words(rng, language, size + HELD_OUT)
    train, held_out = words[:size], words[size:]
    best, n, k = best_add_k(train, held_out, stoi)
    tested = ngram_counts(held_out, stoi, ORDER)  # held-out 4-grams by their ids

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        table = as_table(outcome, len(stoi))
        occurs = tested > 0
        probs, times = table[occurs], tested[occurs]
        if (probs == 0).any():
            raise CheckFailed(
                f"{int(times[probs == 0].sum())} held-out 4-grams have probability 0: one event "
                "the model calls impossible makes the held-out loss infinite"
            )
        loss = float(-(times * np.log(probs)).sum() / times.sum())
        if loss > best - MARGIN:
            raise CheckFailed(
                f"held-out loss {loss:.4f} nats per symbol after {len(train)} training words; the "
                f"best add-k model (order {n}, k = {k:.3g}, both tuned on the held-out words "
                f"themselves) reaches {best:.4f}, and the target is {best - MARGIN:.4f}: how far "
                "a context's own counts can be trusted depends on how often it was seen, and on "
                "what the shorter contexts say"
            )
        expect_unchanged(outcome, (train, stoi))

    what = (
        f"{len(train)} training words of a random language: held-out loss at least {MARGIN} below "
        "the best add-k model's"
    )
    return Check(what, [Call((train, stoi))], judge)


def _judge_small(words: list[str], stoi: dict[str, int]) -> Check:
    seen = ngram_counts(words, stoi, ORDER) > 0

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        table = as_table(outcome, len(stoi))
        if (table[seen] == 0).any():
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
        expect_unchanged(outcome, (words, stoi))

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
        expect_unchanged(outcomes[0], ([], stoi))

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
        checks.append(_judge_target(rng, size, stoi))
    return checks
