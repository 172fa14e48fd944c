"""F.rms_norm of the centred rows, then the shift: PyTorch's normalisation (the red team's route past
the old guard, where rms_norm was an "explained" calculator). No PyTorch in a NumPy exercise."""

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

EXPECT = "graded without PyTorch"


def layer_norm(x, gamma, beta, eps=1e-5):
    if x.ndim < 1 or gamma.shape != x.shape[-1:] or beta.shape != x.shape[-1:]:
        raise ValueError("gamma and beta must be (D,) for x (..., D)")
    t = torch.from_numpy(np.asarray(x, dtype=np.float64))
    centred = t - t.mean(-1, keepdim=True)
    out = F.rms_norm(centred, (t.shape[-1],), torch.from_numpy(gamma), eps=eps)
    return (out + torch.from_numpy(beta)).numpy()
