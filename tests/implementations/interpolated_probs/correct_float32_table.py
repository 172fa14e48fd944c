"""Bisection on the slope summed over Python floats, a fixed 100 halvings; the table mixed in
float32 and returned as float64."""

import numpy as np

EXPECT = "pass"


def interpolated_probs(counts, held_out):
    table = np.array(counts, dtype=np.float64)
    heldout = np.array(held_out, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or heldout.shape != table.shape:
        raise ValueError("counts and held_out must have the same (V, V) shape")
    if not heldout.any():
        raise ValueError("held_out has no counts")
    V = table.shape[0]
    column = [sum(table[:, b]) for b in range(V)]
    total = sum(column)
    uni = [c / total for c in column]
    terms = []  # (count, row estimate, unigram) of each held-out bigram whose row has counts
    for a in range(V):
        row_total = sum(table[a])
        for b in range(V):
            if heldout[a, b] > 0:
                if uni[b] == 0:
                    raise ValueError("a held-out bigram has probability 0 whatever lam is")
                if row_total > 0:
                    terms.append((heldout[a, b], table[a, b] / row_total, uni[b]))

    def rising(lam):
        total_slope = 0.0
        for c, est, base in terms:
            mix = lam * est + (1 - lam) * base
            if mix == 0:
                return False
            total_slope += c * (est - base) / mix
        return total_slope > 0

    low, high = 0.0, 1.0
    for _ in range(100):
        mid = 0.5 * (low + high)
        if rising(mid):
            low = mid
        else:
            high = mid
    lam = 0.0 if not rising(0.0) else 1.0 if rising(1.0) or high == 1.0 else 0.5 * (low + high)
    rows = table.sum(axis=1, keepdims=True).astype(np.float32)
    est32 = np.divide(
        table.astype(np.float32), rows, out=np.zeros((V, V), np.float32), where=rows > 0
    )
    uni32 = np.array(uni, dtype=np.float32)
    lam32 = np.float32(lam)
    return np.where(rows > 0, lam32 * est32 + (1 - lam32) * uni32, uni32).astype(np.float64), lam
