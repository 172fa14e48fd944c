"""Random inputs the checks share: vocabularies with shuffled ids, words, probability tables."""

import string

import numpy as np


def random_vocab(rng: np.random.Generator, size: int) -> dict[str, int]:
    """`.` = 0 plus `size - 1` random letters with ids in a shuffled (not alphabetical) order."""
    letters = rng.choice(list(string.ascii_lowercase), size=size - 1, replace=False)
    ids = rng.permutation(np.arange(1, size))
    return {".": 0, **{str(ch): int(i) for ch, i in zip(letters, ids, strict=True)}}


def alphabet_vocab() -> dict[str, int]:
    """The course vocabulary: `.` = 0, a = 1, ..., z = 26."""
    return {".": 0, **{ch: i + 1 for i, ch in enumerate(string.ascii_lowercase)}}


def random_words(
    rng: np.random.Generator, stoi: dict[str, int], count: int, max_length: int = 8
) -> list[str]:
    """`count` random words of length 1..max_length over the letters of `stoi`, repeats likely."""
    letters = [ch for ch in stoi if ch != "."]
    lengths = rng.integers(1, max_length + 1, size=count)
    return ["".join(rng.choice(letters, size=length)) for length in lengths]


def random_prob_table(rng: np.random.Generator, V: int, zeros: float = 0.0) -> np.ndarray:
    """A (V, V) table of rows that sum to 1, with about a fraction `zeros` of exact zeros."""
    table = rng.dirichlet(np.ones(V), size=V)
    if zeros:
        table[rng.random((V, V)) < zeros] = 0.0
        table[table.sum(axis=1) == 0, 0] = 1.0
        table /= table.sum(axis=1, keepdims=True)
    return table
