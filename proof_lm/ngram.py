"""Count-based n-gram models: count tables, add-k smoothing and sampling.

NumPy in and out, computed with PyTorch's tensor operations (imported when called): the library
holds no NumPy answer to chapter 01's exercises, and the module imports without PyTorch.
"""

import numpy as np

from proof_lm.windows import padded_windows


def ngram_counts(names: list[str], stoi: dict[str, int], n: int = 2) -> np.ndarray:
    """Counts of every n-gram of ids in `name.` padded with n-1 leading dots: shape (V,) * n, int64.

    Counted with one `torch.bincount` over flattened indices, never a Python loop over pairs.
    """
    import torch

    V = len(stoi)
    grams = torch.from_numpy(padded_windows(names, stoi, n))  # (N, n)
    flat = (grams * V ** torch.arange(n - 1, -1, -1)).sum(dim=1)  # row-major index of each n-gram
    return torch.bincount(flat, minlength=V**n).reshape((V,) * n).numpy()


def bigram_count_table(names: list[str], stoi: dict[str, int]) -> np.ndarray:
    """The (V, V) int64 table of bigram counts: row = previous character, column = next."""
    return ngram_counts(names, stoi, n=2)


def add_k_probs(counts: np.ndarray, k: float = 0.0) -> np.ndarray:
    """Add-k smoothed conditional distributions over the last axis; an all-zero row with k=0 is uniform."""
    import torch

    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    smoothed = torch.as_tensor(np.ascontiguousarray(counts, dtype=np.float64)) + k
    totals = smoothed.sum(dim=-1, keepdim=True)
    uniform = torch.full_like(smoothed, 1.0 / smoothed.shape[-1])
    return torch.where(totals > 0, smoothed / totals, uniform).numpy()


def sample_names(
    probs: np.ndarray,
    itos: list[str],
    rng: np.random.Generator,
    count: int = 10,
    max_length: int = 30,
) -> list[str]:
    """Draw `count` names from a (V, V) bigram table with the generator `rng`, starting after `.`."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    names = []
    for _ in range(count):
        current, chars = 0, []
        for _ in range(max_length):
            current = int(rng.choice(len(itos), p=probs[current]))
            if current == 0:
                break
            chars.append(itos[current])
        names.append("".join(chars))
    return names
