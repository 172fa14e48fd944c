"""torch.ao.nn.quantizable.MultiheadAttention, a subclass of nn.MultiheadAttention that computes with
plain bmm and softmax (the red team's route past the old guard): PyTorch's finished layer."""

import torch
from torch import nn
from torch.ao.nn.quantizable import MultiheadAttention as QuantizableAttention

EXPECT = "finished attention or transformer layer"


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_head must divide n_embd")
        self.mha = QuantizableAttention(n_embd, n_head, dropout=dropout, batch_first=True)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.shape[1]
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        out, _ = self.mha(x, x, x, attn_mask=future, need_weights=False)
        return self.resid_dropout(out)
