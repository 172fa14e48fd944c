"""Decoding: temperature, then top-k, then top-p, then a draw from a named generator; whole names.

NumPy only until a PyTorch generator or model is handed in: it imports without PyTorch.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from proof_lm.functional import softmax

if TYPE_CHECKING:
    import torch

    Generator = np.random.Generator | torch.Generator


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
    _check_policy(temperature, top_k, top_p)
    probs = softmax(np.asarray(logits, dtype=np.float64) / temperature)
    order = np.argsort(-probs, axis=-1, kind="stable")  # most likely first
    ranked = np.take_along_axis(probs, order, axis=-1)
    keep = np.ones(ranked.shape, dtype=bool)
    if top_k is not None:
        keep[..., top_k:] = False
        ranked = np.where(keep, ranked, 0.0)
        ranked /= ranked.sum(axis=-1, keepdims=True)
    if top_p is not None:
        mass_before = np.cumsum(ranked, axis=-1) - ranked
        keep &= mass_before < top_p
        keep[..., 0] = True
    ranked = np.where(keep, ranked, 0.0)
    ranked /= ranked.sum(axis=-1, keepdims=True)
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, ranked, axis=-1)
    return out


def draw(probs: np.ndarray, generator: Generator) -> np.ndarray:
    """One index per row of a (..., V) probability array, drawn with the given named generator."""
    probs = np.asarray(probs, dtype=np.float64)
    flat = probs.reshape(-1, probs.shape[-1])
    if isinstance(generator, np.random.Generator):
        u = generator.random(flat.shape[0])
        cdf = np.cumsum(flat, axis=-1)
        picks = np.minimum((cdf < u[:, None] * cdf[:, -1:]).sum(axis=-1), flat.shape[-1] - 1)
    elif type(generator).__module__.partition(".")[0] == "torch":
        import torch

        picks = torch.multinomial(torch.from_numpy(flat), 1, generator=generator)[:, 0].numpy()
    else:
        raise ValueError("generator must be a numpy.random.Generator or a torch.Generator")
    return picks.reshape(probs.shape[:-1])


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
) -> list[str]:
    """Sample `count` names from a model mapping (B, block_size) contexts to logits, until '.' or max_length.

    Each name starts with `prompt` (which may be empty) and continues it. With block_size None the
    model is a GPT: it reads the whole name so far after one '.' (cut to its last
    `model.block_size` ids) and returns logits (B, T, V), of which the last position's are used.
    """
    import torch

    _check_policy(temperature, top_k, top_p)
    unknown = sorted(set(prompt) - set(itos[1:]))
    if unknown:
        raise ValueError(f"the prompt has characters {unknown} outside the vocabulary")
    model.eval()
    device = next(model.parameters()).device
    grow = block_size is None
    prompt_ids = [itos.index(ch) for ch in prompt]
    start = [0, *prompt_ids] if grow else ([0] * block_size + prompt_ids)[-block_size:]
    context = torch.tensor([start] * count, dtype=torch.int64, device=device).reshape(
        count, len(start)
    )
    limit = getattr(model, "block_size", None) if grow else None
    chars = [list(prompt) for _ in range(count)]
    alive = np.ones(count, dtype=bool)
    for _ in range(max_length):
        with torch.no_grad():
            logits = model(context if limit is None else context[:, -limit:])
        logits = (logits[:, -1] if grow else logits).double().cpu().numpy()  # (count, V)
        picks = draw(filter_probs(logits, temperature, top_k, top_p), generator)
        for row in np.flatnonzero(alive):
            if picks[row] == 0:
                alive[row] = False
            else:
                chars[row].append(itos[picks[row]])
        if not alive.any():
            break
        kept = context if grow else context[:, 1:]
        context = torch.cat([kept, torch.as_tensor(picks, device=device)[:, None]], dim=1)
    model.train()
    return ["".join(name) for name in chars]
