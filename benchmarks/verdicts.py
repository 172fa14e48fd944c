"""The verdicts chapters 08 and 09 state, measured over seeds at the chapters' own budgets.

    .venv/bin/python -m benchmarks.verdicts [--seeds 3] [--only gpt|bpe|positions] [--workers 2]

`gpt`: chapter 08's GPT (the library's copy, the chapter's configuration and recipe, 2,700 steps)
against chapter 03's context-8 MLP (9,000 steps), dev loss in nats per character, the GPT's read
on sliding windows of 64 with stride 32, as the chapter measures them. `bpe`: chapter 09's GPT
trained 50 CPU-s on Shakespeare's character ids and on its 512 BPE ids, dev bits per character.
`positions`: chapter 08's ablation, its GPT trained at its budget with its position embedding and
without it (held at zero, never trained), the same seed, recipe and windows for both.
Each seed draws the initial weights and the training windows. Prints each seed, then the mean
margin and the spread (the larger of the two models' ranges over the seeds) and the verdict the
chapters word theirs by: one model "ahead" only when the mean margin exceeds the spread, else
"level within noise at this budget". One thread per run; `--workers` runs that many at once (the
GPT runs are counted in steps, so load does not change them; the BPE runs in CPU time).
"""

import argparse
import dataclasses
import statistics
from concurrent.futures import ProcessPoolExecutor

import torch

from benchmarks.training_speed import (
    MLP_RECIPE,
    SHAKESPEARE_GPT,
    SHAKESPEARE_GPT_RECIPE,
    tokenizer_comparison,
)
from proof_lm.baselines import TorchContextMLP, make_context_dataset
from proof_lm.gpt2 import GPT
from proof_lm.shakespeare import char_vocab, encode_chars, load_shakespeare, split_by_position
from proof_lm.text_training import train_on_text
from proof_lm.training import init_output_bias, train_lm

GPT_STEPS, MLP_STEPS = 2700, 9000  # chapter 08's budget (solutions/08_gpt.ipynb)
BPE_SECONDS = 50  # chapter 09's budget, CPU seconds per model


def gpt_and_mlp(seed: int) -> tuple[float, float]:
    """Chapter 08's two dev losses (GPT, MLP) in nats per character, from `seed`."""
    gpt_dev = _shakespeare_gpt(seed)
    text = load_shakespeare()
    stoi, itos = char_vocab(text)
    train, dev = split_by_position(encode_chars(text, stoi))
    torch.manual_seed(seed)
    mlp = TorchContextMLP(len(itos), 8, 16, 200)
    windows = make_context_dataset(train, 8)
    init_output_bias(mlp.output, windows[1], len(itos))
    recipe = dataclasses.replace(MLP_RECIPE, steps=MLP_STEPS, seed=seed)
    mlp_dev = train_lm(mlp, windows, make_context_dataset(dev, 8), recipe, progress=False).dev[-1]
    return gpt_dev, mlp_dev


def _shakespeare_gpt(seed: int, positions: bool = True) -> float:
    """Chapter 08's GPT (the library's copy) trained at the chapter's budget: dev loss, sliding windows."""
    torch.set_num_threads(1)
    text = load_shakespeare()
    stoi, itos = char_vocab(text)
    train, dev = split_by_position(encode_chars(text, stoi))
    block = SHAKESPEARE_GPT["block_size"]
    torch.manual_seed(seed)
    gpt = GPT(len(itos), **SHAKESPEARE_GPT)
    if not positions:  # the input is the token's vector alone: a position-free causal model
        with torch.no_grad():
            gpt.pos_emb.weight.zero_()
        gpt.pos_emb.weight.requires_grad_(False)
    recipe = dataclasses.replace(SHAKESPEARE_GPT_RECIPE, steps=GPT_STEPS, seed=seed)
    history = train_on_text(gpt, train, dev, block, recipe, progress=False, stride=block // 2)
    return history.dev[-1]


def with_and_without_positions(seed: int) -> tuple[float, float]:
    """Chapter 08's ablation: dev loss with and without position embeddings, from `seed`."""
    return _shakespeare_gpt(seed), _shakespeare_gpt(seed, positions=False)


def bpe_and_chars(seed: int) -> tuple[float, float]:
    """Chapter 09's two dev figures (BPE, characters) in bits per character, from `seed`."""
    torch.set_num_threads(1)
    char_bpc, bpe_bpc = tokenizer_comparison(BPE_SECONDS, seed)
    return bpe_bpc, char_bpc


def verdict(pairs: list[tuple[float, float]], names: tuple[str, str]) -> str:
    """The summary line: mean margin (second minus first), spread, and the worded verdict."""
    first, second = zip(*pairs, strict=True)
    margin = statistics.mean(b - a for a, b in pairs)
    spread = max(max(first) - min(first), max(second) - min(second))
    if abs(margin) > spread:
        ahead = names[0] if margin > 0 else names[1]
        said = f"{ahead} ahead"
    else:
        said = "level within noise at this budget"
    return (
        f"{names[1]} minus {names[0]}: mean {margin:+.4f} over {len(pairs)} seeds, "
        f"spread {spread:.4f}: {said}"
    )


def main() -> None:
    """Run the seeds of each comparison and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--only", choices=["gpt", "bpe", "positions"])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    comparisons = {
        "gpt": (gpt_and_mlp, ("GPT", "MLP"), "nats/char"),
        "bpe": (bpe_and_chars, ("BPE", "characters"), "bits/char"),
        "positions": (with_and_without_positions, ("positions", "no positions"), "nats/char"),
    }
    for name, (run, names, unit) in comparisons.items():
        if args.only and name != args.only:
            continue
        with ProcessPoolExecutor(args.workers) as pool:
            pairs = list(pool.map(run, range(args.seeds)))
        for seed, (a, b) in enumerate(pairs):
            print(f"{name} seed {seed}: {names[0]}={a:.4f} {names[1]}={b:.4f} {unit}", flush=True)
        print(f"{name}: {verdict(pairs, names)}", flush=True)


if __name__ == "__main__":
    main()
