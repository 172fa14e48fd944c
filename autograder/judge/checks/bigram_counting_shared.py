"""What the checks of `bigram_counts`, `bigram_probs`, `mean_nll`, `perplexity` share.

References here are plain loops, independent of the vectorised code in proof_lm.
"""

import itertools

import numpy as np


def reference_counts(
    words: list[str],
    stoi: dict[str, int],
    start: bool = True,
    end: bool = True,
    unique: bool = False,
) -> np.ndarray:
    """Bigram counts by a double loop; the flags build the classic wrong variants."""
    V = len(stoi)
    counts = np.zeros((V, V), dtype=np.int64)
    for word in words:
        chars = (["."] if start else []) + list(word) + (["."] if end else [])
        pairs = list(itertools.pairwise(chars))
        for a, b in set(pairs) if unique else pairs:
            counts[stoi[a], stoi[b]] += 1
    return counts
