"""Byte-level BPE (chapter 09): train merges, encode text to ids, decode ids to text.

Text is its UTF-8 bytes, ids 0-255; merge i creates id 256 + i. The rules are chapter 09's
exercises; this version keeps them exactly but does not rescan the text every round: the sequence
is a linked list over byte positions, every pair keeps the set of positions where it starts, and a
merge touches only its own occurrences and their neighbours. A heap orders the pairs, by (count,
first position) when training, by merge index when encoding, with stale entries skipped.
"""

import heapq
import operator
from collections.abc import Iterable

FIRST_ID = 256  # merge i creates id FIRST_ID + i

Pair = tuple[int, int]


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise ValueError(f"expected a str, got {type(text).__name__}")


def check_merges(merges: Iterable) -> list[Pair]:
    """`merges` as a list of (int, int) pairs; ValueError unless merge i uses only ids below 256 + i."""
    checked = []
    for i, pair in enumerate(merges):
        if not (isinstance(pair, tuple | list) and len(pair) == 2):
            raise ValueError(f"merge {i} is {pair!r}; expected a pair (a, b) of ids")
        a, b = (int(x) for x in pair)
        if not (0 <= a < FIRST_ID + i and 0 <= b < FIRST_ID + i):
            raise ValueError(f"merge {i} = {pair!r} uses an id that does not exist before it")
        checked.append((a, b))
    return checked


def _linked(tokens: list[int]) -> tuple[list[int], list[int]]:
    """(prev, next) position links of a sequence; -1 at the ends."""
    n = len(tokens)
    return list(range(-1, n - 1)), [*range(1, n), -1][:n]


def _merge_pair(
    pair: Pair,
    new: int,
    tokens: list[int],
    prev: list[int],
    next_: list[int],
    where: dict[Pair, set[int]],
    keep: object = None,
) -> set[Pair]:
    """Replace every occurrence of `pair`, left to right without overlap; return the pairs touched.

    `where[p]` is the set of positions where pair p starts; it is updated for the neighbours
    (pairs that `keep` does not contain are not tracked when `keep` is given).
    """
    touched: set[Pair] = set()

    def drop(p: Pair, at: int) -> None:
        positions = where.get(p)
        if positions is not None:
            positions.discard(at)
            touched.add(p)

    def add(p: Pair, at: int) -> None:
        if keep is None or p in keep:
            where.setdefault(p, set()).add(at)
            touched.add(p)

    a, b = pair
    occurrences = where.get(pair, set())
    for i in sorted(occurrences):
        if i not in occurrences:  # consumed by the occurrence just before it (a run like 'aaa')
            continue
        j = next_[i]
        h, k = prev[i], next_[j]
        if h != -1:
            drop((tokens[h], a), h)
            add((tokens[h], new), h)
        if k != -1:
            drop((b, tokens[k]), j)
            add((new, tokens[k]), i)
            prev[k] = i
        occurrences.discard(i)
        tokens[i], next_[i] = new, k
    where.pop(pair, None)
    touched.discard(pair)
    return touched


def _pair_positions(tokens: list[int], keep: object = None) -> dict[Pair, set[int]]:
    where: dict[Pair, set[int]] = {}
    for i in range(len(tokens) - 1):
        pair = (tokens[i], tokens[i + 1])
        if keep is None or pair in keep:
            where.setdefault(pair, set()).add(i)
    return where


def bpe_train(text: str, vocab_size: int) -> list[Pair]:
    """Merges learned from `text` until `vocab_size` ids exist (fewer once no pair occurs twice)."""
    _check_text(text)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < FIRST_ID:
        raise ValueError(f"vocab_size must be an int >= 256 (the bytes), got {vocab_size!r}")
    tokens = list(text.encode("utf-8"))
    prev, next_ = _linked(tokens)
    where = _pair_positions(tokens)
    heap = [(-len(s), min(s), pair) for pair, s in where.items()]  # most frequent, then first
    heapq.heapify(heap)
    merges: list[Pair] = []
    while heap and len(merges) < vocab_size - FIRST_ID:
        count, _, pair = heapq.heappop(heap)
        if len(where.get(pair, ())) != -count:  # stale: the pair's count changed since
            continue
        if -count < 2:
            break
        touched = _merge_pair(pair, FIRST_ID + len(merges), tokens, prev, next_, where)
        merges.append(pair)
        for p in touched:  # counts only fall after a pair's first round, so one entry per change
            positions = where.get(p)
            if positions:
                heapq.heappush(heap, (-len(positions), min(positions), p))
            elif positions is not None:
                del where[p]
    return merges


def bpe_encode(text: str, merges: list[Pair]) -> list[int]:
    """The ids of `text`: its bytes, then always the present pair with the lowest merge index merged."""
    _check_text(text)
    merges = check_merges(merges)
    rank: dict[Pair, int] = {}
    for i, pair in enumerate(merges):
        rank.setdefault(pair, i)
    tokens = list(text.encode("utf-8"))
    prev, next_ = _linked(tokens)
    where = _pair_positions(tokens, keep=rank)
    heap = [rank[pair] for pair in where]
    heapq.heapify(heap)
    while heap:
        r = heapq.heappop(heap)
        if not where.get(merges[r]):
            continue
        for p in _merge_pair(merges[r], FIRST_ID + r, tokens, prev, next_, where, keep=rank):
            if where.get(p):
                heapq.heappush(heap, rank[p])
    ids, i = [], 0 if tokens else -1
    while i != -1:
        ids.append(tokens[i])
        i = next_[i]
    return ids


def token_bytes(merges: list[Pair]) -> list[bytes]:
    """The bytes every id stands for: 256 single bytes, then one entry per merge."""
    table = [bytes([i]) for i in range(FIRST_ID)]
    for a, b in check_merges(merges):
        table.append(table[a] + table[b])
    return table


def bpe_decode(ids: list[int], merges: list[Pair]) -> str:
    """The text of `ids`: their bytes joined, decoded as UTF-8 with invalid bytes replaced."""
    table = token_bytes(merges)
    parts = []
    for i in ids:
        if isinstance(i, bool) or not 0 <= operator.index(i) < len(table):
            raise ValueError(f"id {i!r} is neither a byte nor a merge (ids 0..{len(table) - 1})")
        parts.append(table[i])
    return b"".join(parts).decode("utf-8", errors="replace")
