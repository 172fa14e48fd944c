"""Hands the work to Exercise 1's bpe_train: right, and as slow."""

EXPECT = "too slow"


def bpe_train_fast(text, vocab_size):
    return bpe_train(text, vocab_size)  # noqa: F821 (Exercise 1, defined in the notebook)
