"""Character datasets for names: every position's previous block_size ids and the id that follows."""

import torch

from proof_lm.vocab import padded_windows


def name_windows(
    names: list[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y) int64 tensors: contexts padded with '.' (0) at the start, oldest first; targets include the final '.'."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    windows = torch.from_numpy(padded_windows(names, stoi, block_size + 1))  # (N, block_size + 1)
    return windows[:, :-1].contiguous(), windows[:, -1].contiguous()
