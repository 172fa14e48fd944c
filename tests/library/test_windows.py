"""proof_lm.windows: every context-window function against makemore's loop, and against each other."""

import numpy as np
import pytest
import torch

from proof_lm.baselines import make_context_dataset
from proof_lm.vocab import build_vocab, encode_text
from proof_lm.windows import name_windows, padded_windows


def makemore_loop(names: list[str], stoi: dict[str, int], block: int) -> tuple[list, list]:
    """The lectures' rolling context: block dots, oldest first, one row per character and the end."""
    X, Y = [], []
    for name in names:
        context = [0] * block
        for ch in name + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = [*context[1:], stoi[ch]]
    return X, Y


def random_names(seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [
        "".join(rng.choice(list("abcde"), rng.integers(1, 9))) for _ in range(rng.integers(0, 7))
    ]


STOI = {".": 0, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}


def test_pairs_and_windows_against_a_loop():
    names = ["ab", "c", "abca"]
    stoi, _ = build_vocab(names)
    expected = [[stoi[a], stoi[b]] for w in names for a, b in zip("." + w, w + ".", strict=True)]
    assert padded_windows(names, stoi, 2).tolist() == expected
    windows = padded_windows(names, stoi, 3)
    loop = [
        [stoi[ch] for ch in ("..." + w + ".")[i : i + 3]]
        for w in names
        for i in range(1, len(w) + 2)
    ]
    assert windows.tolist() == loop
    assert padded_windows([], stoi, 2).shape == (0, 2)
    with pytest.raises(ValueError, match="at least 1"):
        padded_windows(names, stoi, 0)


def test_name_windows_match_the_makemore_loop():
    names = ["emma", "x", "bob"]
    stoi, _ = build_vocab(names)
    for block in (1, 3, 6):
        X, Y = name_windows(names, stoi, block)
        assert (X.tolist(), Y.tolist()) == makemore_loop(names, stoi, block)
        assert X.dtype == Y.dtype == torch.int64
    with pytest.raises(ValueError, match="at least 1"):
        name_windows(names, stoi, 0)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("block", [1, 2, 3, 8])
def test_the_wrappers_agree_on_random_names(seed, block):
    """Names padded by hand and cut by make_context_dataset give name_windows and padded_windows."""
    names = random_names(seed)
    X, Y = name_windows(names, STOI, block)
    assert (X.tolist(), Y.tolist()) == makemore_loop(names, STOI, block)
    by_stream = [
        make_context_dataset([0] * (block - 1) + encode_text("." + n + ".", STOI).tolist(), block)
        for n in names
    ]
    X_stream = (
        torch.cat([x for x, _ in by_stream])
        if names
        else torch.zeros((0, block), dtype=torch.int64)
    )
    Y_stream = torch.cat([y for _, y in by_stream]) if names else torch.zeros(0, dtype=torch.int64)
    assert torch.equal(X, X_stream) and torch.equal(Y, Y_stream)
    assert np.array_equal(
        padded_windows(names, STOI, block + 1), torch.cat([X, Y[:, None]], 1).numpy()
    )


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 9])
@pytest.mark.parametrize("context_length", [1, 3])
def test_make_context_dataset_against_a_loop(length, context_length):
    stream = np.random.default_rng(length).integers(0, 5, length).tolist()
    X, Y = make_context_dataset(stream, context_length)
    rows = range(length - context_length)
    assert X.tolist() == [stream[i : i + context_length] for i in rows]
    assert Y.tolist() == [stream[i + context_length] for i in rows]
    assert X.shape == (max(length - context_length, 0), context_length)
