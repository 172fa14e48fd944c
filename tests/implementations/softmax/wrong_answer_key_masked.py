"""torch._masked_softmax with nothing masked (the transformer fast path's kernel)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def softmax(logits, axis=-1):
    x = torch.as_tensor(np.asarray(logits, dtype=float))
    return torch._masked_softmax(x, torch.zeros_like(x, dtype=torch.bool), axis % x.ndim, 0).numpy()
