"""Switches off training by the flag alone: the model's dropout layers still train while it samples."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "the model ran in training mode while sampling"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """The catalogued draft, fixed."""
    was_training = model.training
    model.training = False  # no dropout while sampling (the flag, not eval())
    for _ in range(max_new_tokens):
        context = idx[:, -model.block_size :]  # (B, <= block_size)
        logits, _ = model(context)  # (B, T, V)
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, V)
        next_id = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat([idx, next_id], dim=1)
    model.train(was_training)
    return idx
