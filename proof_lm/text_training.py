"""Training a model on one long id sequence (a text), for a budget of CPU time.

The model maps ids (B, T) to logits (B, T, V), or to (logits, loss) as chapter 08's GPT does. Each
step trains on windows drawn by `get_batch`; AdamW with a warm-up and a cosine that runs on the
time spent (proof_lm.training); dev loss on consecutive windows of the dev sequence.
"""

import time
from collections.abc import Callable

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn
from tqdm.auto import tqdm

from proof_lm.gpt2 import get_batch
from proof_lm.training import History, Recipe, learning_rate_at, make_optimizer

Batcher = Callable[[torch.Tensor, int, int, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


def _logits(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The logits of a model that returns them alone or as the first of (logits, loss)."""
    out = model(x)
    return out[0] if isinstance(out, tuple) else out


@torch.no_grad()
def text_loss(
    model: nn.Module, data: torch.Tensor, block_size: int, max_tokens: int | None = None
) -> float:
    """Mean cross-entropy (nats per token) over consecutive windows of `block_size` + 1 ids of `data`.

    Every id after the first of each window is predicted, from the ids before it in that window.
    `max_tokens` limits the evaluation to the start of `data`. The model's mode is restored.
    """
    if data.dim() != 1 or len(data) < 2 or block_size < 1:
        raise ValueError("expected a 1-D sequence of at least 2 ids and block_size >= 1")
    data = data[:max_tokens] if max_tokens else data
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    n = (len(data) - 1) // block_size  # whole windows; the rest is one shorter window
    x, y = data[: n * block_size], data[1 : n * block_size + 1]
    pieces = list(
        zip(x.view(n, block_size).split(64), y.view(n, block_size).split(64), strict=True)
    )
    if len(data) - 1 > n * block_size:
        pieces.append((data[n * block_size : -1][None], data[n * block_size + 1 :][None]))
    total = 0.0
    for inputs, targets in pieces:
        logits = _logits(model, inputs.to(device))  # (b, T, V)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.to(device).flatten(), reduction="sum")
        total += loss.item()
    count = len(data) - 1
    model.train(was_training)
    return total / count


def train_on_text(
    model: nn.Module,
    train: torch.Tensor,
    dev: torch.Tensor | None,
    block_size: int,
    recipe: Recipe,
    seconds: float | None = None,
    batcher: Batcher = get_batch,
    dev_tokens: int | None = None,
    progress: bool = True,
) -> History:
    """Train with AdamW on random windows, warm-up then cosine; dev loss every eval_every steps and at the end.

    With `seconds`, train for that much time (evaluation not counted) with the cosine running on
    the time spent; recipe.steps is then only a cap. On the CPU the clock is the process's CPU
    time (`time.process_time`): other programs on a shared machine do not inflate it, and unlike
    the calling thread's CPU time it also counts PyTorch's intra-op threads, so a model gains
    nothing from more threads (on a GPU, whose work no CPU clock sees, it is wall time). `batcher(data,
    block_size, batch_size, generator)` draws the windows (the chapter passes the student's
    `get_batch`), from a generator seeded with recipe.seed. `dev_tokens` limits the evaluations
    before the last to the start of dev; the last one reads all of it.
    """
    if seconds is not None and seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(recipe.seed)
    optimizer = make_optimizer("adamw", model, recipe.learning_rate, recipe.weight_decay)
    clock = time.process_time if device.type == "cpu" else time.perf_counter
    history, elapsed = History(), 0.0
    model.train()
    bar = tqdm(range(recipe.steps), total=None if seconds else recipe.steps, disable=not progress)
    for step in bar:
        started = clock()
        timed = None if seconds is None else min(1.0, elapsed / seconds)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, recipe, timed)
        x, y = batcher(train, block_size, recipe.batch_size, generator)
        out = model(x.to(device), y.to(device))
        loss = out[1] if isinstance(out, tuple) else F.cross_entropy(out.flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        history.train.append(loss.item())
        elapsed += clock() - started
        history.seconds.append(elapsed)
        last = step == recipe.steps - 1 or (seconds is not None and elapsed >= seconds)
        if dev is not None and (last or (step + 1) % recipe.eval_every == 0):
            history.dev_steps.append(step + 1)
            history.dev.append(text_loss(model, dev, block_size, None if last else dev_tokens))
        if last:
            break
    return history
