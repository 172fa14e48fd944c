"""Chapter 08's GPT, GPT-2 style, with the module names of the chapter's contract.

`tok_emb` + `pos_emb` -> `drop` -> `blocks` -> `ln_f` -> `head`; attention projects with `qkv`
and then `proj`. How a block arranges its norms and residual
additions, how the weights start and how the head is tied are the chapter's exercises. Later chapters
(09: the GPT on BPE ids) and the benchmarks use this model; the chapter's students write their own.
"""

import math

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn


def get_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """(x, y) int64 (batch_size, block_size): windows of `data` at uniform random starts, y one ahead."""
    if not isinstance(data, torch.Tensor) or data.dim() != 1:
        raise ValueError("expected data as a 1-D tensor of token ids")
    if len(data) <= block_size:
        raise ValueError(
            f"data has {len(data)} ids: it must be longer than block_size {block_size}"
        )
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    offsets = starts[:, None] + torch.arange(block_size)  # (B, T)
    return data[offsets].long(), data[offsets + 1].long()


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention: (B, T, C) -> (B, T, C) for any T <= block_size."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        if n_head < 1 or n_embd % n_head:
            raise ValueError(f"n_head {n_head} must divide n_embd {n_embd}")
        self.n_head, self.block_size, self.dropout = n_head, block_size, dropout
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C); position t reads positions 0..t only."""
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # (B, T, C) each
        q, k, v = (a.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for a in (q, k, v))
        p = self.dropout if self.training else 0.0
        heads = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)  # (B, H, T, D)
        return self.resid_dropout(self.proj(heads.transpose(1, 2).reshape(B, T, C)))


class Block(nn.Module):
    """A pre-norm decoder block: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)  # normalises what attention reads
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.GELU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C)."""
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """ids (B, T), T <= block_size -> (logits (B, T, V), mean cross-entropy or None)."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_embd: int,
        n_head: int,
        n_layer: int,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if min(vocab_size, block_size, n_embd, n_head, n_layer) < 1:
            raise ValueError("vocab_size, block_size, n_embd, n_head and n_layer must be >= 1")
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(
            Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)
        )
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        self.head.weight = self.tok_emb.weight  # tied, as in GPT-2
        for name, parameter in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(parameter)
            elif parameter.dim() == 2:
                residual = name.endswith(("attn.proj.weight", "mlp.2.weight"))
                nn.init.normal_(parameter, std=0.02 / math.sqrt(2 * n_layer) if residual else 0.02)

    def forward(
        self, idx: torch.Tensor, targets: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """idx (B, T) -> logits (B, T, V) and the mean cross-entropy against targets (B, T), or None."""
        T = idx.shape[1]
        if self.block_size < T:
            raise ValueError(f"got {T} positions; this model reads at most {self.block_size}")
        x = self.drop(self.tok_emb(idx) + self.pos_emb(torch.arange(T, device=idx.device)))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))  # (B, T, V)
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())


@torch.no_grad()
def generate(
    model: nn.Module, idx: torch.Tensor, max_new_tokens: int, generator: torch.Generator
) -> torch.Tensor:
    """idx (B, T) followed by max_new_tokens sampled ids, each from the last block_size ids."""
    was_training = model.training
    model.eval()
    for _ in range(max_new_tokens):
        logits, _ = model(idx[:, -model.block_size :])
        next_ids = torch.multinomial(logits[:, -1, :].softmax(dim=-1), 1, generator=generator)
        idx = torch.cat([idx, next_ids], dim=1)
    model.train(was_training)
    return idx
