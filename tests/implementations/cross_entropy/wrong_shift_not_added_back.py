"""A derivation that shifts the log-sum-exp by the row's max but subtracts the unshifted target logit."""

import numpy as np

EXPECT = "off by each row's largest logit"


def cross_entropy(logits, targets):
    if logits.ndim != 2 or np.ndim(targets) != 1 or len(targets) != logits.shape[0]:
        raise ValueError(f"expected logits (B, V) and targets (B,), got {logits.shape}")
    top = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - top).sum(axis=1))  # the shift is not added back
    return float(np.mean(lse - logits[np.arange(len(targets)), targets]))
