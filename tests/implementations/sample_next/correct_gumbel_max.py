"""The Gumbel-max trick: argmax of log-probabilities plus Gumbel noise from rng, over the kept tokens."""

import numpy as np

EXPECT = "pass"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = np.asarray(logits, dtype=np.float64) / temperature
    log_p = z - z.max() - np.log(np.exp(z - z.max()).sum())
    keep = np.ones(len(z), dtype=bool)
    order = np.argsort(-log_p, kind="stable")
    if top_k is not None:
        keep[order[top_k:]] = False
    if top_p is not None:
        kept = np.where(keep, np.exp(log_p), 0.0)
        kept /= kept.sum()
        before = np.cumsum(kept[order]) - kept[order]
        keep[order[1:][before[1:] >= top_p]] = False
    noisy = np.where(keep, log_p + rng.gumbel(size=len(z)), -np.inf)
    return int(np.argmax(noisy))
