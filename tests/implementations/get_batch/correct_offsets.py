"""Offsets by broadcasting, one fancy index for x and one for y."""

import torch

EXPECT = "pass"


def get_batch(data, block_size, batch_size, generator):
    n = len(data)
    if n <= block_size:
        raise ValueError(f"need more than {block_size} ids, got {n}")
    start = torch.randint(high=n - block_size, size=(batch_size, 1), generator=generator)
    offsets = start + torch.arange(block_size)
    return data[offsets], data[offsets + 1]
