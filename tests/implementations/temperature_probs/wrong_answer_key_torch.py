"""PyTorch's softmax of logits / temperature."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    scaled = torch.tensor(np.asarray(logits, dtype=float) / temperature)
    return scaled.softmax(dim=-1).numpy()
