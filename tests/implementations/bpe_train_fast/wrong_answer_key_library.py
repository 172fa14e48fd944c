"""Hands the work to the library's own fast bpe_train (found by a red-team review)."""

from proof_lm.bpe import bpe_train as _library

EXPECT = "answer-key rule"


def bpe_train_fast(text, vocab_size):
    return _library(text, vocab_size)
