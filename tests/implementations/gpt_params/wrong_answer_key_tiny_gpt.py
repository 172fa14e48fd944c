"""The library's TinyGPT, counted (its options ignored)."""

from proof_lm.gpt import TinyGPT

EXPECT = "graded without PyTorch"


def gpt_params(V, T, C, n_layers, n_heads, attention_bias=False, tied=False):
    return sum(p.numel() for p in TinyGPT(V, T, C, n_layers, n_heads).parameters())
