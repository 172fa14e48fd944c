"""Loss and information measures: nats, bits (per character too: nats_to_bits of a mean loss), perplexity.

The scores of a probability table are computed with PyTorch (imported when called); they answer
chapter 01's `mean_nll` and `perplexity`, and the student kit holds them back until that deadline.
"""

import math

import numpy as np

from proof_lm.ngram import _ngram_codes

LN2 = math.log(2.0)


def nats_to_bits(nats: float) -> float:
    """Convert an amount of information from nats to bits."""
    return nats / LN2


def bits_per_character(nats_per_token: float, tokens: int, characters: int) -> float:
    """A mean loss over `tokens` predicted tokens that spell `characters` characters, in bits per character."""
    if tokens < 1 or characters < 1:
        raise ValueError(f"need at least one token and one character, got {tokens}, {characters}")
    return nats_to_bits(nats_per_token * tokens / characters)


def ppl(mean_nll_nats: float) -> float:
    """exp of a mean negative log-likelihood in nats: the effective number of equally likely choices."""
    import torch

    return torch.tensor(float(mean_nll_nats), dtype=torch.float64).exp().item()


def loss_summary(mean_nll_nats: float) -> str:
    """A mean loss in nats, stated on one line in the course's three units: nats, bits and perplexity."""
    return (
        f"{mean_nll_nats:.4f} nats = {nats_to_bits(mean_nll_nats):.3f} bits, "
        f"perplexity {ppl(mean_nll_nats):.2f}"
    )


def _mean_negative_log(probs: np.ndarray, codes: np.ndarray) -> float:
    """The mean of -ln probs.flat[codes] (+inf if any is 0), computed with PyTorch."""
    import torch

    if codes.size == 0:
        raise ValueError("no names to score: expected at least one name")
    flat = torch.as_tensor(np.ascontiguousarray(probs, dtype=np.float64)).reshape(-1)
    return (-flat[torch.from_numpy(codes)].log()).mean().item()


def bigram_mean_nll(probs: np.ndarray, names: list[str], stoi: dict[str, int]) -> float:
    """Mean negative log-likelihood (nats per predicted character, end token included) of a bigram table."""
    return _mean_negative_log(probs, _ngram_codes(names, stoi, 2))


def ngram_mean_nll(probs: np.ndarray, names: list[str], stoi: dict[str, int]) -> float:
    """Mean negative log-likelihood (nats per predicted character) of an n-gram table of shape (V,) * n.

    Each name is read as `name.` after n - 1 leading dots, as `ngram_counts` counts it.
    """
    return _mean_negative_log(probs, _ngram_codes(names, stoi, probs.ndim))
