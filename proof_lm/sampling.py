"""Decoding: filters that reshape a next-token distribution, draws from a named generator; whole names.

NumPy in and out, computed with PyTorch's tensor operations (imported when called); the module
imports without PyTorch. `filter_probs` and `draw` answer chapter 05's exercises: the student kit
holds them back until its deadline, and `generate_names` does not need them then (it draws with the
`next_token` it is given, or with `torch.multinomial` where no filter is set).
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

    import torch

    Generator = np.random.Generator | torch.Generator
    NextToken = Callable[[np.ndarray, Generator, float, int | None, float | None], int]


def _check_policy(temperature: float, top_k: int | None, top_p: float | None) -> None:
    """ValueError unless temperature > 0, top_k >= 1 and top_p in (0, 1] (None switches a filter off)."""
    if not (
        isinstance(temperature, int | float) and math.isfinite(temperature) and temperature > 0
    ):
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    if top_k is not None and (not isinstance(top_k, int | np.integer) or top_k < 1):
        raise ValueError(f"top_k must be an integer >= 1 or None, got {top_k!r}")
    if top_p is not None and not (isinstance(top_p, int | float) and 0 < top_p <= 1):
        raise ValueError(f"top_p must be in (0, 1] or None, got {top_p!r}")


def filter_probs(
    logits: np.ndarray,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> np.ndarray:
    """Next-token probabilities along the last axis after temperature, top-k and top-p, renormalised."""
    import torch

    _check_policy(temperature, top_k, top_p)
    logits = torch.as_tensor(np.ascontiguousarray(logits, dtype=np.float64))
    shifted = logits - logits.max(dim=-1, keepdim=True).values  # before the division: finite
    probs = torch.softmax(shifted / temperature, dim=-1)
    ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)  # most likely first
    keep = torch.ones_like(ranked, dtype=torch.bool)
    if top_k is not None:  # every token at least as likely as the k-th: ties at the cut stay
        keep &= ranked >= ranked[..., [min(top_k, ranked.shape[-1]) - 1]]
        ranked = torch.where(keep, ranked, 0.0)
        ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    if top_p is not None:
        keep &= ranked.cumsum(dim=-1) - ranked < top_p
        keep[..., 0] = True
    ranked = torch.where(keep, ranked, 0.0)
    ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    return torch.zeros_like(ranked).scatter(-1, order, ranked).numpy()


def draw(probs: np.ndarray, generator: Generator) -> np.ndarray:
    """One index per row of a (..., V) probability array, drawn with the given named generator."""
    import torch

    probs = np.ascontiguousarray(probs, dtype=np.float64)
    flat = torch.from_numpy(probs.reshape(-1, probs.shape[-1]))
    if isinstance(generator, np.random.Generator):  # inverse CDF at one uniform per row
        u = torch.from_numpy(generator.random(flat.shape[0]))
        cdf = flat.cumsum(dim=-1)
        below = (cdf < u[:, None] * cdf[:, -1:]).sum(dim=-1)
        picks = below.clamp(max=flat.shape[-1] - 1).numpy()
    elif isinstance(generator, torch.Generator):
        picks = torch.multinomial(flat, 1, generator=generator)[:, 0].numpy()
    else:
        raise ValueError("generator must be a numpy.random.Generator or a torch.Generator")
    return picks.reshape(probs.shape[:-1])


def _policy_probs(
    logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None
) -> np.ndarray:
    """The policy's distribution: PyTorch's softmax when nothing filters, else `filter_probs`."""
    import torch

    if temperature == 1 and top_k is None and top_p is None:
        return torch.softmax(torch.from_numpy(logits), dim=-1).numpy()
    return filter_probs(logits, temperature, top_k, top_p)


def generate_names(
    model: torch.nn.Module,
    itos: list[str],
    block_size: int | None,
    count: int,
    generator: Generator,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    max_length: int = 30,
    prompt: str = "",
    next_token: NextToken | None = None,
) -> list[str]:
    """Sample `count` names from a model mapping (B, block_size) contexts to logits, until '.' or max_length.

    Each name starts with `prompt` (which may be empty) and continues it. With block_size None the
    model is a GPT: it reads the whole name so far after one '.' and returns logits (B, T, V), of
    which the last position's are used; a name stops when it fills the model's `block_size`.
    Each next id is `next_token(logits (V,), generator, temperature, top_k, top_p)` when given
    (chapter 05's `sample_next`), else drawn by `torch.multinomial` from the policy's distribution.
    The model is read through a copy in evaluation mode: the caller's keeps its mode.
    """
    import torch

    _check_policy(temperature, top_k, top_p)
    unknown = sorted(set(prompt) - set(itos[1:]))
    if unknown:
        raise ValueError(f"the prompt has characters {unknown} outside the vocabulary")
    model = copy.deepcopy(model).eval()  # sampling reads a copy: the caller's model keeps its mode
    device = next(model.parameters()).device
    grow = block_size is None
    prompt_ids = [itos.index(ch) for ch in prompt]
    start = [0, *prompt_ids] if grow else ([0] * block_size + prompt_ids)[-block_size:]
    context = torch.tensor([start] * count, dtype=torch.int64, device=device).reshape(
        count, len(start)
    )
    if grow and getattr(model, "block_size", None) is not None:
        if len(start) > model.block_size:
            raise ValueError(
                f"the prompt has {len(prompt)} characters; after '.' this GPT reads at most "
                f"{model.block_size - 1}"
            )
        max_length = min(max_length, model.block_size - len(start) + 1)
    torch_generator = generator
    if isinstance(generator, np.random.Generator):  # one torch stream, seeded from the named one
        torch_generator = torch.Generator().manual_seed(int(generator.integers(2**62)))
    elif not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a numpy.random.Generator or a torch.Generator")
    chars = [list(prompt) for _ in range(count)]
    alive = np.ones(count, dtype=bool)
    for _ in range(max_length):
        with torch.no_grad():
            logits = model(context)
        logits = (logits[:, -1] if grow else logits).double().cpu().numpy()  # (count, V)
        if next_token is not None:
            picks = np.array(
                [next_token(row, generator, temperature, top_k, top_p) for row in logits]
            )
        else:
            probs = torch.from_numpy(_policy_probs(logits, temperature, top_k, top_p))
            picks = torch.multinomial(probs, 1, generator=torch_generator)[:, 0].numpy()
        for row in np.flatnonzero(alive):
            if picks[row] == 0:
                alive[row] = False
            else:
                chars[row].append(itos[picks[row]])
        if not alive.any():
            break
        kept = context if grow else context[:, 1:]
        context = torch.cat([kept, torch.as_tensor(picks, device=device)[:, None]], dim=1)
    return ["".join(name) for name in chars]
