"""Always takes the most likely id."""

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "do not follow the contract's distribution"


@torch.no_grad()
def generate(
    model: nn.Module,
    idx: torch.Tensor,
    max_new_tokens: int,
    generator: torch.Generator,
    temperature: float = 1.0,
    top_k: int | None = None,
) -> torch.Tensor:
    """idx (B, T) followed by max_new_tokens ids sampled one at a time: (B, T + max_new_tokens)."""
    was_training = model.training
    model.eval()
    for _ in range(max_new_tokens):
        context = idx[:, -model.block_size :]  # (B, <= block_size): all the model can read
        logits, _ = model(context)
        logits = logits[:, -1, :] / temperature  # (B, V): the prediction for the next id
        if top_k is not None:
            kth_largest = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1)
            logits = logits.masked_fill(logits < kth_largest, float("-inf"))
        probs = F.softmax(logits, dim=-1)
        next_id = probs.argmax(dim=-1, keepdim=True)
        idx = torch.cat([idx, next_id], dim=1)
    model.train(was_training)
    return idx
