"""Training a model on one long id sequence (a text), for a budget of CPU time.

The model maps ids (B, T) to logits (B, T, V), or to (logits, loss) as chapter 08's GPT does. Each
step trains on windows drawn by `get_batch`; AdamW with a warm-up and a cosine that runs on the
time spent (chapter 08's schedule); dev loss on consecutive or sliding windows of the dev sequence.
"""

import copy
import math
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn
from tqdm.auto import tqdm

from proof_lm.gpt2 import get_batch
from proof_lm.training import History, Recipe, make_optimizer

Batcher = Callable[[torch.Tensor, int, int, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


def _logits(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The logits of a model that returns them alone or as the first of (logits, loss)."""
    out = model(x)
    return out[0] if isinstance(out, tuple) else out


@torch.no_grad()
def text_loss(
    model: nn.Module,
    data: torch.Tensor,
    block_size: int,
    max_tokens: int | None = None,
    stride: int | None = None,
) -> float:
    """Mean cross-entropy (nats per token) of every id of `data` after the first, each predicted once.

    Without `stride`, over consecutive windows of `block_size` + 1 ids: each id is predicted from
    the ids before it in its window, so the first of a window reads none. With `stride` (1 ..
    block_size), the sliding evaluation: windows of `block_size` start every `stride` ids (the last
    one ends at the end of `data`), the first window counts all its predictions and every later one
    only those no earlier window made, its last `stride` or fewer, so each id after the first
    window's is read with at least `block_size - stride` ids before it. `max_tokens` limits the
    evaluation to the start of `data`. A copy of the model in evaluation mode is measured: the
    caller's model is not touched.
    """
    if data.dim() != 1 or len(data) < 2 or block_size < 1:
        raise ValueError("expected a 1-D sequence of at least 2 ids and block_size >= 1")
    if stride is not None and not 1 <= stride <= block_size:
        raise ValueError(f"stride must be in 1..block_size={block_size}, got {stride}")
    data = data[:max_tokens] if max_tokens else data
    model = copy.deepcopy(model).eval()  # no dropout acts; the caller's model keeps its mode
    device = next(model.parameters()).device
    count = len(data) - 1  # ids predicted: data[1:]
    width = min(block_size, count)
    step = stride or width
    starts = list(range(0, count - width + 1, step))
    if starts[-1] + width < count:
        starts.append(count - width)  # the last window ends at the end of data
    starts_t = torch.tensor(starts)
    offsets = starts_t[:, None] + torch.arange(width)  # (W, width)
    # counted[w, j]: the prediction of data[s + j + 1] is the first any window makes of that id
    previous_end = torch.cat([torch.zeros(1, dtype=torch.int64), starts_t[:-1] + width])
    counted = offsets >= previous_end[:, None]  # (W, width)
    total = 0.0
    for rows in torch.arange(len(starts)).split(64):
        logits = _logits(model, data[offsets[rows]].to(device))  # (b, width, V)
        losses = F.cross_entropy(
            logits.flatten(0, 1), data[offsets[rows] + 1].to(device).flatten(), reduction="none"
        )
        total += losses[counted[rows].flatten().to(device)].sum().item()
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
    stride: int | None = None,
    max_grad_norm: float | None = 1.0,
) -> History:
    """Train with AdamW on random windows, warm-up then cosine; dev loss every eval_every steps and at the end.

    With `seconds`, train for that much time (evaluation not counted) with the cosine running on
    the time spent; recipe.steps is then only a cap. On the CPU the clock is the process's CPU
    time (`time.process_time`): other programs on a shared machine do not inflate it, and unlike
    the calling thread's CPU time it also counts PyTorch's intra-op threads, so a model gains
    nothing from more threads (on a GPU, whose work no CPU clock sees, it is wall time). `batcher(data,
    block_size, batch_size, generator)` draws the windows (the chapter passes the student's
    `get_batch`), from a generator seeded with recipe.seed. `dev_tokens` limits the evaluations
    before the last to the start of dev; the last one reads all of it. `stride` is `text_loss`'s:
    None for consecutive windows, block_size // 2 for the sliding evaluation. Before each update
    the gradient is scaled down to norm `max_grad_norm` when it is longer (None: never), as nanoGPT
    does. Measured for chapter 08 (its 3-block GPT on Shakespeare, 60 CPU-s, variations of the
    recipe): 4 of 8 runs without clipping ended above 2.0 nats after a long plateau near 2.5, the
    bigram loss; with clipping, 1 of 15 did (the one at twice the learning rate).
    """
    if seconds is not None and seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(recipe.seed)
    optimizer = make_optimizer(
        "adamw", model, recipe.learning_rate, recipe.weight_decay, fused=True
    )
    clock = time.process_time if device.type == "cpu" else time.perf_counter
    history, elapsed = History(), 0.0
    model.train()
    bar = tqdm(range(recipe.steps), total=None if seconds else recipe.steps, disable=not progress)
    for step in bar:
        started = clock()
        timed = None if seconds is None else min(1.0, elapsed / seconds)
        if step < recipe.warmup:
            rate = recipe.learning_rate * (step + 1) / recipe.warmup
        else:
            position = (step - recipe.warmup) / max(1, recipe.steps - recipe.warmup)
            cosine = 0.5 * (1 + math.cos(math.pi * min(1.0, position if timed is None else timed)))
            rate = recipe.learning_rate * (
                recipe.final_fraction + (1 - recipe.final_fraction) * cosine
            )
        for group in optimizer.param_groups:
            group["lr"] = rate
        x, y = batcher(train, block_size, recipe.batch_size, generator)
        out = model(x.to(device), y.to(device))
        loss = out[1] if isinstance(out, tuple) else F.cross_entropy(out.flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        history.train.append(loss.item())
        elapsed += clock() - started
        history.seconds.append(elapsed)
        last = step == recipe.steps - 1 or (seconds is not None and elapsed >= seconds)
        if dev is not None and (last or (step + 1) % recipe.eval_every == 0):
            history.dev_steps.append(step + 1)
            history.dev.append(
                text_loss(model, dev, block_size, None if last else dev_tokens, stride)
            )
        if last:
            break
    return history
