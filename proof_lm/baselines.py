"""PyTorch baselines: a bigram table and a Bengio-style context MLP, their datasets and a training loop."""

import math
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn


class TorchBigramLM(nn.Module):
    """Logits for the next token from the previous one: a (V, V) table read by embedding lookup."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        if vocab_size < 1:
            raise ValueError(f"vocab_size must be at least 1, got {vocab_size}")
        self.table = nn.Embedding(vocab_size, vocab_size)
        nn.init.zeros_(self.table.weight)  # uniform predictions, loss ln V, before training

    def forward(self, previous: torch.Tensor) -> torch.Tensor:
        """previous (B,) or (B, 1) integer ids -> logits (B, V)."""
        check_ids(previous, "previous")
        if previous.dim() == 2 and previous.shape[1] == 1:
            previous = previous[:, 0]
        if previous.dim() != 1:
            raise ValueError(
                "expected previous ids of shape (B,) or (B, 1): a bigram model sees one token; "
                f"got shape {tuple(previous.shape)} (use TorchContextMLP for longer contexts)"
            )
        return self.table(previous)


def check_ids(ids: object, name: str) -> None:
    """ValueError unless `ids` is a torch tensor of integer token ids."""
    if not isinstance(ids, torch.Tensor):
        raise ValueError(
            f"expected {name} as a torch tensor of int64 ids, got {type(ids).__name__}"
        )
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise ValueError(f"expected {name} as integer token ids (int64), got dtype {ids.dtype}")


class TorchContextMLP(nn.Module):
    """Bengio et al. (2003): embed each context token, concatenate oldest first, tanh layer, logits."""

    def __init__(
        self,
        vocab_size: int,
        context_length: int,
        embedding_dim: int,
        hidden_dim: int,
        direct: bool = False,
    ) -> None:
        super().__init__()
        if min(vocab_size, context_length, embedding_dim, hidden_dim) < 1:
            raise ValueError(
                "vocab_size, context_length, embedding_dim and hidden_dim must all be at least 1"
            )
        self.context_length = context_length
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.hidden = nn.Linear(context_length * embedding_dim, hidden_dim)
        self.output = nn.Linear(hidden_dim, vocab_size)
        self.direct = (
            nn.Linear(context_length * embedding_dim, vocab_size, bias=False) if direct else None
        )
        nn.init.kaiming_normal_(self.hidden.weight, nonlinearity="tanh")  # gain 5/3, fan-in scaling
        nn.init.zeros_(self.hidden.bias)
        nn.init.normal_(self.output.weight, std=0.01)  # small outputs: initial loss close to ln V
        nn.init.zeros_(self.output.bias)
        if self.direct is not None:
            nn.init.zeros_(self.direct.weight)

    def forward(self, context: torch.Tensor) -> torch.Tensor:
        """context (B, n) ids, oldest first -> logits (B, V)."""
        check_ids(context, "context")
        if context.dim() != 2 or context.shape[1] != self.context_length:
            raise ValueError(
                f"expected context of shape (B, {self.context_length}) (one row of "
                f"{self.context_length} ids per example, oldest first), got {tuple(context.shape)}"
            )
        x = self.embedding(context).flatten(1)  # (B, n*d), oldest token's embedding first
        logits = self.output(torch.tanh(self.hidden(x)))  # (B, V)
        return logits if self.direct is None else logits + self.direct(x)


def make_context_dataset(
    tokens: Sequence[int] | np.ndarray | torch.Tensor, context_length: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every window of `context_length` tokens and the token after it: int64 (N, n) and (N,)."""
    if context_length < 1:
        raise ValueError(f"context_length must be at least 1, got {context_length}")
    stream = torch.as_tensor(np.asarray(tokens, dtype=np.int64)).reshape(-1)
    count = max(stream.numel() - context_length, 0)
    if count == 0:
        return torch.zeros((0, context_length), dtype=torch.int64), torch.zeros(
            0, dtype=torch.int64
        )
    inputs = stream.unfold(0, context_length, 1)[:count].clone()  # (N, n)
    return inputs, stream[context_length:].clone()


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


def numpy_params(model: TorchContextMLP) -> dict[str, np.ndarray | None]:
    """The model's parameters as float64 arrays in the chapters' layout: E, W1, b1, W2, b2, W3 (or None)."""

    def array(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().double().numpy().copy()

    return {
        "E": array(model.embedding.weight),  # (V, d)
        "W1": array(model.hidden.weight).T,  # ((n-1)d, dh)
        "b1": array(model.hidden.bias),  # (dh,)
        "W2": array(model.output.weight).T,  # (dh, V)
        "b2": array(model.output.bias),  # (V,)
        "W3": None if model.direct is None else array(model.direct.weight).T,  # ((n-1)d, V)
    }
