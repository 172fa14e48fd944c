"""Returns idx early when no id is asked for, after switching to eval: a model handed over in training mode comes back in eval mode."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "mode was not restored"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """idx (B, T) followed by max_new_tokens ids sampled one at a time: (B, T + max_new_tokens)."""
    was_training = model.training
    model.eval()
    if max_new_tokens == 0:
        return idx  # nothing to draw
    for _ in range(max_new_tokens):
        logits, _ = model(idx[:, -model.block_size :])  # (B, <= block_size, V)
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, V): the prediction for the next id
        next_id = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat([idx, next_id], dim=1)
    model.train(was_training)
    return idx
