"""Switches to eval and never back."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "mode was not restored"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """idx (B, T) followed by max_new_tokens ids sampled one at a time: (B, T + max_new_tokens)."""
    model.eval()
    for _ in range(max_new_tokens):
        context = idx[:, -model.block_size :]  # (B, <= block_size): all the model can read
        logits, _ = model(context)
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, V): the prediction for the next id
        next_id = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat([idx, next_id], dim=1)
    return idx
