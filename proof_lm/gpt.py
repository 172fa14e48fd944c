"""A tiny character GPT: token and position embeddings, pre-norm decoder blocks, a linear head.

Each block is x + attention(layer_norm(x)), then x + mlp(layer_norm(x)). The attention
projections have no biases (x @ Wq, x @ Wk, x @ Wv, then the merged heads @ Wo), the MLP is
C -> 4C -> C with GELU.
"""

import math

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention; head h reads columns h*D:(h+1)*D of q, k and v (D = C / H)."""

    def __init__(self, width: int, n_heads: int) -> None:
        super().__init__()
        if width % n_heads:
            raise ValueError(f"width {width} is not a multiple of n_heads {n_heads}")
        self.n_heads = n_heads
        self.query = nn.Linear(width, width, bias=False)
        self.key = nn.Linear(width, width, bias=False)
        self.value = nn.Linear(width, width, bias=False)
        self.output = nn.Linear(width, width, bias=False)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, C) -> (B, H, T, D): head h gets columns h*D:(h+1)*D."""
        B, T, C = x.shape
        return x.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C)."""
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, D)
        return self.output(heads.transpose(1, 2).flatten(2))  # heads side by side, in order

    @torch.no_grad()
    def weights(self, x: torch.Tensor) -> torch.Tensor:
        """The attention weights (B, H, T, T): row t is how much position t reads each position."""
        q, k = self.split(self.query(x)), self.split(self.key(x))
        T = x.shape[1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        return scores.masked_fill(future, float("-inf")).softmax(dim=-1)


class Block(nn.Module):
    """A pre-norm decoder block: x + attention(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, width: int, n_heads: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = CausalSelfAttention(width, n_heads)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C)."""
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    """A character GPT: ids (B, T) with T <= block_size -> next-token logits (B, T, V) at every position."""

    def __init__(
        self, vocab_size: int, block_size: int, width: int, n_layers: int, n_heads: int
    ) -> None:
        super().__init__()
        if min(vocab_size, block_size, width, n_layers, n_heads) < 1:
            raise ValueError(
                "vocab_size, block_size, width, n_layers and n_heads must all be at least 1"
            )
        self.block_size = block_size
        self.token = nn.Embedding(vocab_size, width)
        self.position = nn.Embedding(block_size, width)
        self.blocks = nn.ModuleList(Block(width, n_heads) for _ in range(n_layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab_size)
        for name, parameter in self.named_parameters():  # GPT-2's initialisation
            if parameter.dim() == 2:
                residual = name.endswith(("attention.output.weight", "mlp.2.weight"))
                std = 0.02 / math.sqrt(2 * n_layers) if residual else 0.02
                nn.init.normal_(parameter, std=std)
        nn.init.zeros_(self.head.bias)  # small logits: the first loss is close to ln V

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """Token plus position embeddings, (B, T, C)."""
        if ids.dim() != 2 or not 1 <= ids.shape[1] <= self.block_size:
            raise ValueError(
                f"expected ids of shape (B, T) with 1 <= T <= {self.block_size}, got {tuple(ids.shape)}"
            )
        positions = torch.arange(ids.shape[1], device=ids.device)
        return self.token(ids) + self.position(positions)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) -> logits (B, T, V); position t sees ids[:, :t + 1] only."""
        x = self.hidden(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))

    @torch.no_grad()
    def attention_maps(self, ids: torch.Tensor) -> list[torch.Tensor]:
        """The attention weights of every layer, each (B, H, T, T), for the ids (B, T)."""
        x, maps = self.hidden(ids), []
        for block in self.blocks:
            maps.append(block.attention.weights(block.norm1(x)))
            x = block(x)
        return maps
