"""The loop built from what the kit carries before chapter 08's deadline: chapter 06's `train_lm`
recipe (`make_optimizer`'s groups, `learning_rate_at`'s warm-up and straight-line decay)."""

import torch
from torch import nn

from proof_lm.training import Recipe, learning_rate_at, make_optimizer

EXPECT = "straight line"


def train_gpt(
    model: nn.Module,
    data: torch.Tensor,
    block_size: int,
    recipe: Recipe,
    generator: torch.Generator,
    max_grad_norm: float = 1.0,
) -> list[float]:
    """Train model on get_batch windows of data with the library's recipe; each step's loss."""
    optimizer = make_optimizer("adamw", model, recipe.learning_rate, recipe.weight_decay)
    device = next(model.parameters()).device
    model.train()
    losses = []
    for step in range(recipe.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, recipe)
        x, y = get_batch(  # noqa: F821 - the reference, as in grading
            data, block_size, recipe.batch_size, generator
        )
        _, loss = model(x.to(device), y.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
    return losses
