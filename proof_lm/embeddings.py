"""Looking inside an embedding table: cosine similarity and nearest neighbours."""

import numpy as np


def cosine_similarity(table: np.ndarray) -> np.ndarray:
    """(V, V) cosine similarity between the rows of a (V, d) table."""
    table = np.asarray(table, dtype=np.float64)
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError("a row of the table is all zeros: its cosine similarity is undefined")
    unit = table / norms
    return unit @ unit.T


def nearest_neighbours(
    table: np.ndarray, itos: list[str], symbol: str, count: int = 3
) -> list[tuple[str, float]]:
    """The `count` symbols whose embeddings are closest to `symbol`'s by cosine, with their similarities."""
    if symbol not in itos:
        raise ValueError(f"{symbol!r} is not in the vocabulary")
    row = cosine_similarity(table)[itos.index(symbol)]
    order = [i for i in np.argsort(-row, kind="stable") if itos[i] != symbol][:count]
    return [(itos[i], float(row[i])) for i in order]
