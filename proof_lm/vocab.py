"""Character vocabularies with the boundary token `.` at index 0."""

import numpy as np

BOUNDARY = "."


def build_vocab(names: list[str]) -> tuple[dict[str, int], list[str]]:
    """Map `.` to 0 and every character seen in `names` (sorted) to 1, 2, ...; return (stoi, itos)."""
    chars = sorted(set("".join(names)) - {BOUNDARY})
    itos = [BOUNDARY, *chars]
    return {ch: i for i, ch in enumerate(itos)}, itos


def encode_text(text: str, stoi: dict[str, int]) -> np.ndarray:
    """The id of every character of `text` as an int64 array, by one vectorised table lookup."""
    table = np.full(0x110000 if any(ord(ch) > 255 for ch in stoi) else 256, -1, dtype=np.int64)
    for ch, index in stoi.items():
        table[ord(ch)] = index
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    ids = table[np.minimum(codes, table.size - 1)]
    bad = (ids < 0) | (codes >= table.size)
    if bad.any():
        missing = sorted({text[i] for i in np.flatnonzero(bad)[:20]})
        raise ValueError(
            f"characters {missing} are not in the vocabulary; expected only {sorted(stoi)}"
        )
    return ids


def decode(ids: list[int] | np.ndarray, itos: list[str]) -> str:
    """Characters for `ids`, boundary tokens dropped."""
    return "".join(itos[i] for i in ids if i != 0)
