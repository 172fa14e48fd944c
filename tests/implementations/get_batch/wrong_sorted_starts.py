"""Uniform starts, sorted before the windows are cut: each start is still uniform overall, but row
i + 1 never starts before row i, so the rows of a batch depend on one another."""

import torch

EXPECT = "not independent"


def get_batch(data, block_size, batch_size, generator):
    starts_count = len(data) - block_size
    if starts_count < 1:
        raise ValueError("data must be longer than block_size")
    starts = torch.randint(starts_count, (batch_size,), generator=generator).sort().values
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts.tolist()])
    return x, y
