"""The same minibatch loop with different optimisers and learning-rate schedules (PyTorch)."""

import torch
from torch import nn

from proof_lm.baselines import minibatches, optimisation_step
from proof_lm.training import Recipe, learning_rate_at

KINDS = ("sgd", "momentum", "adamw")


def make_optimizer(
    kind: str, model: nn.Module, learning_rate: float, weight_decay: float = 0.0
) -> torch.optim.Optimizer:
    """SGD, SGD with momentum 0.9, or AdamW; weight decay on matrices only, as `train_lm` does."""
    groups = [
        {"params": [p for p in model.parameters() if p.dim() >= 2], "weight_decay": weight_decay},
        {"params": [p for p in model.parameters() if p.dim() < 2], "weight_decay": 0.0},
    ]
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=learning_rate)
    if kind == "momentum":
        return torch.optim.SGD(groups, lr=learning_rate, momentum=0.9)
    if kind == "adamw":
        return torch.optim.AdamW(groups, lr=learning_rate)
    raise ValueError(f"unknown optimiser {kind!r}; expected one of {', '.join(KINDS)}")


def schedule(recipe: Recipe, warmup_cosine: bool = True) -> list[float]:
    """The rate of every step: the recipe's warm-up then cosine, or its peak rate throughout."""
    if not warmup_cosine:
        return [recipe.learning_rate] * recipe.steps
    return [learning_rate_at(step, recipe) for step in range(recipe.steps)]


def train_steps(
    model: nn.Module,
    train: tuple[torch.Tensor, torch.Tensor],
    optimizer: torch.optim.Optimizer,
    rates: list[float],
    batch_size: int,
    seed: int = 0,
) -> list[float]:
    """One step per rate on random minibatches (the batches `train_lm` draws for the same seed); losses."""
    inputs, targets = train
    generator = torch.Generator().manual_seed(seed)
    losses = []
    for rate, index in zip(
        rates, minibatches(len(targets), batch_size, len(rates), generator), strict=True
    ):
        for group in optimizer.param_groups:
            group["lr"] = rate
        losses.append(optimisation_step(model, optimizer, inputs[index], targets[index]))
    return losses
