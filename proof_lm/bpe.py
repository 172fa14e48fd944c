"""Byte-level BPE (chapter 09): train merges, encode text to ids, decode ids to text.

Text is its UTF-8 bytes, ids 0-255; merge i creates id 256 + i. The rules are chapter 09's
exercises; this version keeps them exactly, on PyTorch tensors (imported when called): each
round counts every adjacent pair at once with `torch.bincount` and replaces a pair everywhere with
one masked assignment, so the library holds no answer to chapter 09's NumPy exercises.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

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


def _bytes(text: str) -> torch.Tensor:
    import torch

    data = text.encode("utf-8")
    if not data:
        return torch.zeros(0, dtype=torch.int64)
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).long()


def _replace(ids: torch.Tensor, pair: Pair, new: int) -> torch.Tensor:
    """`ids` with every occurrence of `pair` replaced by `new`, left to right without overlap."""
    import torch

    a, b = pair
    starts = (ids[:-1] == a) & (ids[1:] == b)  # (N - 1,) where an occurrence could start
    if a == b and bool(starts.any()):  # a run of a's: occurrences at even offsets from its start
        index = torch.arange(len(starts))
        first = starts & ~torch.cat([starts.new_zeros(1), starts[:-1]])
        run_start = torch.cummax(torch.where(first, index, 0), dim=0).values
        starts &= (index - run_start) % 2 == 0
    if not bool(starts.any()):
        return ids
    out = ids.clone()
    out[:-1][starts] = new
    keep = torch.ones_like(ids, dtype=torch.bool)
    keep[1:][starts] = False  # the second id of each occurrence
    return out[keep]


def bpe_train(text: str, vocab_size: int) -> list[Pair]:
    """Merges learned from `text` until `vocab_size` ids exist (fewer once no pair occurs twice)."""
    import torch

    _check_text(text)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < FIRST_ID:
        raise ValueError(f"vocab_size must be an int >= 256 (the bytes), got {vocab_size!r}")
    ids = _bytes(text)
    merges: list[Pair] = []
    while len(merges) < vocab_size - FIRST_ID and len(ids) > 1:
        V = FIRST_ID + len(merges)  # ids in use
        codes = ids[:-1] * V + ids[1:]  # each adjacent pair as one number
        counts = torch.bincount(codes, minlength=V * V)
        top = counts.max()
        if top < 2:
            break
        first = int(torch.argmax((counts[codes] == top).to(torch.uint8)))  # a tie: first to occur
        pair = (int(ids[first]), int(ids[first + 1]))
        merges.append(pair)
        ids = _replace(ids, pair, V)
    return merges


def bpe_encode(text: str, merges: list[Pair]) -> list[int]:
    """The ids of `text`: its bytes, then always the present pair with the lowest merge index merged.

    Since merge i only uses ids below 256 + i, a merge never creates a pair with a lower index:
    applying the merges once each, in order, is the same.
    """
    _check_text(text)
    ids, done = _bytes(text), set()
    for i, pair in enumerate(check_merges(merges)):
        if pair not in done:  # a pair listed twice is merged at its lowest index
            done.add(pair)
            ids = _replace(ids, pair, FIRST_ID + i)
    return ids.tolist()


def _expand(ids: torch.Tensor, merges: list[Pair]) -> torch.Tensor:
    """The bytes (ids below 256) that `ids` stand for, in order."""
    import torch

    pairs = torch.tensor(merges, dtype=torch.int64).reshape(-1, 2)
    while bool((ids >= FIRST_ID).any()):
        merged = ids >= FIRST_ID
        width = merged.long() + 1  # a merged id becomes its two parts
        out = torch.repeat_interleave(ids, width)
        at = (torch.cumsum(width, 0) - width)[merged]  # where each merged id's parts go
        parts = pairs[ids[merged] - FIRST_ID]
        out[at], out[at + 1] = parts[:, 0], parts[:, 1]
        ids = out
    return ids


def token_bytes(merges: list[Pair]) -> list[bytes]:
    """The bytes every id stands for: 256 single bytes, then one entry per merge."""
    import torch

    merges = check_merges(merges)
    return [
        bytes(_expand(torch.tensor([i]), merges).tolist()) for i in range(FIRST_ID + len(merges))
    ]


def bpe_decode(ids: list[int], merges: list[Pair]) -> str:
    """The text of `ids`: their bytes joined, decoded as UTF-8 with invalid bytes replaced."""
    import torch

    merges, ids = check_merges(merges), list(ids)
    size = FIRST_ID + len(merges)
    for i in ids:
        if isinstance(i, bool) or not 0 <= operator.index(i) < size:
            raise ValueError(f"id {i!r} is neither a byte nor a merge (ids 0..{size - 1})")
    expanded = _expand(torch.tensor([int(i) for i in ids], dtype=torch.int64), merges)
    return bytes(expanded.tolist()).decode("utf-8", errors="replace")
