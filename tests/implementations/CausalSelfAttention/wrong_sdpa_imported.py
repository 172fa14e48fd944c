"""The fused attention imported under another name at load time."""

from torch import nn
from torch.nn.functional import scaled_dot_product_attention as attend

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
        q, k, v = (a.view(B, T, self.n_head, -1).transpose(1, 2) for a in self.qkv(x).split(C, 2))
        y = attend(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
        return self.resid_dropout(self.proj(y))
