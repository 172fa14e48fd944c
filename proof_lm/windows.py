"""Training examples cut from id streams: context windows (oldest first) and whole-name sequences.

Every context window comes from one builder, `_sliding_windows`; the public functions only pad,
encode and split its rows for their input and output types. The module imports without PyTorch;
its builders are written with PyTorch's tensor operations (imported when called). They answer chapter
03's `context_windows`: the student kit holds them back until that deadline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from proof_lm.vocab import BOUNDARY, encode_text

if TYPE_CHECKING:
    import torch

IGNORE = -100  # the target of padding positions; F.cross_entropy skips it by default


def _sliding_windows(ids: np.ndarray, lengths: np.ndarray, n: int) -> np.ndarray:
    """Every run of n consecutive ids inside one segment of `ids` (segments of `lengths`, back to back): int64 (N, n)."""
    import torch

    if n < 1:
        raise ValueError(f"window length n must be at least 1, got {n}")
    ids = torch.as_tensor(np.ascontiguousarray(ids), dtype=torch.int64)
    lengths = torch.as_tensor(np.ascontiguousarray(lengths))
    count = (lengths - n + 1).clamp(min=0)  # windows per segment
    shift = (lengths.cumsum(0) - lengths) - (count.cumsum(0) - count)  # segment start - first row
    starts = torch.repeat_interleave(shift, count) + torch.arange(int(count.sum()))
    return ids[starts[:, None] + torch.arange(n)].numpy()


def _inputs_and_targets(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Windows of n + 1 ids as torch int64 (contexts (N, n), next ids (N,))."""
    import torch

    rows = torch.from_numpy(rows)
    return rows[:, :-1].contiguous(), rows[:, -1].contiguous()


def padded_windows(names: list[str], stoi: dict[str, int], n: int) -> np.ndarray:
    """Every window of n ids in `name.` after n-1 leading dots, for every name: int64 (N, n), oldest first."""
    padded = [BOUNDARY * (n - 1) + name + BOUNDARY for name in names]
    lengths = np.array([len(p) for p in padded], dtype=np.int64)
    return _sliding_windows(encode_text("".join(padded), stoi), lengths, n)


def name_windows(
    names: list[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y) int64 tensors: contexts padded with '.' (0) at the start, oldest first; targets include the final '.'."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    return _inputs_and_targets(padded_windows(names, stoi, block_size + 1))


def make_context_dataset(
    tokens: Sequence[int] | np.ndarray | torch.Tensor, context_length: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every window of `context_length` tokens and the token after it: int64 (N, n) and (N,)."""
    if context_length < 1:
        raise ValueError(f"context_length must be at least 1, got {context_length}")
    stream = np.asarray(tokens, dtype=np.int64).reshape(-1)
    lengths = np.array([stream.size], dtype=np.int64)
    return _inputs_and_targets(_sliding_windows(stream, lengths, context_length + 1))


def name_sequences(
    names: list[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y) int64 (N, block_size): X is '.' then the name, Y the name then '.'; padding targets are IGNORE."""
    longest = max((len(name) for name in names), default=0)
    if block_size < longest + 1:
        raise ValueError(f"block_size must be at least {longest + 1} (the longest name + 1)")
    import torch

    X = torch.zeros((len(names), block_size), dtype=torch.int64)  # padded with '.' after the end
    Y = torch.full((len(names), block_size), IGNORE, dtype=torch.int64)
    for row, name in enumerate(names):
        ids = torch.from_numpy(encode_text(BOUNDARY + name + BOUNDARY, stoi))  # . n a m e .
        X[row, : len(ids) - 1] = ids[:-1]
        Y[row, : len(ids) - 1] = ids[1:]
    return X, Y
