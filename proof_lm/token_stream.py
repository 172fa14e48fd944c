"""A long text as one stream of token ids: windows to train and evaluate on, and bits per character.

Chapter 09 trains the same GPT on character ids and on BPE ids of the same text; a loss per token
means a different thing under each tokenizer, so the comparison is made per character.
"""

import math

import torch

from proof_lm.windows import IGNORE


def _check(ids: torch.Tensor, block_size: int) -> None:
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError("expected a 1-D tensor of token ids")
    if block_size < 1 or len(ids) <= block_size:
        raise ValueError(
            f"need 1 <= block_size < len(ids); got block_size {block_size} for {len(ids)} ids"
        )


def training_windows(ids: torch.Tensor, block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every window of `block_size` ids and its targets (the next ids), as (N - T, T) views, no copy."""
    _check(ids, block_size)
    return ids[:-1].unfold(0, block_size, 1), ids[1:].unfold(0, block_size, 1)


def evaluation_windows(ids: torch.Tensor, block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Consecutive windows in which every id after the first is a target exactly once.

    The last window is padded with id 0 and IGNORE targets, which the loss skips.
    """
    _check(ids, block_size)
    count = math.ceil((len(ids) - 1) / block_size)
    inputs = torch.zeros(count * block_size, dtype=ids.dtype)
    targets = torch.full((count * block_size,), IGNORE, dtype=ids.dtype)
    inputs[: len(ids) - 1], targets[: len(ids) - 1] = ids[:-1], ids[1:]
    return inputs.view(count, block_size), targets.view(count, block_size)


def bits_per_character(nats_per_token: float, tokens: int, characters: int) -> float:
    """A mean loss over `tokens` predicted tokens that spell `characters` characters, in bits per character."""
    if tokens < 1 or characters < 1:
        raise ValueError("need at least one token and one character")
    return nats_per_token * tokens / characters / math.log(2)
