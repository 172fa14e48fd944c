"""PyTorch's softmax tried first, its refusal caught, and a softmax by hand as the fallback."""

import numpy as np
import torch

EXPECT = "PyTorch is not available"


def softmax(logits, axis=-1):
    x = np.asarray(logits, dtype=float)
    try:
        return torch._VF.softmax(torch.as_tensor(x), axis).numpy()
    except Exception:
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
