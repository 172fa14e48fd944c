"""The verdicts chapters 07, 08 and 09 state, measured over seeds at the chapters' own budgets.

    .venv/bin/python -m benchmarks.verdicts [--seeds 3] [--only gpt|bpe|positions|names] [--workers 2]

`gpt`: chapter 08's GPT (the library's copy, the chapter's configuration and recipe, 1,350 steps)
against chapter 03's context-8 MLP (5,600 steps), dev loss in nats per character, the GPT's read
on sliding windows of 64 with stride 32, as the chapter measures them. `bpe`: chapter 09's GPT
trained 20 CPU-s on Shakespeare's character ids and on its 512 BPE ids, dev bits per character.
`positions`: chapter 08's ablation, its GPT trained at its budget with its position embedding and
without it (held at zero, never trained), the same seed, recipe and windows for both. `names`:
chapter 07's TinyGPT against the context-8 MLP on first names, 8 CPU-s each, dev loss in nats.
Each seed draws the initial weights and the training windows. Prints each seed, then the mean
margin, the smallest, and the spread (the larger of the two models' ranges over the seeds), and the
verdict the chapters word theirs by: one model "ahead" only when its margin exceeds the spread on
every seed (a chapter's verdict rests on one run), "ahead on every seed, by less than the spread"
when it is lower on every seed, else "level within noise at this budget". One thread per run;
`--workers` runs that many at once (the GPT runs are counted in steps, so load does not change
them; the BPE runs in CPU time).
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
from proof_lm.corpus import load_names, split_names
from proof_lm.gpt import TinyGPT
from proof_lm.gpt2 import GPT
from proof_lm.shakespeare import char_vocab, encode_chars, load_shakespeare, split_by_position
from proof_lm.text_training import train_on_text
from proof_lm.training import Recipe, init_output_bias, train_lm
from proof_lm.vocab import build_vocab
from proof_lm.windows import IGNORE, name_sequences, name_windows

GPT_STEPS, MLP_STEPS = 1350, 5600  # chapter 08's budget (solutions/08_gpt.ipynb)
BPE_SECONDS = 20  # chapter 09's budget, CPU seconds per model
NAMES_SECONDS = 8  # chapter 07's budget, CPU seconds per model


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
    if not positions:  # the input is the token's vector alone, as in the chapter's ablation
        with torch.no_grad():
            gpt.pos_emb.weight.zero_()
        gpt.pos_emb.weight.register_hook(torch.zeros_like)  # a zero gradient: it stays at zero
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


def names_gpt_and_mlp(seed: int) -> tuple[float, float]:
    """Chapter 07's two dev losses (TinyGPT, MLP) on names in nats, from `seed` (solutions/07)."""
    torch.set_num_threads(1)
    names = load_names()
    stoi, itos = build_vocab(names)
    train_names, dev_names, _ = split_names(names)
    block = max(len(name) for name in names) + 1
    torch.manual_seed(seed)
    gpt = TinyGPT(len(itos), block, width=32, n_layers=1, n_heads=4)
    train_seq, dev_seq = (
        name_sequences(train_names, stoi, block),
        name_sequences(dev_names, stoi, block),
    )
    init_output_bias(gpt.head, train_seq[1][train_seq[1] != IGNORE], len(itos))
    gpt_recipe = Recipe(10**6, 128, 0.01, 0.01, warmup=50, eval_every=10**6, seed=seed)
    gpt_dev = train_lm(
        gpt, train_seq, dev_seq, gpt_recipe, progress=False, seconds=NAMES_SECONDS
    ).dev[-1]
    torch.manual_seed(seed)
    mlp = TorchContextMLP(len(itos), context_length=8, embedding_dim=16, hidden_dim=200)
    windows = name_windows(train_names, stoi, 8)
    init_output_bias(mlp.output, windows[1], len(itos))
    mlp_recipe = Recipe(10**6, 1024, 0.02, 0.01, eval_every=10**6, seed=seed)
    dev_windows = name_windows(dev_names, stoi, 8)
    mlp_dev = train_lm(
        mlp, windows, dev_windows, mlp_recipe, progress=False, seconds=NAMES_SECONDS
    ).dev[-1]
    return gpt_dev, mlp_dev


def verdict(pairs: list[tuple[float, float]], names: tuple[str, str]) -> str:
    """The summary line: mean and smallest margin (second minus first), spread, and the worded verdict.

    A chapter states its verdict from one run, so a model is "ahead" only when its margin exceeds
    the spread (the larger of the two models' ranges over the seeds) on every seed; ahead on every
    seed by less than that is said so; margins of both signs are "level within noise".
    """
    first, second = zip(*pairs, strict=True)
    margins = [b - a for a, b in pairs]
    spread = max(max(first) - min(first), max(second) - min(second))
    leader = names[0] if margins[0] > 0 else names[1]
    if all(m > spread for m in margins) or all(-m > spread for m in margins):
        said = f"{leader} ahead"
    elif all(m > 0 for m in margins) or all(m < 0 for m in margins):
        said = f"{leader} ahead on every seed, by less than the spread"
    else:
        said = "level within noise at this budget"
    smallest = min(margins, key=abs)
    return (
        f"{names[1]} minus {names[0]}: mean {statistics.mean(margins):+.4f} over {len(pairs)} "
        f"seeds, smallest {smallest:+.4f}, spread {spread:.4f}: {said}"
    )


def main() -> None:
    """Run the seeds of each comparison and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--only", choices=["gpt", "bpe", "positions", "names"])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    comparisons = {
        "gpt": (gpt_and_mlp, ("GPT", "MLP"), "nats/char"),
        "bpe": (bpe_and_chars, ("BPE", "characters"), "bits/char"),
        "positions": (with_and_without_positions, ("positions", "no positions"), "nats/char"),
        "names": (names_gpt_and_mlp, ("GPT", "MLP"), "nats"),
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
