"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator: divide, logsumexp, exp."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def temperature_probs(logits, temperature):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = torch.tensor(np.asarray(logits, dtype=np.float64)) / temperature
    return (z - torch.logsumexp(z, dim=-1)).exp().numpy()
