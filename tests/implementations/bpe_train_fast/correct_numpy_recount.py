"""The plain definition vectorised with NumPy: every merge counts every pair again, in C.

Its work grows as merges x length, yet at the timed size NumPy's small constant keeps it near the
reference's CPU time: the target is a CPU time, not an algorithm, and this design meets it (found
by a red-team review; the chapter's text claims only that the plain-Python draft misses it).
"""

import numpy as np

EXPECT = "pass"


def bpe_train_fast(text, vocab_size):
    if vocab_size < 256:
        raise ValueError("vocab_size must be >= 256")
    ids = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)
    merges = []
    while len(merges) < vocab_size - 256 and len(ids) > 1:
        codes = ids[:-1] * 1024 + ids[1:]  # every pair, counted again each merge
        counts = np.bincount(codes)
        best = counts.max()
        if best < 2:
            break
        tied = np.flatnonzero(counts == best)
        if len(tied) > 1:  # ties: the pair that occurs first
            firsts = [int(np.argmax(codes == c)) for c in tied]
            code = int(tied[int(np.argmin(firsts))])
        else:
            code = int(tied[0])
        a, b = divmod(code, 1024)
        at = np.flatnonzero(codes == code)
        if a == b:  # 'aaa': left to right, no overlap
            keep, last = [], -2
            for i in at.tolist():
                if i != last + 1:
                    keep.append(i)
                    last = i
                else:
                    last = -2
            at = np.array(keep, dtype=np.int64)
        ids[at] = 256 + len(merges)
        ids = np.delete(ids, at + 1)
        merges.append((a, b))
    return merges
