"""Write data/shakespeare_bpe.npz: what chapter 09 uses of the library's BPE before its deadline.

Usage (run by hand, from the repository, whose `proof_lm.bpe` holds every routine):

    python data/derive_bpe.py

The student kit holds `proof_lm.bpe` back until chapter 09's deadline (it answers the chapter's
exercises); the chapter's visible tests and demonstrations read these outputs of it instead, all on
data/shakespeare.txt split by position as in chapter 08 (the first 90 % of the characters to train
on, the last 10 % as dev). tests/library/test_bpe.py compares them with the library's.
"""

from pathlib import Path

import numpy as np

from proof_lm import bpe
from proof_lm.shakespeare import load_shakespeare

SIZES = (256, 288, 320, 384, 512, 640, 768, 1024)  # the vocabularies chapter 09 compares


def derive() -> dict[str, np.ndarray]:
    """Every array of the file, by name: merges (K, 2), ids and token counts."""
    text = load_shakespeare()
    cut = int(0.9 * len(text))
    train, dev = text[:cut], text[cut:]
    merges = bpe.bpe_train(train, 1024)
    demo_merges = bpe.bpe_train(text[:3000], 320)
    train_ids = bpe.bpe_encode(train, merges[:256])  # 512 ids
    arrays = {
        "merges": merges,  # the 768 merges of the training split
        "sample_merges": bpe.bpe_train(text[:3000], 300),
        "demo_merges": demo_merges,
        "demo_ids": bpe.bpe_encode(text[3000:5000], demo_merges),
        "piece_merges": bpe.bpe_train(text[100_000:150_000], 556),
        "train_ids": train_ids,
        "dev_ids": bpe.bpe_encode(dev, merges[:256]),
        "dev_piece_ids": bpe.bpe_encode(dev[:2000], merges[:256]),
        "sizes": list(SIZES),
        "dev_tokens": [len(bpe.bpe_encode(dev, merges[: v - 256])) for v in SIZES],
        "train_tokens": [len(train_ids), len(bpe.bpe_encode(train, merges))],  # 512, 1024 ids
    }
    return {name: np.asarray(value, dtype=np.int64) for name, value in arrays.items()}


if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "shakespeare_bpe.npz"
    np.savez_compressed(target, **derive())
    print(f"wrote {target}")
