"""Returns NumPy arrays."""

import numpy as np
import torch

EXPECT = "expected a torch int64 tensor"


def get_batch(data, block_size, batch_size, generator):
    if len(data) <= block_size:
        raise ValueError("too short")
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator).numpy()
    ids = data.numpy()
    x = np.stack([ids[s : s + block_size] for s in starts])
    y = np.stack([ids[s + 1 : s + 1 + block_size] for s in starts])
    return x, y
