"""PyTorch's softmax."""

import torch

EXPECT = "graded without PyTorch"


def softmax(logits, axis=-1):
    return torch.softmax(torch.as_tensor(logits, dtype=torch.float64), dim=axis).numpy()
