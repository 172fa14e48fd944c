"""Takes keys first, then queries, out of qkv."""

import math

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

EXPECT = "queries and keys read from blocks"


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention: (B, T, C) -> (B, T, C) for any T <= block_size."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        if n_head < 1 or n_embd % n_head != 0:
            raise ValueError(f"n_head={n_head} must divide n_embd={n_embd}")
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)  # queries, keys, values side by side
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        future = torch.triu(torch.ones(block_size, block_size, dtype=torch.bool), diagonal=1)
        self.register_buffer("future", future, persistent=False)  # True where j > t

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        D = C // self.n_head
        k, q, v = self.qkv(x).split(C, dim=2)  # (B, T, C) each
        q = q.view(B, T, self.n_head, D).transpose(1, 2)  # (B, H, T, D)
        k = k.view(B, T, self.n_head, D).transpose(1, 2)
        v = v.view(B, T, self.n_head, D).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # (B, H, T, T)
        scores = scores.masked_fill(self.future[:T, :T], float("-inf"))
        weights = self.attn_dropout(F.softmax(scores, dim=-1))  # each row sums to 1 over j <= t
        y = (weights @ v).transpose(1, 2).reshape(B, T, C)  # heads side by side again
        return self.resid_dropout(self.proj(y))
