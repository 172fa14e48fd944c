"""Character datasets for names: every position's previous block_size ids and the id that follows."""

import torch

from proof_lm.vocab import encode, padded_windows


def name_windows(
    names: list[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y) int64 tensors: contexts padded with '.' (0) at the start, oldest first; targets include the final '.'."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    windows = torch.from_numpy(padded_windows(names, stoi, block_size + 1))  # (N, block_size + 1)
    return windows[:, :-1].contiguous(), windows[:, -1].contiguous()


IGNORE = -100  # the target of padding positions; F.cross_entropy skips it by default


def name_sequences(
    names: list[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y) int64 (N, block_size): X is '.' then the name, Y the name then '.'; padding targets are IGNORE."""
    longest = max((len(name) for name in names), default=0)
    if block_size < longest + 1:
        raise ValueError(f"block_size must be at least {longest + 1} (the longest name + 1)")
    X = torch.zeros((len(names), block_size), dtype=torch.int64)  # padded with '.' after the end
    Y = torch.full((len(names), block_size), IGNORE, dtype=torch.int64)
    for row, name in enumerate(names):
        ids = torch.from_numpy(encode(name, stoi))  # . n a m e .
        X[row, : len(ids) - 1] = ids[:-1]
        Y[row, : len(ids) - 1] = ids[1:]
    return X, Y
