"""torch.nn.functional.log_softmax, then exp: still PyTorch's softmax."""

import numpy as np
import torch.nn.functional as F  # noqa: N812

EXPECT = "graded without PyTorch"


def softmax(logits, axis=-1):
    import torch

    return np.exp(F.log_softmax(torch.tensor(np.asarray(logits, dtype=float)), dim=axis).numpy())
