"""A tiny character GPT assembled from PyTorch's finished layers: embeddings, encoder layers under
a causal mask, a final layer norm and a linear head.

Each block is PyTorch's `nn.TransformerEncoderLayer` (its MLP C -> 4C -> C with GELU), its
attention `nn.MultiheadAttention` without biases, its layer norms where the original Transformer
put them: on the stream after each sublayer's output is added to it. Chapter 08 asks students to write each of these
pieces by hand; this model only puts PyTorch's own together (and PyTorch's finished attention is
refused where chapter 08's attention exercises are graded).
"""

import torch
from torch import nn


def _layer(width: int, n_heads: int) -> nn.TransformerEncoderLayer:
    """PyTorch's encoder layer (exact GELU, no dropout) with bias-free attention."""
    layer = nn.TransformerEncoderLayer(
        width,
        n_heads,
        4 * width,
        dropout=0.0,
        activation=nn.GELU(),
        batch_first=True,
        norm_first=False,
    )
    layer.self_attn = nn.MultiheadAttention(width, n_heads, bias=False, batch_first=True)
    return layer


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
        if width % n_heads:
            raise ValueError(f"width {width} is not a multiple of n_heads {n_heads}")
        self.block_size = block_size
        self.token = nn.Embedding(vocab_size, width)
        self.position = nn.Embedding(block_size, width)
        self.blocks = nn.ModuleList(_layer(width, n_heads) for _ in range(n_layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab_size)
        # PyTorch's default initialisation everywhere but the head: zero logits, first loss ln V
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

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
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        for block in self.blocks:
            x = block(x, src_mask=mask.to(x.dtype), is_causal=True)
        return self.head(self.norm(x))

    @torch.no_grad()
    def attention_maps(self, ids: torch.Tensor) -> list[torch.Tensor]:
        """The attention weights of every layer, each (B, H, T, T), for the ids (B, T)."""
        x, maps = self.hidden(ids), []
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        mask = mask.to(x.dtype)
        for block in self.blocks:
            _, weights = block.self_attn(x, x, x, attn_mask=mask, average_attn_weights=False)
            maps.append(weights)
            x = block(x, src_mask=mask, is_causal=True)
        return maps
