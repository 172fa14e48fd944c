"""The library's name windows, turned into NumPy."""

from proof_lm.windows import name_windows

EXPECT = "answer-key rule"


def context_windows(words, stoi, block_size):
    X, Y = name_windows(words, stoi, block_size)
    return X.numpy(), Y.numpy()
