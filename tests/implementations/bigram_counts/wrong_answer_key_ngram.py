"""The library's n-gram counter with n = 2, imported inside the function."""

EXPECT = "answer-key rule"


def bigram_counts(words, stoi):
    from proof_lm import ngram

    return ngram.ngram_counts(words, stoi, n=2)
