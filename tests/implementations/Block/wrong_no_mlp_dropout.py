"""The MLP without its final Dropout."""

import torch
from torch import nn

EXPECT = "the MLP has no dropout at the block's rate"


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
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, C): the residual stream plus what attention read
        return x + self.mlp(self.ln2(x))  # plus what each position computes on its own
