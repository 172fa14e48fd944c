"""Attention and MLP both read the block's input."""

import torch
from torch import nn

EXPECT = "side by side"


class Block(nn.Module):
    """A pre-norm decoder block: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(  # noqa: F821 - the reference, as in grading
            n_embd, n_head, block_size, dropout
        )
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.GELU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.attn(self.ln1(x)) + self.mlp(self.ln2(x))
