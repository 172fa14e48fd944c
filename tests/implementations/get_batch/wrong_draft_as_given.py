"""The draft handed out in chapter 08: three bugs (the last start, the generator, y)."""

import torch

EXPECT = "y is not data one position ahead of x at its end"


def get_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    if len(data) <= block_size:
        raise ValueError(
            f"data has {len(data)} ids; it must be longer than block_size={block_size}"
        )
    starts = torch.randint(len(data) - block_size - 1, (batch_size,))  # (B,) valid starts
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])  # (B, T)
    y = torch.roll(x, shifts=-1, dims=1)  # (B, T): x one position later
    return x.long(), y.long()
