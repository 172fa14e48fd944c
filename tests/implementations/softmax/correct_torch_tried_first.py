"""PyTorch tried first, its absence caught (NoPyTorch is an ImportError) and a softmax by hand as
the fallback: in a sandbox without PyTorch that is the student's own NumPy, graded as such."""

import numpy as np
import torch

EXPECT = "pass"


def softmax(logits, axis=-1):
    x = np.asarray(logits, dtype=float)
    try:
        return torch._VF.softmax(torch.as_tensor(x), axis).numpy()
    except Exception:
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
