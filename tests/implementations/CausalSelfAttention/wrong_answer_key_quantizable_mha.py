"""torch.ao.nn.quantizable.MultiheadAttention (a subclass of nn.MultiheadAttention that computes with
plain bmm and softmax: the red team's route past the old guard) computes the attention weights from
the block's own qkv; only the dropout and the mix of values are done by hand."""

import torch
from torch import nn
from torch.ao.nn.quantizable import MultiheadAttention as QuantizableAttention

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
        B, T, C = x.shape
        mha = QuantizableAttention(C, self.n_head, batch_first=True).to(x.dtype)
        with torch.no_grad():
            for linear, rows in zip((mha.linear_Q, mha.linear_K), (0, 1), strict=True):
                linear.weight.copy_(self.qkv.weight[rows * C : (rows + 1) * C])
                linear.bias.copy_(self.qkv.bias[rows * C : (rows + 1) * C])
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        _, weights = mha(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
        v = self.qkv(x)[..., 2 * C :].view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        out = (self.attn_dropout(weights) @ v).transpose(1, 2).reshape(B, T, C)
        return self.resid_dropout(self.proj(out))
