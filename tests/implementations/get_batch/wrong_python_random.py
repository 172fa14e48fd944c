"""Python's random module picks the starts."""

import random

import torch

EXPECT = "global random state moved"


def get_batch(data, block_size, batch_size, generator):
    if len(data) <= block_size:
        raise ValueError("too short")
    starts = [random.randrange(len(data) - block_size) for _ in range(batch_size)]
    x = torch.stack([data[s : s + block_size] for s in starts])
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts])
    return x, y
