"""proof_lm.bpe: its vectorised rounds agree with the plain definitions of the chapter 09 checks."""

import numpy as np
import pytest
from conftest import REPO

from autograder.judge.checks.bpe_decode import reference_decode
from autograder.judge.checks.tokenization_shared import (
    POOLS,
    random_text,
    reference_encode,
    reference_train,
)
from proof_lm.bpe import bpe_decode, bpe_encode, bpe_train, check_merges, token_bytes
from proof_lm.shakespeare import load_bpe_outputs, load_shakespeare


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_agrees_with_the_reference_on_random_texts(pool):
    rng = np.random.default_rng(list(pool.encode()))
    for _ in range(25):
        text = random_text(rng, POOLS[pool], int(rng.integers(0, 250)))
        vocab_size = 256 + int(rng.integers(0, 50))
        merges = bpe_train(text, vocab_size)
        assert merges == reference_train(text, vocab_size), (text, vocab_size)
        assert all(type(a) is int and type(b) is int for a, b in merges)
        for other in (text, random_text(rng, POOLS[pool], int(rng.integers(0, 150)))):
            ids = bpe_encode(other, merges)
            assert ids == reference_encode(other, merges)
            assert bpe_decode(ids, merges) == other == reference_decode(ids, merges)


def test_agrees_on_a_slice_of_shakespeare():
    text = load_shakespeare()[:6000]
    merges = bpe_train(text, 356)
    assert len(merges) == 100 and merges == reference_train(text, 356)
    dev = load_shakespeare()[-3000:]
    assert bpe_encode(dev, merges) == reference_encode(dev, merges)


@pytest.mark.parametrize(
    ("text", "vocab_size", "expected"),
    [
        ("aaa", 300, [(97, 97)]),  # (a, a) twice, overlapping
        ("aaaa", 300, [(97, 97)]),  # [X, X]: (X, X) once, stop
        ("abab", 300, [(97, 98)]),
        ("aaabcbc", 257, [(97, 97)]),  # tie: (a, a) occurs first
        ("dcfaebdcfaeb", 257, [(100, 99)]),
        ("abcdef", 300, []),
        ("", 300, []),
        ("x", 300, []),
        ("the the", 256, []),
    ],
)
def test_the_rules_on_small_cases(text, vocab_size, expected):
    assert bpe_train(text, vocab_size) == expected


def test_encode_follows_merge_order_not_frequency():
    assert bpe_encode("abc abc ab ab ab", [(98, 99), (97, 98)]) == reference_encode(
        "abc abc ab ab ab", [(98, 99), (97, 98)]
    )
    assert bpe_encode("abcabc", [(98, 99), (97, 98)]) == [97, 256, 97, 256]
    assert bpe_encode("aaa", [(97, 97)]) == [256, 97]


def test_round_trips_unicode_and_invalid_bytes_are_replaced():
    text = "naïve café 中文 😀👍🏽 " * 20
    merges = bpe_train(text, 400)
    assert bpe_decode(bpe_encode(text, merges), merges) == text
    assert bpe_decode([0xFF], []) == "\ufffd"
    assert bpe_decode([0xE4, 0xB8, 256, 0x96, 0x87], [(0xAD, 0xE6)]) == "中文"
    assert bpe_decode(np.array([104, 105]), []) == "hi"  # NumPy integers are ids too
    assert len(token_bytes(merges)) == 256 + len(merges)


def test_inputs_are_not_modified():
    merges, ids = [(97, 98), (256, 99)], [258 - 1, 97]
    before = (list(merges), list(ids))
    bpe_encode("abcab", merges)
    bpe_decode(ids, merges)
    assert (merges, ids) == before


@pytest.mark.parametrize("vocab_size", [255, 0, -1, 300.0, True])
def test_bad_vocab_size(vocab_size):
    with pytest.raises(ValueError, match="vocab_size"):
        bpe_train("abc", vocab_size)


@pytest.mark.parametrize("ids", [[-1], [258], [97, 10**6], [True]])
def test_bad_ids(ids):
    with pytest.raises(ValueError, match="neither a byte nor a merge"):
        bpe_decode(ids, [(97, 98), (256, 99)])


@pytest.mark.parametrize("merges", [[(97, 256)], [(1, 2, 3)], [(300, 1)], ["ab"]])
def test_bad_merges(merges):
    with pytest.raises(ValueError, match="merge 0"):
        check_merges(merges)
    with pytest.raises(ValueError):
        bpe_encode("ab", merges)


def test_bad_text():
    with pytest.raises(ValueError, match="expected a str"):
        bpe_train(b"abc", 300)
    with pytest.raises(ValueError, match="expected a str"):
        bpe_encode(b"abc", [])


@pytest.mark.parametrize("exercise", ["bpe_train", "bpe_encode", "bpe_decode"])
def test_graded_copy_of_the_library_refuses_only_the_exercise(exercise, tmp_path):
    import subprocess
    import sys

    from autograder.judge.mounted import library_without

    package = library_without(exercise)
    link = tmp_path / "proof_lm"
    link.symlink_to(package)
    probe = (
        "import proof_lm.bpe as b\n"
        "calls = {'bpe_train': lambda: b.bpe_train('abab', 300),\n"
        "         'bpe_encode': lambda: b.bpe_encode('abab', [(97, 98)]),\n"
        "         'bpe_decode': lambda: b.bpe_decode([256], [(97, 98)])}\n"
        "for name, call in calls.items():\n"
        "    try:\n"
        "        call()\n"
        "        print(name, 'works')\n"
        "    except Exception as error:\n"
        "        print(name, type(error).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n{probe}"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = dict(line.split() for line in done.stdout.splitlines())
    assert lines.pop(exercise) == "AnswerKeyError"
    if exercise != "bpe_decode":  # train and encode share _replace, so both are refused
        assert (
            lines.pop("bpe_encode" if exercise == "bpe_train" else "bpe_train") == "AnswerKeyError"
        )
    assert set(lines.values()) == {"works"}


def test_the_shipped_outputs_are_the_librarys():
    # chapter 09 reads data/shakespeare_bpe.npz while the kit holds proof_lm.bpe back. Retraining
    # all 768 merges takes seconds: their first 32 are retrained, the 257th is the most frequent
    # pair (first to occur) of the training split encoded with the 256 before it, and every
    # encoding and count is the library's
    shipped = load_bpe_outputs()
    text = load_shakespeare()
    cut = int(0.9 * len(text))
    train, dev, merges = text[:cut], text[cut:], shipped["merges"]
    assert len(merges) == 768 and merges[:32] == bpe_train(train, 288)
    assert shipped["train_ids"] == bpe_encode(train, merges[:256])
    ids = np.array(shipped["train_ids"])
    codes = ids[:-1] * 512 + ids[1:]
    counts = np.bincount(codes)
    first = int(np.flatnonzero(counts[codes] == counts.max())[0])
    assert merges[256] == (ids[first], ids[first + 1])
    assert shipped["dev_ids"] == bpe_encode(dev, merges[:256])
    assert shipped["dev_piece_ids"] == bpe_encode(dev[:2000], merges[:256])
    sizes = shipped["sizes"]
    assert shipped["dev_tokens"] == [len(bpe_encode(dev, merges[: v - 256])) for v in sizes]
    assert shipped["train_tokens"] == [len(ids), len(bpe_encode(train, merges))]
    assert shipped["sample_merges"] == bpe_train(text[:3000], 300)
    assert shipped["demo_merges"] == bpe_train(text[:3000], 320)
    assert shipped["demo_ids"] == bpe_encode(text[3000:5000], shipped["demo_merges"])
    assert shipped["piece_merges"] == bpe_train(text[100_000:150_000], 556)
    assert "derive_bpe.py" in (REPO / "data" / "PROVENANCE.md").read_text()
