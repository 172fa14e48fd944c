"""The library's GPT parameter count."""

from proof_lm.gpt import gpt_param_count

EXPECT = "graded without PyTorch"


def gpt_params(V, T, C, n_layers, n_heads):
    return gpt_param_count(V, T, C, n_layers)
