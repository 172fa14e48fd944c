"""The draft with two bugs fixed: the context is still cropped to block_size - 1 ids."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "the context was cut shorter than block_size"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """The catalogued draft of generate, as its file's docstring says."""
    was_training = model.training
    model.eval()  # no dropout while sampling
    for _ in range(max_new_tokens):
        # the newest ids: the context the model reads
        context = idx[:, -(model.block_size - 1) :]  # (B, T_context)
        logits, _ = model(context)  # (B, T, V)
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, V)
        next_id = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat([idx, next_id], dim=1)
    model.train(was_training)
    return idx
