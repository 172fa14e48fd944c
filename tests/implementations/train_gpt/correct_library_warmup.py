"""The warm-up's rates from chapter 06's `learning_rate_at` (the text allows it), the cosine its own."""

import math

import torch
from torch import nn

from proof_lm.training import Recipe, learning_rate_at

EXPECT = "pass"


def train_gpt(
    model: nn.Module,
    data: torch.Tensor,
    block_size: int,
    recipe: Recipe,
    generator: torch.Generator,
    max_grad_norm: float = 1.0,
) -> list[float]:
    """Train model on get_batch windows of data: AdamW, warm-up then cosine, clipping; each step's loss."""
    decayed = [p for p in model.parameters() if p.dim() >= 2]  # embeddings, weight matrices
    kept = [p for p in model.parameters() if p.dim() < 2]  # biases, LayerNorm's gains and shifts
    optimizer = torch.optim.AdamW(
        [
            {"params": decayed, "weight_decay": recipe.weight_decay},
            {"params": kept, "weight_decay": 0.0},
        ],
        lr=recipe.learning_rate,
    )
    peak, floor = recipe.learning_rate, recipe.final_fraction * recipe.learning_rate
    device = next(model.parameters()).device
    model.train()
    losses = []
    for step in range(recipe.steps):
        if step < recipe.warmup:
            rate = learning_rate_at(step, recipe)
        else:
            progress = (step - recipe.warmup) / (recipe.steps - recipe.warmup)  # 0 .. 1 at step S
            rate = floor + (peak - floor) * (1 + math.cos(math.pi * progress)) / 2
        for group in optimizer.param_groups:
            group["lr"] = rate
        x, y = get_batch(  # noqa: F821 - the reference, as in grading
            data, block_size, recipe.batch_size, generator
        )  # (B, T), (B, T)
        _, loss = model(x.to(device), y.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
    return losses
