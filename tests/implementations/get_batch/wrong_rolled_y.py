"""y is x rolled by one inside the window, so its last id is x's first."""

import torch

EXPECT = "one position ahead"


def get_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """batch_size random windows of data (x) and the same windows one position later (y)."""
    if len(data) <= block_size:
        raise ValueError(
            f"data has {len(data)} ids; it must be longer than block_size={block_size}"
        )
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator)  # (B,)
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])  # (B, T)
    y = torch.roll(x, -1, dims=1)
    return x.long(), y.long()
