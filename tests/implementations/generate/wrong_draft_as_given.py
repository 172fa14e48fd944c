"""The draft handed out in chapter 08: three bugs (a crop one short, the first position, the mode read after eval())."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "sampled from the first position's logits"


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """The catalogued draft of generate, as its file's docstring says."""
    model.eval()  # no dropout while sampling
    for _ in range(max_new_tokens):
        # the newest ids: the context the model reads
        context = idx[:, -(model.block_size - 1) :]  # (B, T_context)
        logits, _ = model(context)  # (B, T, V)
        probs = F.softmax(logits[:, 0, :], dim=-1)  # (B, V)
        next_id = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat([idx, next_id], dim=1)
    model.train(model.training)
    return idx
