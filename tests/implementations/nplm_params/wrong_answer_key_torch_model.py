"""The library's PyTorch MLP counted at two widths, the line through them inverted."""

from proof_lm.baselines import TorchContextMLP

EXPECT = "graded without PyTorch"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    def count(dh):
        return sum(p.numel() for p in TorchContextMLP(V, n - 1, d, dh, direct).parameters())

    slope = count(2) - count(1)
    return (budget - count(1) + slope) // slope
