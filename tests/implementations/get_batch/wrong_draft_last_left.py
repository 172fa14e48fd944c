"""The draft with two bugs fixed: the last valid start is still never drawn."""

import torch

EXPECT = "is never drawn"


def get_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    if len(data) <= block_size:
        raise ValueError(
            f"data has {len(data)} ids; it must be longer than block_size={block_size}"
        )
    starts = torch.randint(
        len(data) - block_size - 1, (batch_size,), generator=generator
    )  # (B,) valid starts
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])  # (B, T)
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts.tolist()])  # (B, T)
    return x.long(), y.long()
