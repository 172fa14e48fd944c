"""The draft with two bugs fixed: the starts still come from the global random state."""

import torch

EXPECT = "not from the generator passed in"


def get_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    if len(data) <= block_size:
        raise ValueError(
            f"data has {len(data)} ids; it must be longer than block_size={block_size}"
        )
    starts = torch.randint(len(data) - block_size, (batch_size,))  # (B,) valid starts
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])  # (B, T)
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts.tolist()])  # (B, T)
    return x.long(), y.long()
