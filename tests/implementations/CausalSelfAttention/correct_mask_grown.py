"""A mask cached across calls, rebuilt whenever a longer T arrives and cropped to each T."""

import math

import torch
from torch import nn

EXPECT = "pass"


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_head must divide n_embd")
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self._future = torch.zeros(0, 0, dtype=torch.bool)

    def forward(self, x):
        B, T, C = x.shape
        if self._future.shape[0] < T:
            self._future = torch.ones(T, T, dtype=torch.bool).triu(1)
        q, k, v = (
            t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for t in self.qkv(x).split(C, dim=2)
        )
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.n_head)
        att = att.masked_fill(self._future[:T, :T], float("-inf")).softmax(dim=-1)
        out = self.attn_dropout(att) @ v
        return self.resid_dropout(self.proj(out.transpose(1, 2).reshape(B, T, C)))
