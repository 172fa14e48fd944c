"""nn.TransformerEncoderLayer (pre-norm, GELU) run through torch.func.functional_call on the block's
own parameters: PyTorch's finished transformer layer (the red team's route past the old guard)."""

import torch
from torch import nn

EXPECT = "finished attention or transformer layer"


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)  # noqa: F821
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.GELU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )
        self.n_head, self.dropout = n_head, dropout

    def forward(self, x):
        T, C = x.shape[1], x.shape[2]
        layer = nn.TransformerEncoderLayer(
            C,
            self.n_head,
            4 * C,
            self.dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        params = {
            "self_attn.in_proj_weight": self.attn.qkv.weight,
            "self_attn.in_proj_bias": self.attn.qkv.bias,
            "self_attn.out_proj.weight": self.attn.proj.weight,
            "self_attn.out_proj.bias": self.attn.proj.bias,
            "linear1.weight": self.mlp[0].weight,
            "linear1.bias": self.mlp[0].bias,
            "linear2.weight": self.mlp[2].weight,
            "linear2.bias": self.mlp[2].bias,
            "norm1.weight": self.ln1.weight,
            "norm1.bias": self.ln1.bias,
            "norm2.weight": self.ln2.weight,
            "norm2.bias": self.ln2.bias,
        }
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        layer.train(self.training)
        return torch.func.functional_call(layer, params, (x,), {"src_mask": future})
