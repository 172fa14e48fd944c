"""0/0 left as nan for empty rows."""

EXPECT = "nan"


def bigram_probs(counts, k=0.0):
    smoothed = counts + k
    return smoothed / smoothed.sum(axis=1, keepdims=True)
