"""PyTorch baselines: a bigram table and a Bengio-style context MLP.

`make_context_dataset` (proof_lm.windows) and `train_classifier` (proof_lm.training) are
re-exported here: the seed chapter's interface imports all four from this module.
"""

import numpy as np
import torch
from torch import nn

from proof_lm.training import train_classifier
from proof_lm.windows import make_context_dataset

__all__ = [
    "TorchBigramLM",
    "TorchContextMLP",
    "make_context_dataset",
    "numpy_params",
    "train_classifier",
]


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
        _check_ids(previous, "previous")
        if previous.dim() == 2 and previous.shape[1] == 1:
            previous = previous[:, 0]
        if previous.dim() != 1:
            raise ValueError(
                "expected previous ids of shape (B,) or (B, 1): a bigram model sees one token; "
                f"got shape {tuple(previous.shape)} (use TorchContextMLP for longer contexts)"
            )
        return self.table(previous)


def _check_ids(ids: object, name: str) -> None:
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
        _check_ids(context, "context")
        if context.dim() != 2 or context.shape[1] != self.context_length:
            raise ValueError(
                f"expected context of shape (B, {self.context_length}) (one row of "
                f"{self.context_length} ids per example, oldest first), got {tuple(context.shape)}"
            )
        x = self.embedding(context).flatten(1)  # (B, n*d), oldest token's embedding first
        logits = self.output(torch.tanh(self.hidden(x)))  # (B, V)
        return logits if self.direct is None else logits + self.direct(x)


def numpy_params(model: TorchContextMLP) -> dict[str, np.ndarray | None]:
    """The model's parameters as float64 arrays in the chapters' layout: E, W1, b1, W2, b2, W3 (or None).

    A linear layer's weight is transposed, so that the NumPy forward pass reads x @ W as chapter 03 writes it.
    """

    def array(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().double().numpy().copy()

    return {
        "E": array(model.embedding.weight),
        "W1": array(model.hidden.weight).T,
        "b1": array(model.hidden.bias),
        "W2": array(model.output.weight).T,
        "b2": array(model.output.bias),
        "W3": None if model.direct is None else array(model.direct.weight).T,
    }
