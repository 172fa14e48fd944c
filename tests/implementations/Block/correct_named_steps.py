"""The same block with each step named, GELU spelled out."""

from torch import nn

EXPECT = "pass"


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd, eps=1e-5)
        self.attn = CausalSelfAttention(  # noqa: F821 - the reference, as in grading
            n_embd, n_head, block_size, dropout=dropout
        )
        self.ln2 = nn.LayerNorm(n_embd, eps=1e-5)
        layers = [
            nn.Linear(n_embd, n_embd * 4),
            nn.GELU(approximate="none"),
            nn.Linear(n_embd * 4, n_embd),
            nn.Dropout(p=dropout),
        ]
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        read = self.attn(self.ln1(x))
        x = x + read
        computed = self.mlp(self.ln2(x))
        return x + computed
