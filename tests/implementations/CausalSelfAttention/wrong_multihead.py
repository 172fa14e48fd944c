"""nn.MultiheadAttention with its weights copied from qkv and proj."""

import torch
from torch import nn

EXPECT = "finished attention or transformer layer"


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_head must divide n_embd")
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = n_head

    def forward(self, x):
        T, C = x.shape[1], x.shape[2]
        mha = nn.MultiheadAttention(C, self.n_head, batch_first=True).to(x.dtype)
        with torch.no_grad():
            mha.in_proj_weight.copy_(self.qkv.weight)
            mha.in_proj_bias.copy_(self.qkv.bias)
            mha.out_proj.weight.copy_(self.proj.weight)
            mha.out_proj.bias.copy_(self.proj.bias)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        return self.resid_dropout(mha(x, x, x, attn_mask=mask, need_weights=False)[0])
