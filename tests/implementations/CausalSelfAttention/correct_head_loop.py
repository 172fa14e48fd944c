"""One head at a time with einsum; the mask made in forward."""

import torch
from torch import nn

EXPECT = "pass"


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_head must divide n_embd")
        self.n_head, self.head_size = n_head, n_embd // n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.shape[1]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device))
        heads, weights = [], []
        for h in range(self.n_head):
            cols = slice(h * self.head_size, (h + 1) * self.head_size)
            scores = torch.einsum("btd,bsd->bts", q[..., cols], k[..., cols]) * self.head_size**-0.5
            weights.append(torch.where(causal, scores, float("-inf")).softmax(dim=-1))
        att = self.attn_dropout(torch.stack(weights, dim=1))  # (B, H, T, T)
        for h in range(self.n_head):
            cols = slice(h * self.head_size, (h + 1) * self.head_size)
            heads.append(att[:, h] @ v[..., cols])
        return self.resid_dropout(self.proj(torch.cat(heads, dim=-1)))
