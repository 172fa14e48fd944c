"""What the checks of `bpe_train`, `bpe_train_fast`, `bpe_encode`, `bpe_decode` share.

The references are the plain definitions, one round at a time over Python lists: count every
adjacent pair (overlapping), take the most frequent (ties: the pair seen first in the current
sequence), replace left to right. They share nothing with `proof_lm.bpe`, whose vectorised
(PyTorch) rounds are checked against them in tests/library/test_bpe.py. Diagnoses are the same definitions with
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

import unicodedata
from collections.abc import Callable
from itertools import pairwise

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.expect import expect_raises, value_of
from autograder.sandbox.guest import probes
from autograder.sandbox.guest.protocol import Call, Outcome

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


def _ints(value: object, what: str) -> list[int]:
    if not isinstance(value, list):
        extra = " (a NumPy array is not a list)" if isinstance(value, np.ndarray) else ""
        raise CheckFailed(f"returned {type(value).__name__}; expected a list of {what}{extra}")
    return value


TYPED = probes.typed_probe  # the answer's types, judged in the sandbox


def typed_call(args: tuple) -> Call:
    """A call whose answer's item types are recorded before they become plain data."""
    return Call(args, probe=TYPED)


def _untyped(outcome: Outcome) -> tuple[Outcome, list | None]:
    """The typed probe's answer as a plain outcome, with the type names of its items."""
    if outcome.error is not None:
        return outcome, None
    report = value_of(outcome)
    return Outcome(value=report["value"], args_after=report["args_after"]), report["items"]


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
                f"raised {outcome.error} where the contract raises ValueError with a message ({hint})"
            )
        expect_raises(outcome, "ValueError", hint)

    return Check(what, [Call(args)], judge)
