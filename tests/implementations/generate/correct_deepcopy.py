"""Samples from a copy of the model in evaluation mode: the caller's model is never touched."""

import copy

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "pass"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """Each new id from a copy of the model in evaluation mode, the newest block_size ids read."""
    reader = copy.deepcopy(model).eval()
    for _ in range(max_new_tokens):
        logits, _ = reader(idx[:, -reader.block_size :])  # (B, T, V)
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, V)
        idx = torch.cat([idx, torch.multinomial(probs, 1, generator=generator)], dim=1)
    return idx
