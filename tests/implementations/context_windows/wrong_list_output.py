"""Returns lists."""

EXPECT = "expected a NumPy array"


def context_windows(words, stoi, block_size):
    X, Y = [], []
    for w in words:
        context = [stoi["."]] * block_size
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return X, Y
