"""Hidden checks for chapter 09: bpe_train, bpe_encode, bpe_decode (byte-level BPE).

The references are the plain definitions, one round at a time over Python lists: count every
adjacent pair (overlapping), take the most frequent (ties: the pair seen first in the current
sequence), replace left to right. They share nothing with `proof_lm.bpe`, whose vectorised
(PyTorch) rounds are checked against them in tests/test_bpe.py. Diagnoses are the same definitions with
one rule changed (the tie rule, the counting, the replacement direction, the stop rule, the ids,
a normalised text, a pair listed twice taken at its later index).

The input classes of the contracts, each in a fixed case (random texts add coverage, never replace
it): for bpe_train, the empty text, one byte, runs and ties, overlapping pairs, a text whose pairs
stop repeating, accents, CJK and emoji (multi-byte characters), combining accents (not NFC),
U+FEFF, control characters, vocab_size below 256; for bpe_encode, the empty text, one byte, no
merges, runs, merge order against frequency, merges that never apply, a pair listed twice (lowest
index wins), U+FEFF, combining accents, control characters, escaped surrogates (a str that UTF-8
encodes holds no lone surrogate; its escapes are backslashes); for bpe_decode, no ids, bytes only,
nested merges, (b, a), invalid UTF-8 (0xff, a character cut short, a Latin-1 byte, stray
continuation bytes, a surrogate's UTF-8 form), merges across characters, U+FEFF, combining
accents, control characters, escaped surrogates, a pair named twice, and ids out of range. The
types the contracts name (int ids, pairs of int) are judged in the sandbox (`typed_probe`), before
plain data turns a NumPy integer into an int.
"""

import functools
import re
import unicodedata
from collections.abc import Callable
from itertools import pairwise

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.expect import expect_raises, expect_unchanged, value_of
from autograder.sandbox.guest.calls import Call, Outcome

FIRST = 256  # merge i creates id FIRST + i

# Character pools for random texts: few symbols give many repeated pairs, ties and runs.
POOLS = {
    "ascii": "ab",
    "letters": "abc ",
    "words": "the cat sat on a mat. ",
    "accents": "éèàüñ ae",
    "emoji": "😀🎉👍🏽 a",
    "cjk": "中文字言語 。",
    "mixed": "aé中😀 b",
}


def random_text(rng: np.random.Generator, pool: str, length: int) -> str:
    """`length` characters drawn from `pool`."""
    return "".join(rng.choice(list(pool), size=length))


def replace(ids: list[int], pair: tuple[int, int], new: int, right_to_left: bool = False) -> list:
    """Every non-overlapping occurrence of `pair` replaced by `new`, scanning left to right."""
    seq = ids[::-1] if right_to_left else ids
    target = pair[::-1] if right_to_left else pair
    out, i = [], 0
    while i < len(seq):
        if i + 1 < len(seq) and (seq[i], seq[i + 1]) == target:
            out.append(new)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out[::-1] if right_to_left else out


def pair_counts(ids: list[int], overlapping: bool = True) -> dict[tuple[int, int], int]:
    """{pair: count} in order of first occurrence; non-overlapping skips a pair right after an equal one."""
    counts: dict[tuple[int, int], int] = {}
    last_end: dict[tuple[int, int], int] = {}
    for i, pair in enumerate(pairwise(ids)):
        if not overlapping and last_end.get(pair, -1) > i:
            continue
        counts[pair] = counts.get(pair, 0) + 1
        last_end[pair] = i + 2
    return counts


def to_ids(text: str, chars: bool = False) -> list[int]:
    """The UTF-8 bytes of `text` (or, wrongly, its code points)."""
    return [ord(ch) for ch in text] if chars else list(text.encode("utf-8"))


def reference_train(
    text: str,
    vocab_size: int,
    tie: str = "first",
    overlapping: bool = True,
    right_to_left: bool = False,
    min_count: int = 2,
    first: int = FIRST,
    chars: bool = False,
    recount: bool = True,
    normalise: str = "",
    stale: str = "",
) -> list[tuple[int, int]]:
    """The contract's training, or one rule changed (for the diagnoses).

    stale: counts kept across merges the wrong way — "new": the pairs a merge forms are never
    counted; "kept": the pairs a merge breaks keep their counts (see `_kept_counts_train`).
    """
    if stale == "kept":
        return _kept_counts_train(text, vocab_size)
    ids, merges = to_ids(unicodedata.normalize(normalise, text) if normalise else text, chars), []
    frozen = pair_counts(ids, overlapping)
    while len(merges) < vocab_size - 256:
        if stale == "new":  # only pairs of bytes ever counted, each exactly
            counts = {p: c for p, c in pair_counts(ids).items() if c >= min_count and max(p) < 256}
        elif recount:
            counts = {p: c for p, c in pair_counts(ids, overlapping).items() if c >= min_count}
        else:  # the first round's counts, less the pairs merged already
            counts = {p: c for p, c in frozen.items() if c >= min_count and p not in set(merges)}
        if not counts:
            break
        top = max(counts.values())
        tied = [p for p, c in counts.items() if c == top]  # in order of first occurrence
        pair = {"first": tied[0], "last": tied[-1], "smallest": min(tied), "largest": max(tied)}[
            tie
        ]
        ids = replace(ids, pair, first + len(merges), right_to_left)
        merges.append(pair)
    return merges


def _kept_counts_train(text: str, vocab_size: int) -> list[tuple[int, int]]:
    """Training whose counts never lose the pairs a merge breaks, only gain the pairs it forms.

    Each pair keeps the set of positions (a token's first byte) where it was ever seen; a merge
    drops its own pair, replaces as the contract says and adds the new pairs on both sides of
    each replaced occurrence. The next pair: the largest set, ties to the smallest position.
    """
    ids = to_ids(text)
    origins = list(range(len(ids)))  # where each token's first byte sits in the text
    seen: dict[tuple[int, int], set[int]] = {}
    for at, pair in zip(origins, pairwise(ids), strict=False):
        seen.setdefault(pair, set()).add(at)
    merges: list[tuple[int, int]] = []
    while seen and len(merges) < vocab_size - 256:
        pair = max(seen, key=lambda p: (len(seen[p]), -min(seen[p])))
        if len(seen[pair]) < 2:
            break
        new, out, kept, i = FIRST + len(merges), [], [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                if out:
                    seen.setdefault((out[-1], new), set()).add(kept[-1])
                if i + 2 < len(ids):
                    seen.setdefault((new, ids[i + 2]), set()).add(origins[i])
                out.append(new)
                kept.append(origins[i])
                i += 2
            else:
                out.append(ids[i])
                kept.append(origins[i])
                i += 1
        del seen[pair]
        ids, origins = out, kept
        merges.append(pair)
    return merges


def reference_encode(
    text: str,
    merges: list,
    rule: str = "rank",
    right_to_left: bool = False,
    first: int = FIRST,
    chars: bool = False,
    duplicates: str = "first",
    normalise: str = "",
) -> list[int]:
    """The contract's encoding (lowest merge index first; a pair listed twice at its lowest index),
    or one rule changed (for the diagnoses)."""
    ids = to_ids(unicodedata.normalize(normalise, text) if normalise else text, chars)
    order = list(enumerate(merges))
    rank = {tuple(pair): i for i, pair in (reversed(order) if duplicates == "first" else order)}
    while True:
        counts = {p: c for p, c in pair_counts(ids).items() if p in rank}
        if not counts:
            return ids
        if rule == "rank":
            pair = min(counts, key=rank.__getitem__)
        elif rule == "frequency":
            pair = max(counts, key=counts.__getitem__)
        elif rule == "latest":
            pair = max(counts, key=rank.__getitem__)
        else:  # "smallest": the numerically smallest pair
            pair = min(counts)
        ids = replace(ids, pair, first + rank[pair], right_to_left)


def byte_table(merges: list, reverse_pairs: bool = False) -> list[bytes]:
    """The bytes each id stands for: 256 single bytes, then one entry per merge."""
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(table[b] + table[a] if reverse_pairs else table[a] + table[b])
    return table


def reference_decode(ids: list[int], merges: list, errors: str = "replace") -> str:
    """Expand every id to its bytes, then decode the whole as UTF-8."""
    table = byte_table(merges)
    if any(not 0 <= i < len(table) for i in ids):
        raise ValueError("an id is neither a byte nor a merge")
    return b"".join(table[i] for i in ids).decode("utf-8", errors=errors)


def variant_decode(ids: list[int], merges: list, kind: str) -> str | None:
    """Decoding with one rule changed; None where that variant would raise."""
    try:
        if kind == "per_token":
            return "".join(
                t.decode("utf-8", errors="replace") for t in (byte_table(merges)[i] for i in ids)
            )
        if kind == "reversed":
            return b"".join(byte_table(merges, True)[i] for i in ids).decode("utf-8", "replace")
        if kind == "latin1":
            return b"".join(byte_table(merges)[i] for i in ids).decode("latin-1")
        if kind == "sig":
            return b"".join(byte_table(merges)[i] for i in ids).decode("utf-8-sig", "replace")
        if kind == "nfc":
            return unicodedata.normalize("NFC", reference_decode(ids, merges))
        return reference_decode(ids, merges, errors=kind)  # "ignore"
    except (IndexError, UnicodeDecodeError, ValueError):
        return None


# ---------------------------------------------------------------- judging helpers


def _ints(value: object, what: str) -> list[int]:
    if not isinstance(value, list):
        extra = " (call .tolist())" if isinstance(value, np.ndarray) else ""
        raise CheckFailed(f"returned {type(value).__name__}; expected a list of {what}{extra}")
    return value


TYPED = "autograder.sandbox.guest.probes:typed_probe"  # the answer's types, judged in the sandbox


def typed_call(args: tuple) -> Call:
    """A call whose answer's item types are recorded before they become plain data."""
    return Call(args, probe=TYPED)


def _untyped(outcome: Outcome) -> tuple[Outcome, list | None]:
    """The typed probe's answer as a plain outcome, with the type names of its items."""
    if outcome.error is not None:
        return outcome, None
    report = value_of(outcome)
    return Outcome(value=report["value"], args_after=report["args_after"]), report["items"]


def merges_answer(outcome: Outcome) -> list[tuple[int, int]]:
    """The answer as a list of (int, int) pairs (a pair may be a tuple or a list), each id an int
    in the student's own process (a NumPy integer is not one)."""
    outcome, items = _untyped(outcome)
    if outcome.error == "NotPlain" and "a dict" in outcome.message:
        raise CheckFailed("returned a dict; expected a list of (a, b) pairs, merge 0 first")
    value = _ints(value_of(outcome), "(a, b) pairs of ids")
    pairs = []
    for i, pair in enumerate(value):
        kinds = items[i] if items is not None else ["int", "int"]
        if not (
            isinstance(pair, tuple | list)
            and len(pair) == 2
            and all(type(x) is int for x in pair)
            and kinds == ["int", "int"]
        ):
            shown = f"{pair!r} ({', '.join(kinds)})" if isinstance(kinds, list) else repr(pair)
            raise CheckFailed(f"merge {i} is {shown}; each merge must be a pair (a, b) of int ids")
        pairs.append(tuple(pair))
    return pairs


def ids_answer(outcome: Outcome) -> list[int]:
    """The answer as a list of ints, each an int in the student's own process (a NumPy integer
    is not one)."""
    outcome, items = _untyped(outcome)
    value = _ints(value_of(outcome), "int ids")
    for i, item in enumerate(value):
        kind = items[i] if items is not None else type(item).__name__
        if type(item) is not int or kind != "int":
            raise CheckFailed(f"item {i} is a {kind}; expected int ids")
    return value


def _show(value: object, limit: int = 12) -> str:
    if isinstance(value, list) and len(value) > limit:
        return f"[{', '.join(map(repr, value[:limit]))}, ...] ({len(value)} items)"
    return repr(value)


def _compare(
    actual: object,
    expected: object,
    diagnoses: Callable[[], list[tuple[str, object]]],
    note: str = "",
) -> None:
    """Pass when equal; else name every mistake whose result matches, or show the first difference
    (followed by `note`, what the case is about)."""
    if actual == expected:
        return
    known = [
        hint for hint, candidate in diagnoses() if candidate is not None and actual == candidate
    ]
    if known:
        raise CheckFailed("; or ".join(dict.fromkeys(known)))
    if isinstance(actual, list) and isinstance(expected, list):
        where = next(
            (i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e),
            min(len(actual), len(expected)),
        )
        got = actual[where] if where < len(actual) else "nothing (too short)"
        want = expected[where] if where < len(expected) else "nothing (too long)"
        raise CheckFailed(
            f"{len(actual)} items, expected {len(expected)}; first difference at index {where}: "
            f"got {got!r}, expected {want!r}{note}"
        )
    raise CheckFailed(f"got {_show(actual)}, expected {_show(expected)}{note}")


def _rejects(args: tuple, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        if outcome.error in ("IndexError", "KeyError"):
            raise CheckFailed(
                f"raised {outcome.error}; raise ValueError yourself, with a message ({hint})"
            )
        expect_raises(outcome, "ValueError", hint)

    return Check(what, [Call(args)], judge)


# ---------------------------------------------------------------- bpe_train

OVERLAP = "every adjacent pair counts, overlapping ones too: how many (a, a) does 'aaa' hold?"
TIE = (
    "a tie between equally frequent pairs went the wrong way: the contract picks the pair that "
    "occurs first in the current sequence"
)
RUN = (
    " (the text has a run of one character: in 'aaa' the occurrences of (a, a) overlap, and "
    "replacing the first one uses up the second)"
)
TRAIN_DIAGNOSES: list[tuple[str, dict]] = [
    ("the pairs are counted without overlap; " + OVERLAP, {"overlapping": False}),
    (TIE + ", not the numerically smallest pair", {"tie": "smallest"}),
    (TIE + ", not the numerically largest pair", {"tie": "largest"}),
    (TIE + ", not the one that occurs last", {"tie": "last"}),
    (
        "the merge replaced right to left: in 'aaa' the merge of (a, a) gave [a, X]",
        {"right_to_left": True},
    ),
    ("a pair seen once was merged: when does training stop?", {"min_count": 1}),
    ("a pair that occurs exactly twice was not merged: when does training stop?", {"min_count": 3}),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 255}),
    ("off by one: merge 0 creates id 256 (not 257), merge i creates 256 + i", {"first": 257}),
    (
        "work on the UTF-8 bytes (text.encode('utf-8')), not on the characters' code points",
        {"chars": True},
    ),
    (
        "count the pairs again after every merge: each round counts the current sequence",
        {"recount": False},
    ),
    (
        "the text was normalised before training: the bytes of its characters as given, composed "
        "or not, are what is counted",
        {"normalise": "NFC"},
    ),
]


def _train_check(
    text: str,
    vocab_size: int,
    what: str,
    rules: list[tuple[str, dict]] = TRAIN_DIAGNOSES,
    expected: list | None = None,
) -> Check:
    expected = reference_train(text, vocab_size) if expected is None else expected
    note = RUN if re.search(r"(.)\1\1", text) else ""

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731 (only computed for a wrong answer)
            (hint, reference_train(text, vocab_size, **rule)) for hint, rule in rules
        ]
        _compare(merges_answer(outcome), expected, diagnoses, note)

    return Check(what, [typed_call((text, vocab_size))], judge)


def bpe_train_checks(
    rng: np.random.Generator, rules: list[tuple[str, dict]] = TRAIN_DIAGNOSES
) -> list[Check]:
    """Fixed cases for each rule (overlap, ties, stop, runs, Unicode), random texts, bad sizes."""
    train = functools.partial(_train_check, rules=rules)
    checks = [
        train("aaa", 300, "'aaa': (a, a) occurs twice, overlapping, so it is merged"),
        train("aaaa", 300, "'aaaa' becomes [X, X]: replace without overlap"),
        train("aaaaaaa", 300, "a run of 7 a's"),
        train("abab", 300, "'abab': a pair seen exactly twice is merged, then stop"),
        train("aaabcbc", 258, "a tie between (a, a) in 'aaa' and (b, c)"),
        train("dcfaebdcfaeb", 257, "a tie among 5 pairs: the first to occur wins"),
        train("dcfaebdcfaeb", 262, "ties after merges"),
        train("aaabdaaabac", 259, "the Wikipedia example 'aaabdaaabac'"),
        train("the cat sat on the mat", 270, "a sentence"),
        train("héllo wörld héllo wörld", 280, "accents are two bytes each"),
        train("中文中文字字字", 270, "CJK is three bytes a character"),
        train("😀😀😀 👍🏽👍🏽", 275, "emoji are four bytes a code point"),
        train("abcdefg", 300, "no pair occurs twice: no merges"),
        train("", 300, "the empty text: no merges"),
        train("a", 300, "one byte: no merges"),
        train("the the the the", 256, "vocab_size 256: no merges"),
    ]
    for pool, length, merges in [
        ("ascii", 40, 12),
        ("ascii", 120, 30),
        ("letters", 150, 40),
        ("words", 300, 40),
        ("accents", 80, 25),
        ("emoji", 40, 25),
        ("cjk", 60, 30),
        ("mixed", 100, 30),
    ]:
        text = random_text(rng, POOLS[pool], length)
        checks.append(
            train(text, 256 + merges, f"random {pool} text of {length} characters, {merges} merges")
        )
    words = random_text(rng, POOLS["words"], 3000)
    checks.append(train(words, 356, "a text of 3,000 characters, 100 merges"))
    checks.append(
        train("ab" * 30 + "c", 600, "'abab...' merges until no pair repeats (stops early)")
    )
    checks += [
        train("e\u0301te\u0301 e\u0301te\u0301 cafe\u0301", 262, "combining accents (not NFC)"),
        train("\ufeff\ufeffab\ufeffab", 260, "U+FEFF characters (BOMs) in the text"),
        train("a\x00a\x00\t\t\n\n\x1b\x1b", 262, "control characters"),
        train("", 300, "the empty text: no merges"),
        train("a", 300, "one byte: no merges"),
    ]
    checks += [
        _rejects(("abc", size), f"vocab_size {size} raises ValueError", "vocab_size must be >= 256")
        for size in (255, 0, -3)
    ]
    return checks


# ---------------------------------------------------------------- bpe_train_fast

SPEED_RATIO = 5.0  # the student's timed run may take this many times the reference's CPU time
SPEED_CHARS, SPEED_MERGES = 200_000, 500  # the timed call: a slice of the corpus, its merges
SPEED_ANCHOR = "proof_lm.bpe:bpe_train"  # what a student's own kernel times against (as fast)
STALE = (
    "a later merge was chosen from counts that are not those of the current sequence: a merge "
    "changes the pairs on both sides of every occurrence it replaces"
)
FAST_DIAGNOSES = [
    (STALE if rule == {"recount": False} else hint, rule) for hint, rule in TRAIN_DIAGNOSES
] + [
    (
        "the pairs a merge forms with the new id never became candidates: after a merge of "
        "(a, b), what stands on each side of the new token?",
        {"stale": "new"},
    ),
    (
        "the pairs a merge breaks kept their counts: in 'x a b y', merging (a, b) ends (x, a) "
        "and (b, y) there",
        {"stale": "kept"},
    ),
]
SLOW = (
    "the work grows with merges x text length: each merge changes the pairs around its own "
    "occurrences only, and what it did not touch need not be counted again"
)


def bpe_train_fast_checks(rng: np.random.Generator) -> list[Check]:
    """bpe_train's cases and diagnoses (the same contract); the speed is judged by the runner."""
    return bpe_train_checks(rng, FAST_DIAGNOSES)


def bpe_train_fast_timed(rng: np.random.Generator) -> Check:
    """The timed call: SPEED_MERGES merges of a random SPEED_CHARS-character slice of the corpus.

    Its expected merges come from `proof_lm.bpe.bpe_train` (the plain definition would take the
    grader seconds here); tests/test_bpe.py checks that one against the plain definition.
    """
    from proof_lm.bpe import bpe_train
    from proof_lm.shakespeare import load_shakespeare

    corpus = load_shakespeare()
    start = int(rng.integers(0, len(corpus) - SPEED_CHARS))
    text = corpus[start : start + SPEED_CHARS]
    what = f"{SPEED_MERGES} merges of {SPEED_CHARS:,} characters of Shakespeare"
    expected = bpe_train(text, 256 + SPEED_MERGES)
    return _train_check(text, 256 + SPEED_MERGES, what, FAST_DIAGNOSES, expected)


# ---------------------------------------------------------------- bpe_encode

ENCODE_DIAGNOSES: list[tuple[str, dict]] = [
    (
        "the most frequent pair was merged first: merges apply in the order they were learned",
        {"rule": "frequency"},
    ),
    (
        "the latest merge was applied first: merges apply in the order they were learned",
        {"rule": "latest"},
    ),
    (
        "the pair was chosen by the values of its ids: merges apply in the order they were learned",
        {"rule": "smallest"},
    ),
    (
        "the merge replaced right to left: with (a, a), 'aaa' encoded as [a, X]",
        {"right_to_left": True},
    ),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 255}),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 257}),
    ("start from the UTF-8 bytes (text.encode('utf-8')), not the code points", {"chars": True}),
    (
        "a pair the merge list names twice took its later index: which index does the contract "
        "give such a pair?",
        {"duplicates": "last"},
    ),
    (
        "the text was normalised before encoding: the bytes of its characters as given, composed "
        "or not, are what is encoded",
        {"normalise": "NFC"},
    ),
]


def _encode_check(text: str, merges: list, what: str) -> Check:
    expected = reference_encode(text, merges)
    args = (text, merges)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731
            (hint, reference_encode(text, merges, **rule)) for hint, rule in ENCODE_DIAGNOSES
        ]
        _compare(ids_answer(outcome), expected, diagnoses)
        expect_unchanged(_untyped(outcome)[0], args)

    return Check(what, [typed_call(args)], judge)


def bpe_encode_checks(rng: np.random.Generator) -> list[Check]:
    """No merges, merges trained on the same and on other texts, order against frequency, runs."""
    checks = [
        _encode_check("", [], "the empty text"),
        _encode_check("a", [], "one byte"),
        _encode_check("héllo 中文 😀", [], "no merges: the UTF-8 bytes"),
        _encode_check("aaa", [(97, 97)], "'aaa' with the merge (a, a): [256, 97]"),
        _encode_check("aaaaa", [(97, 97), (256, 256)], "a run of 5 a's"),
        _encode_check(
            "abc abc ab ab ab",
            [(98, 99), (97, 98)],
            "merge 0 is (b, c), rarer here than merge 1 (a, b): merge order wins",
        ),
        _encode_check(
            "abcd",
            [(99, 100), (98, 99), (97, 98), (256, 97)],
            "the lowest merge index first, wherever it is",
        ),
        _encode_check("zzz", [(97, 98), (98, 99)], "merges that never apply"),
        _encode_check("aa", [(97, 97), (97, 97)], "a pair listed twice counts at its lowest index"),
        _encode_check(
            "aa", [(97, 97), (98, 98), (97, 97)], "a pair listed twice, two places apart"
        ),
        _encode_check(
            "aaaa", [(98, 98), (97, 97), (97, 97), (257, 257)], "a pair listed twice among others"
        ),
        _encode_check("\ufeffabab", [(97, 98)], "a text that starts with U+FEFF (a BOM)"),
        _encode_check(
            "e\u0301te\u0301 cafe\u0301", [(204, 129), (101, 256)], "combining accents (not NFC)"
        ),
        _encode_check("a\x00b\tc\n\x1b[0m\r", [(97, 0)], "control characters"),
        _encode_check("\\ud83d\\ude00 \\n", [(92, 117)], "escaped surrogates: backslashes"),
    ]
    for pool, length, merges in [
        ("letters", 200, 30),
        ("words", 400, 50),
        ("accents", 120, 30),
        ("emoji", 60, 30),
        ("cjk", 90, 30),
        ("mixed", 150, 40),
    ]:
        train = random_text(rng, POOLS[pool], length)
        learned = reference_train(train, 256 + merges)
        checks.append(
            _encode_check(train, learned, f"random {pool} text with the merges trained on it")
        )
        other = random_text(rng, POOLS[pool], length // 2)
        checks.append(
            _encode_check(other, learned, f"another random {pool} text with those merges")
        )
    words = random_text(rng, POOLS["words"], 1500)
    checks.append(
        _encode_check(
            random_text(rng, POOLS["words"], 600),
            reference_train(words, 336),
            "a text of 600 characters with 80 merges from another text",
        )
    )
    return checks


# ---------------------------------------------------------------- bpe_decode

DECODE_DIAGNOSES = [
    (
        "the bytes of one character, spread over several tokens, came back as '\ufffd's: UTF-8 "
        "decodes whole characters, and a token can end inside one",
        "per_token",
    ),
    ("invalid UTF-8 vanished: the contract shows each bad sequence as '\ufffd'", "ignore"),
    ("the bytes were decoded with another encoding than UTF-8", "latin1"),
    (
        "a merge's bytes came out in the wrong order: merge (a, b) stands for the bytes of a "
        "followed by the bytes of b",
        "reversed",
    ),
    (
        "a leading U+FEFF went missing: it is a character of the text like any other (what does "
        "the codec you decode with do with it?)",
        "sig",
    ),
    (
        "the characters came back normalised (composed): decoding gives back the text's own "
        "characters, whatever their form",
        "nfc",
    ),
]


def _decode_check(ids: list[int], merges: list, what: str, text: str | None = None) -> Check:
    expected = reference_decode(ids, merges)
    if text is not None:
        assert expected == text  # the reference round trip itself
    args = (ids, merges)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731
            (hint, variant_decode(ids, merges, kind)) for hint, kind in DECODE_DIAGNOSES
        ]
        if outcome.error in ("IndexError", "KeyError"):
            raise CheckFailed(
                f"raised {outcome.error} on valid ids: every id from 0 to 255 + len(merges) must "
                "decode, and merge i is id 256 + i (is the table off by one?)"
            )
        if outcome.error == "UnicodeDecodeError":
            raise CheckFailed(
                "raised UnicodeDecodeError: ids can stand for bytes that are not valid UTF-8 "
                "(what does the contract show for them?)"
            )
        value = value_of(outcome)
        if not isinstance(value, str):
            raise CheckFailed(f"returned {type(value).__name__}; expected a str")
        _compare(value, expected, diagnoses)
        expect_unchanged(outcome, args)

    return Check(what, [Call(args)], judge)


def _round_trip(text: str, merges: list, what: str) -> Check:
    return _decode_check(reference_encode(text, merges), merges, what, text)


def bpe_decode_checks(rng: np.random.Generator) -> list[Check]:
    """Round trips on random Unicode, nested merges, invalid UTF-8, split characters, bad ids."""
    cjk = "中文"  # bytes e4 b8 ad e6 96 87
    checks = [
        _decode_check([], [], "no ids: the empty string", ""),
        _decode_check([104, 105], [], "bytes only", "hi"),
        _decode_check([258], [(97, 98), (256, 99), (257, 257)], "nested merges", "abcabc"),
        _decode_check([256, 99], [(98, 97)], "the merge (b, a) is the bytes 'ba'", "bac"),
        _decode_check([0xFF], [], "the byte 0xff alone is not UTF-8"),
        _decode_check([0xE4, 0xB8], [], "a CJK character cut short"),
        _decode_check([104, 0xE9, 105], [], "a Latin-1 byte inside ASCII"),
        _decode_check(
            [0xE4, 0xB8, 256, 0x96, 0x87], [(0xAD, 0xE6)], "a merge across two characters", cjk
        ),
        _decode_check([256, 256], [(0xC3, 0xA9)], "a merge that is one whole character", "éé"),
        _decode_check(
            [0xA9, 256, 0xA9], [(0xC3, 0xA9)], "stray continuation bytes around a character"
        ),
        _round_trip("\ufeffab\ufeff", [(97, 98)], "round trip: U+FEFF at the start and the end"),
        _round_trip("e\u0301te\u0301 n\u0303", [(204, 129)], "round trip: combining accents"),
        _round_trip("a\x00b\tc\n\x1b[0m\r", [], "round trip: control characters"),
        _round_trip("\\ud83d\\ude00", [(92, 117)], "round trip: escaped surrogates"),
        _decode_check([0xED, 0xA0, 0xBD], [], "the UTF-8 form of a surrogate is not valid UTF-8"),
        _decode_check([97, 97], [(97, 97), (97, 97)], "a merge list that names a pair twice", "aa"),
    ]
    for pool, length, merges in [
        ("accents", 100, 30),
        ("emoji", 50, 30),
        ("cjk", 80, 30),
        ("mixed", 120, 40),
        ("words", 200, 30),
    ]:
        learned = reference_train(random_text(rng, POOLS[pool], length), 256 + merges)
        for text, label in [
            (random_text(rng, POOLS[pool], length), f"random {pool} text"),
            (random_text(rng, POOLS["mixed"], 40), f"mixed text with {pool} merges"),
        ]:
            checks.append(_round_trip(text, learned, f"round trip: {label}"))
    checks.append(_round_trip("x", [], "round trip: one byte, no merges"))
    checks.append(_round_trip("", [(97, 97)], "round trip: the empty text"))
    merges = [(97, 98), (256, 99)]
    bad = [
        ([-1], "a negative id (a list index of -1 reads the last entry)"),
        ([97, 258], "the id one past the last merge"),
        ([300], "an id far past the last merge"),
    ]
    checks += [
        _rejects((ids, merges), f"{label} raises ValueError", "ids go from 0 to 255 + len(merges)")
        for ids, label in bad
    ]
    checks.append(
        _rejects(([256], []), "with no merges, 256 raises ValueError", "no merge creates 256")
    )
    return checks
