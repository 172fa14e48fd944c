"""Where PyTorch work runs: a GPU when there is one, else the CPU."""

import torch


def default_device() -> torch.device:
    """CUDA if available, otherwise CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
