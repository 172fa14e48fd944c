"""The library's n-gram mean NLL: a bigram table is an n-gram table with n = 2."""

from proof_lm.metrics import ngram_mean_nll

EXPECT = "answer-key rule"


def mean_nll(probs, words, stoi):
    return ngram_mean_nll(probs, words, stoi)
