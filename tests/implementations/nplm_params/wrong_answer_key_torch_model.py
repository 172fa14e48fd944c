"""The library's PyTorch MLP, counted."""

from proof_lm.baselines import TorchContextMLP

EXPECT = "graded without PyTorch"


def nplm_params(V, d, n, dh, direct):
    model = TorchContextMLP(V, n - 1, d, dh, direct)
    return sum(p.numel() for p in model.parameters())
