"""Count-based n-gram models: count tables, add-k smoothing and sampling.

NumPy in and out, computed with PyTorch's tensor operations (imported when called); the module
imports without PyTorch. Its counts and smoothing answer chapter 01's exercises: the student kit
holds them back until that deadline.
"""

import numpy as np

from proof_lm.vocab import BOUNDARY, encode_text


def _ngram_codes(names: list[str], stoi: dict[str, int], n: int) -> np.ndarray:
    """The row-major index in a (V,) * n table of every n-gram of `name.` after n-1 leading dots: int64 (N,)."""
    import torch

    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    padded = [BOUNDARY * (n - 1) + name + BOUNDARY for name in names]
    ids = torch.from_numpy(encode_text("".join(padded), stoi))
    lengths = torch.tensor([len(p) for p in padded], dtype=torch.int64)
    segment = torch.repeat_interleave(torch.arange(len(padded)), lengths)  # each id's name
    count = max(len(ids) - n + 1, 0)  # n-grams of the joined text, some across two names
    codes = torch.zeros(count, dtype=torch.int64)
    for k in range(n):
        codes = codes * len(stoi) + ids[k : k + count]
    return codes[segment[:count] == segment[n - 1 : n - 1 + count]].numpy()


def ngram_counts(names: list[str], stoi: dict[str, int], n: int = 2) -> np.ndarray:
    """Counts of every n-gram of ids in `name.` padded with n-1 leading dots: shape (V,) * n, int64.

    Counted with one `torch.bincount` over flattened indices, never a Python loop over pairs.
    """
    import torch

    V = len(stoi)
    flat = torch.from_numpy(_ngram_codes(names, stoi, n))
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
