"""The Shakespeare corpus of chapters 08-09: loading, a character vocabulary, the split by position."""

from pathlib import Path

import numpy as np
import torch

from proof_lm.vocab import encode_text

DEFAULT_SHAKESPEARE_PATH = Path(__file__).resolve().parent.parent / "data" / "shakespeare.txt"
DEFAULT_BPE_PATH = DEFAULT_SHAKESPEARE_PATH.with_name("shakespeare_bpe.npz")


def load_shakespeare(path: str | Path | None = None) -> str:
    """The whole text of a UTF-8 file; default: the course's eight plays (data/shakespeare.txt)."""
    path = DEFAULT_SHAKESPEARE_PATH if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no text file at {path}: expected a UTF-8 text file")
    text = path.read_text(encoding="utf-8")
    if not text:
        raise ValueError(f"{path} is empty: expected some text")
    return text


def load_bpe_outputs(path: str | Path | None = None) -> dict[str, list]:
    """Chapter 09's shipped outputs of the library's BPE on the corpus (data/shakespeare_bpe.npz,
    made by data/derive_bpe.py): merges as lists of (int, int), ids and counts as lists of ints."""
    path = DEFAULT_BPE_PATH if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no BPE outputs at {path}: expected data/shakespeare_bpe.npz")
    with np.load(path) as arrays:
        return {
            name: [tuple(pair) for pair in array.tolist()] if array.ndim == 2 else array.tolist()
            for name, array in arrays.items()
        }


def char_vocab(text: str) -> tuple[dict[str, int], list[str]]:
    """Every distinct character of `text`, sorted, numbered from 0; return (stoi, itos)."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"expected a non-empty str, got {type(text).__name__} {text!r:.40}")
    itos = sorted(set(text))
    return {ch: i for i, ch in enumerate(itos)}, itos


def encode_chars(text: str, stoi: dict[str, int]) -> torch.Tensor:
    """The id of every character of `text` as a 1-D torch int64 tensor; ValueError for unknown ones."""
    if not isinstance(text, str):
        raise ValueError(f"expected a str, got {type(text).__name__}")
    if not stoi:
        raise ValueError("the vocabulary is empty: build it with char_vocab(text)")
    if not text:
        return torch.zeros(0, dtype=torch.int64)
    return torch.from_numpy(encode_text(text, stoi))


def split_by_position(
    data: torch.Tensor, train_fraction: float = 0.9
) -> tuple[torch.Tensor, torch.Tensor]:
    """The first `train_fraction` of a 1-D sequence for training, the rest for dev (no shuffling)."""
    if not isinstance(data, torch.Tensor) or data.dim() != 1:
        raise ValueError("expected a 1-D torch tensor of token ids")
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must lie in (0, 1), got {train_fraction}")
    n = int(train_fraction * len(data))
    if n == 0 or n == len(data):
        raise ValueError(
            f"{len(data)} tokens are too few to split at {train_fraction}: one part would be empty"
        )
    return data[:n], data[n:]
