"""Every window of block_size + 1 ids by unfold, rows picked by the generator."""

import torch

EXPECT = "pass"


def get_batch(data, block_size, batch_size, generator):
    if data.shape[0] < block_size + 1:
        raise ValueError("data must be longer than block_size")
    windows = data.unfold(0, block_size + 1, 1)  # (N - T, T + 1)
    rows = windows[torch.randint(0, windows.shape[0], (batch_size,), generator=generator)]
    return rows[:, :-1].clone(), rows[:, 1:].clone()
