"""One start drawn, the batch's other rows at the next starts (wrapping): every start is drawn equally
often overall, but the rows of a batch are not independent."""

import torch

EXPECT = "not independent"


def get_batch(data, block_size, batch_size, generator):
    starts_count = len(data) - block_size
    if starts_count < 1:
        raise ValueError("data must be longer than block_size")
    first = torch.randint(starts_count, (1,), generator=generator)
    starts = (first + torch.arange(batch_size)) % starts_count
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts.tolist()])
    return x, y
