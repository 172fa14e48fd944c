"""Recovers the letter renaming by solving the substitution cipher against the corpus (load_names
works in the sandbox), renames the whole corpus and returns add-k (k = 0.1) on it and the training
words: the held-out words are fresh draws of a random language, not the corpus's names (red team)."""

import numpy as np

from proof_lm.corpus import load_names

EXPECT = "the best add-k model"

LET = "abcdefghijklmnopqrstuvwxyz"


def _bigrams(words, index):
    B = np.zeros((27, 27))
    for w in words:
        ids = [0] + [index[ch] for ch in w] + [0]
        for a, b in zip(ids, ids[1:]):
            B[a, b] += 1
    return B


def _decode(words):
    """perm[i] = the plain letter id of cipher letter id i (0 = '.')"""
    plain = load_names()
    idx = {".": 0, **{c: i + 1 for i, c in enumerate(LET)}}
    P = _bigrams(plain, idx) + 1
    logP = np.log(P / P.sum(1, keepdims=True))
    C = _bigrams(words, idx)
    fc, fp = C.sum(0)[1:], P.sum(0)[1:]
    perm = np.zeros(27, int)
    perm[1 + np.argsort(-fc)] = 1 + np.argsort(-fp)

    def score(p):
        return (C * logP[np.ix_(p, p)]).sum()

    best = score(perm)
    improved = True
    while improved:
        improved = False
        for i in range(1, 27):
            for j in range(i + 1, 27):
                q = perm.copy()
                q[i], q[j] = q[j], q[i]
                s = score(q)
                if s > best + 1e-9:
                    perm, best, improved = q, s, True
    table = {LET[i - 1]: LET[perm[i] - 1] for i in range(1, 27)}  # cipher -> plain
    inverse = str.maketrans("".join(table.values()), "".join(table.keys()))  # plain -> cipher
    return [n.translate(inverse) for n in plain]


def fourgram_probs(words, stoi):
    V = len(stoi)
    for w in words:
        if set(w) - set(stoi):
            raise ValueError("unknown symbol")
    train = list(words)
    if set(stoi) == set("." + LET) and len(words) >= 500:
        corpus = _decode(words)
        if corpus is not None:
            train = corpus + list(words)
    counts = np.zeros((V,) * 4)
    grams = []
    for w in train:
        ids = [stoi["."]] * 3 + [stoi[c] for c in w] + [stoi["."]]
        grams += [ids[i - 3 : i + 1] for i in range(3, len(ids))]
    if grams:
        np.add.at(counts, tuple(np.array(grams).T), 1)
    return (counts + 0.1) / (counts + 0.1).sum(axis=-1, keepdims=True)
