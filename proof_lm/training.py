"""Training loops: plain SGD on a classifier, any optimiser on a schedule, and the AdamW recipe for real runs.

All of them draw minibatches with `minibatches` and take steps with `optimisation_step`.
"""

import copy
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn
from tqdm.auto import tqdm

KINDS = ("sgd", "momentum", "adamw")  # the optimisers make_optimizer builds
NORMS = (nn.LayerNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.GroupNorm, nn.RMSNorm)  # never decayed


@dataclass(frozen=True)
class Recipe:
    """How to train: steps, batch size, peak learning rate, weight decay, warm-up, evaluation, seed."""

    steps: int = 3000
    batch_size: int = 1024
    learning_rate: float = 0.01
    weight_decay: float = 0.01
    warmup: int = 100
    final_fraction: float = 0.02  # the decay ends at this fraction of the peak
    eval_every: int = 250
    seed: int = 0


@dataclass
class History:
    """Loss per training step and dev loss at evaluation steps; training seconds after each step (timed runs)."""

    train: list[float] = field(default_factory=list)
    dev_steps: list[int] = field(default_factory=list)
    dev: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


def minibatches(
    count: int, batch_size: int | None, steps: int, generator: torch.Generator | None = None
) -> Iterator[torch.Tensor | slice]:
    """Indices for each step: the whole set when batch_size is None, else a random batch with replacement."""
    for _ in range(steps):
        if batch_size is None or batch_size >= count:
            yield slice(None)
        else:
            yield torch.randint(0, count, (batch_size,), generator=generator)


def optimisation_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, inputs: torch.Tensor, targets: torch.Tensor
) -> float:
    """One step of mean cross-entropy: forward, backward, update; return the loss before the update.

    Logits may be (B, V) for targets (B,) or (B, T, V) for targets (B, T); targets of -100 are skipped.
    """
    logits = model(inputs)
    loss = F.cross_entropy(logits.flatten(0, -2), targets.flatten())
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_classifier(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int,
    learning_rate: float,
    batch_size: int | None = None,
    weight_decay: float = 0.0,
) -> list[float]:
    """Train any inputs -> logits module by SGD on mean cross-entropy; return the loss of every step.

    Full-batch when batch_size is None; minibatches are drawn from torch's global generator, so
    `torch.manual_seed` makes a run repeatable.
    """
    if steps < 0 or not math.isfinite(learning_rate) or learning_rate <= 0:
        raise ValueError(
            f"need steps >= 0 and a positive learning rate, got {steps} and {learning_rate}"
        )
    if inputs.shape[0] != targets.shape[0]:
        raise ValueError(
            f"inputs and targets differ in length: {inputs.shape[0]} vs {targets.shape[0]}"
        )
    if inputs.shape[0] == 0:
        raise ValueError("no training examples")
    device = next(model.parameters()).device
    inputs, targets = inputs.to(device), targets.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    model.train()
    return [
        optimisation_step(model, optimizer, inputs[index], targets[index])
        for index in minibatches(inputs.shape[0], batch_size, steps)
    ]


def learning_rate_at(step: int, recipe: Recipe, progress: float | None = None) -> float:
    """The rate of step `step` (counted from 0) under the recipe's schedule, chapter 06's.

    `progress` (0 to 1) replaces the position in the decay measured in steps (for timed runs).
    """
    if step < recipe.warmup:
        return recipe.learning_rate * (step + 1) / recipe.warmup
    if progress is None:
        progress = (step - recipe.warmup) / max(1, recipe.steps - recipe.warmup)
    remaining = 1.0 - min(1.0, progress)
    return recipe.learning_rate * (recipe.final_fraction + (1 - recipe.final_fraction) * remaining)


def schedule(recipe: Recipe, warmup_decay: bool = True) -> list[float]:
    """The rate of every step: the recipe's warm-up then linear decay, or its peak rate throughout."""
    if not warmup_decay:
        return [recipe.learning_rate] * recipe.steps
    return [learning_rate_at(step, recipe) for step in range(recipe.steps)]


def make_optimizer(
    kind: str,
    model: nn.Module,
    learning_rate: float,
    weight_decay: float = 0.0,
    fused: bool = False,
) -> torch.optim.Optimizer:
    """SGD, SGD with momentum 0.9, or AdamW, on the parameter groups `train_lm` uses.

    Weight decay follows Hugging Face's convention for the modules PyTorch ships: every parameter
    decays except biases (by name) and the parameters of normalisation layers (by type).
    `fused` asks PyTorch for its one-kernel AdamW (the same update in fewer operations: on one CPU
    thread a small GPT's step takes about a tenth less time).
    """
    undecayed = {
        id(p) for m in model.modules() if isinstance(m, NORMS) for p in m.parameters(recurse=False)
    }
    undecayed |= {id(p) for name, p in model.named_parameters() if name.endswith("bias")}
    groups = [
        {
            "params": [p for p in model.parameters() if id(p) not in undecayed],
            "weight_decay": weight_decay,
        },
        {"params": [p for p in model.parameters() if id(p) in undecayed], "weight_decay": 0.0},
    ]
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=learning_rate)
    if kind == "momentum":
        return torch.optim.SGD(groups, lr=learning_rate, momentum=0.9)
    if kind == "adamw":
        return torch.optim.AdamW(groups, lr=learning_rate, fused=fused)
    raise ValueError(f"unknown optimiser {kind!r}; expected one of {', '.join(KINDS)}")


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


@torch.no_grad()
def evaluate(
    model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, batch_size: int = 65536
) -> float:
    """Mean cross-entropy of a model on a whole dataset, in nats per predicted token.

    Logits may be (B, V) for targets (B,) or (B, T, V) for targets (B, T); targets of -100 are skipped.
    A copy of the model in evaluation mode is measured: the caller's model keeps its mode.
    """
    model = copy.deepcopy(model).eval()  # no dropout acts; the caller's model keeps its mode
    device = next(model.parameters()).device
    total = 0.0
    for start in range(0, len(targets), batch_size):
        x = inputs[start : start + batch_size].to(device)
        y = targets[start : start + batch_size].to(device)
        logits = model(x)
        total += F.cross_entropy(logits.flatten(0, -2), y.flatten(), reduction="sum").item()
    return total / int((targets != -100).sum())


@torch.no_grad()
def init_output_bias(layer: nn.Linear, targets: torch.Tensor, vocab_size: int) -> None:
    """Set an output layer's bias to the log unigram frequencies of the targets (add-one smoothed)."""
    counts = torch.bincount(targets, minlength=vocab_size).double() + 1.0
    layer.bias.copy_((counts / counts.sum()).log().to(layer.bias.dtype))


def train_lm(
    model: nn.Module,
    train: tuple[torch.Tensor, torch.Tensor],
    dev: tuple[torch.Tensor, torch.Tensor] | None = None,
    recipe: Recipe = Recipe(),
    progress: bool = True,
    until: float | None = None,
    seconds: float | None = None,
) -> History:
    """Train with AdamW on random minibatches, warm-up then linear decay; evaluate on dev every eval_every steps.

    With `until`, stop at the first evaluation whose dev loss is at most that value. With
    `seconds`, train for that long (evaluations not counted; recipe.steps is then only a cap)
    with the decay running on the time spent, and evaluate once more at the end. On the CPU the
    time is the process's CPU time, which other programs on a shared machine do not inflate.
    """
    inputs, targets = train
    device = next(model.parameters()).device
    inputs, targets = inputs.to(device), targets.to(device)
    generator = torch.Generator().manual_seed(recipe.seed)
    optimizer = make_optimizer("adamw", model, recipe.learning_rate, recipe.weight_decay)
    history = History()
    batches = minibatches(len(targets), recipe.batch_size, recipe.steps, generator)
    bar = tqdm(
        batches, total=None if seconds else recipe.steps, disable=not progress, desc="training"
    )
    clock = time.process_time if device.type == "cpu" else time.perf_counter
    elapsed = 0.0  # seconds spent in training steps
    for step, index in enumerate(bar):
        started = clock()
        timed = None if seconds is None else min(1.0, elapsed / seconds)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, recipe, timed)
        index = index.to(device) if isinstance(index, torch.Tensor) else index
        history.train.append(optimisation_step(model, optimizer, inputs[index], targets[index]))
        elapsed += clock() - started
        history.seconds.append(elapsed)
        out_of_time = seconds is not None and elapsed >= seconds
        last = step == recipe.steps - 1 or out_of_time
        if dev is not None and (last or (step + 1) % recipe.eval_every == 0):
            history.dev_steps.append(step + 1)
            history.dev.append(evaluate(model, *dev))
            if until is not None and history.dev[-1] <= until:
                break
        if out_of_time:
            break
    return history
