"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator: logsumexp, sort, cumsum."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def top_p_probs(logits, p, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = torch.tensor(np.asarray(logits, dtype=np.float64)) / temperature
    probs = (z - torch.logsumexp(z, dim=-1)).exp()
    ranked, order = torch.sort(probs, descending=True)
    before = torch.cumsum(ranked, dim=0) - ranked
    keep = before < p
    keep[0] = True
    out = torch.zeros_like(probs)
    out[order[keep]] = ranked[keep]
    return (out / out.sum()).numpy()
