"""Flex attention's eager math path (torch._higher_order_ops.flex_attention.math_attention) with a
causal score_mod: PyTorch's finished attention, reached past the old guard."""

import torch
from torch import nn

EXPECT = "finished attention or transformer layer"


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

    def forward(self, x):
        from torch._higher_order_ops.flex_attention import math_attention

        B, T, C = x.shape
        q, k, v = (
            t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for t in self.qkv(x).split(C, dim=2)
        )

        def causal(score, b, h, i, j):
            return torch.where(i >= j, score, float("-inf"))

        scale = (C // self.n_head) ** -0.5
        out = math_attention(q, k, v, causal, (torch.ones(1, dtype=torch.bool),), scale)[0]
        return self.resid_dropout(self.proj(out.transpose(1, 2).reshape(B, T, C)))
