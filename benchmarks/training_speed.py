"""Chapter 03's recipes against the makemore lectures' recipe, timed in the same run.

    .venv/bin/python benchmarks/training_speed.py [--names PATH] [--skip-lectures] [--only shakespeare]

Uses ../shared/data/names.txt (the lectures' file) when it exists, else the course corpus, with
the makemore split. Prints: the time for the lectures' recipe (emb 10, hidden 200, context 3, SGD
batch 32, learning rate 0.1 then 0.01 after 100,000 steps, 200,000 steps) to reach dev 2.17 and
where it ends; the time for ours to reach 2.17 and the ratio; the dev loss our recipes reach in
about 20 s with contexts 3 and 8; and the dev loss chapter 07's tiny GPT and chapter 03's
context-8 MLP reach in 20 s and in 60 s of CPU time each (`train_lm(..., seconds=...)`). One
thread, as COURSE.md recommends. `--only shakespeare` prints only chapter 08's comparison: the
GPT of proof_lm.gpt2 (the chapter's configuration) and the context-8 MLP on Shakespeare, dev loss
in nats per character after 20 s and 60 s of CPU time each (the GPT's on sliding windows of 64 with
stride 32, so every character after the first 64 is read with at least 32 before it).

`--only bpe` prints only chapter 09's comparison: chapter 08's GPT (the library's) trained for 60 s
of CPU time on the character ids and on the 512 BPE ids of Shakespeare's training split, its dev
loss in bits per character: `bpe 60s: char_gpt_bpc=... bpe_gpt_bpc=...`.
"""

import argparse
import dataclasses
import time
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

from proof_lm.baselines import TorchContextMLP, make_context_dataset
from proof_lm.bpe import bpe_decode, bpe_encode, bpe_train
from proof_lm.corpus import load_names, split_names
from proof_lm.gpt import TinyGPT
from proof_lm.gpt2 import GPT
from proof_lm.metrics import bits_per_character
from proof_lm.shakespeare import char_vocab, encode_chars, load_shakespeare, split_by_position
from proof_lm.text_training import train_on_text
from proof_lm.training import Recipe, init_output_bias, train_lm
from proof_lm.vocab import build_vocab
from proof_lm.windows import IGNORE, name_sequences, name_windows

LECTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "names.txt"
TARGET = 2.17
QUICK = Recipe(
    steps=300, batch_size=1024, learning_rate=0.08, weight_decay=0.0, warmup=20, eval_every=25
)
QUICK_SIZE = (16, 128)  # embedding, hidden
TWENTY_SECONDS = {  # context: (embedding, hidden, recipe), each about 20 s on one thread here
    3: (
        32,
        512,
        Recipe(steps=2500, batch_size=1024, learning_rate=0.01, weight_decay=0.05, eval_every=500),
    ),
    8: (
        32,
        512,
        Recipe(steps=1500, batch_size=1024, learning_rate=0.015, weight_decay=0.05, eval_every=500),
    ),
}

# Chapter 07's GPT and MLP recipes, with a step cap far beyond any budget: the time decides.
GPT_SIZE = {"width": 32, "n_layers": 1, "n_heads": 4}
GPT_RECIPE = Recipe(
    steps=10**6, batch_size=128, learning_rate=0.01, weight_decay=0.01, warmup=50, eval_every=10**6
)
MLP_RECIPE = Recipe(
    steps=10**6, batch_size=1024, learning_rate=0.02, weight_decay=0.01, eval_every=10**6
)

# Chapter 09's comparison (solutions/09_tokenization.ipynb): the same GPT and recipe on both streams.
BPE_GPT = {"n_embd": 64, "n_head": 4, "n_layer": 2}
BPE_BLOCK = 64
BPE_RECIPE = Recipe(
    steps=10**6, batch_size=32, learning_rate=0.01, weight_decay=0.01, warmup=50, eval_every=10**6
)


# Chapter 08's GPT and MLP on Shakespeare, as the notebook trains them.
SHAKESPEARE_GPT = {"block_size": 64, "n_embd": 64, "n_head": 4, "n_layer": 3}
SHAKESPEARE_GPT_RECIPE = Recipe(
    steps=10**6, batch_size=12, learning_rate=1e-2, weight_decay=0.1, warmup=50, eval_every=10**6
)


def shakespeare(seconds: float) -> tuple[float, float]:
    """Dev loss (nats per character) of chapter 08's GPT and context-8 MLP after `seconds` of CPU time each."""
    text = load_shakespeare()
    stoi, itos = char_vocab(text)
    train, dev = split_by_position(encode_chars(text, stoi))
    torch.manual_seed(0)
    gpt = GPT(len(itos), **SHAKESPEARE_GPT)
    block = SHAKESPEARE_GPT["block_size"]
    gpt_history = train_on_text(  # dev loss on sliding windows, as the chapter reads it
        gpt,
        train,
        dev,
        block,
        SHAKESPEARE_GPT_RECIPE,
        seconds=seconds,
        progress=False,
        stride=block // 2,
    )
    torch.manual_seed(0)
    mlp = TorchContextMLP(len(itos), 8, 16, 200)
    windows = make_context_dataset(train, 8)
    init_output_bias(mlp.output, windows[1], len(itos))
    mlp_history = train_lm(
        mlp, windows, make_context_dataset(dev, 8), MLP_RECIPE, progress=False, seconds=seconds
    )
    return gpt_history.dev[-1], mlp_history.dev[-1]


def lectures_recipe(train, dev, eval_every: int = 5000) -> tuple[float | None, float, float]:
    """makemore part 2's MLP, as in the lecture: every parameter N(0, 1), SGD on batches of 32,
    learning rate 0.1 then 0.01 after 100,000 steps. Return (seconds to reach TARGET or None,
    total seconds, final dev loss); evaluation time is not counted.
    """
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((30, 200), generator=g)
    b1 = torch.randn(200, generator=g)
    W2 = torch.randn((200, 27), generator=g)
    b2 = torch.randn(27, generator=g)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True

    def dev_loss() -> float:
        with torch.no_grad():
            logits = torch.tanh(C[dev[0]].view(-1, 30) @ W1 + b1) @ W2 + b2
            return F.cross_entropy(logits, dev[1]).item()

    X, Y = train
    reached, elapsed = None, 0.0
    for step in range(200_000):
        start = time.perf_counter()
        ix = torch.randint(0, X.shape[0], (32,))
        h = torch.tanh(C[X[ix]].view(-1, 30) @ W1 + b1)
        loss = F.cross_entropy(h @ W2 + b2, Y[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if step < 100_000 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        elapsed += time.perf_counter() - start
        if reached is None and (step + 1) % eval_every == 0 and dev_loss() <= TARGET:
            reached = elapsed
    return reached, elapsed, dev_loss()


def ours(
    train_names,
    dev_names,
    stoi,
    context: int,
    embedding: int,
    hidden: int,
    recipe: Recipe,
    until=None,
):
    """Train one of our recipes; return (seconds, dev losses)."""
    torch.manual_seed(0)
    model = TorchContextMLP(len(stoi), context, embedding, hidden)
    train = name_windows(train_names, stoi, context)
    init_output_bias(model.output, train[1], len(stoi))
    start = time.perf_counter()
    history = train_lm(
        model, train, name_windows(dev_names, stoi, context), recipe, progress=False, until=until
    )
    return time.perf_counter() - start, history.dev


def timed_gpt_and_mlp(train_names, dev_names, stoi, seconds: float) -> tuple[dict, dict]:
    """Chapter 07's GPT and chapter 03's context-8 MLP, each trained for `seconds` of CPU time."""
    V = len(stoi)
    block_size = max(len(name) for name in train_names + dev_names) + 1
    torch.manual_seed(0)
    gpt = TinyGPT(V, block_size, **GPT_SIZE)
    train = name_sequences(train_names, stoi, block_size)
    init_output_bias(gpt.head, train[1][train[1] != IGNORE], V)
    gpt_history = train_lm(
        gpt,
        train,
        name_sequences(dev_names, stoi, block_size),
        GPT_RECIPE,
        progress=False,
        seconds=seconds,
    )
    torch.manual_seed(0)
    mlp = TorchContextMLP(V, 8, 16, 200)
    train = name_windows(train_names, stoi, 8)
    init_output_bias(mlp.output, train[1], V)
    mlp_history = train_lm(
        mlp, train, name_windows(dev_names, stoi, 8), MLP_RECIPE, progress=False, seconds=seconds
    )
    return (
        {"dev": gpt_history.dev[-1], "steps": len(gpt_history.train)},
        {"dev": mlp_history.dev[-1], "steps": len(mlp_history.train)},
    )


def tokenizer_comparison(seconds: float, seed: int = 0) -> tuple[float, float]:
    """Dev bits per character of chapter 08's GPT trained `seconds` of CPU time on Shakespeare's
    character ids and, alike, on its 512 BPE ids (merges learned on the training split), its
    weights and windows drawn from `seed`."""
    text = load_shakespeare()
    cut = int(0.9 * len(text))  # the split by position of chapters 08 and 09
    train_text, dev_text = text[:cut], text[cut:]
    stoi, itos = char_vocab(text)
    merges = bpe_train(train_text, 512)
    dev_bpe = bpe_encode(dev_text, merges)
    streams = {  # name: (train ids, dev ids, vocabulary, characters the dev targets spell)
        "char": (
            encode_chars(train_text, stoi),
            encode_chars(dev_text, stoi),
            len(itos),
            len(dev_text) - 1,
        ),
        "bpe": (
            torch.tensor(bpe_encode(train_text, merges)),
            torch.tensor(dev_bpe),
            512,
            len(dev_text) - len(bpe_decode(dev_bpe[:1], merges)),
        ),
    }
    bpc = {}
    for name, (train, dev, vocab_size, characters) in streams.items():
        torch.manual_seed(seed)
        model = GPT(vocab_size, BPE_BLOCK, **BPE_GPT)
        recipe = dataclasses.replace(BPE_RECIPE, seed=seed)
        history = train_on_text(
            model, train, dev, BPE_BLOCK, recipe, seconds=seconds, progress=False
        )
        bpc[name] = bits_per_character(history.dev[-1], len(dev) - 1, characters)
    return bpc["char"], bpc["bpe"]


def print_tokenizer_comparison(seconds: int = 60) -> None:
    """The `bpe` line of the benchmark."""
    char_bpc, bpe_bpc = tokenizer_comparison(seconds)
    print(f"bpe {seconds}s: char_gpt_bpc={char_bpc:.4f} bpe_gpt_bpc={bpe_bpc:.4f}")


def main() -> None:
    """Run and print every measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=Path, default=LECTURES if LECTURES.is_file() else None)
    parser.add_argument("--skip-lectures", action="store_true", help="skip the 200,000-step recipe")
    parser.add_argument("--only", choices=["shakespeare", "bpe"], help="run only this comparison")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.only == "shakespeare":
        print_shakespeare_comparison()
        return
    if args.only == "bpe":
        print_tokenizer_comparison()
        return
    names = load_names(args.names)
    stoi, _ = build_vocab(names)
    train_names, dev_names, _ = split_names(names)
    print(
        f"corpus: {args.names or 'course default'} ({len(names)} names), torch threads: {torch.get_num_threads()}"
    )

    ours(
        train_names, dev_names, stoi, 3, *QUICK_SIZE, Recipe(steps=20, eval_every=20)
    )  # warm-up, untimed
    quick_time, quick_dev = ours(train_names, dev_names, stoi, 3, *QUICK_SIZE, QUICK, until=TARGET)
    print(
        f"ours (context 3, emb {QUICK_SIZE[0]}, hidden {QUICK_SIZE[1]}, AdamW batch {QUICK.batch_size}): "
        f"dev {quick_dev[-1]:.4f} after {quick_time:.2f} s "
        f"({len(quick_dev) * QUICK.eval_every} steps, evaluation included)"
    )
    if not args.skip_lectures:
        dev = name_windows(dev_names, stoi, 3)
        reached, total, final = lectures_recipe(name_windows(train_names, stoi, 3), dev)
        reached_text = f"{reached:.1f} s" if reached is not None else "never"
        print(
            f"lectures' recipe: reached dev <= {TARGET} after {reached_text}; 200,000 steps in {total:.1f} s, "
            f"final dev {final:.4f}"
        )
        print(
            f"speed-up: {total / quick_time:.0f}x against the lectures' whole recipe (which is how they reach "
            f"{TARGET})",
            end="",
        )
        print(
            f", {reached / quick_time:.0f}x against its first evaluation at or below {TARGET}"
            if reached
            else ""
        )
    for context, (embedding, hidden, recipe) in TWENTY_SECONDS.items():
        seconds, devs = ours(train_names, dev_names, stoi, context, embedding, hidden, recipe)
        print(
            f"ours, context {context} (emb {embedding}, hidden {hidden}, {recipe.steps} steps): "
            f"dev {devs[-1]:.4f} in {seconds:.1f} s  (dev every {recipe.eval_every} steps: "
            f"{', '.join(f'{d:.3f}' for d in devs)})"
        )
    for seconds in (20, 60):
        gpt, mlp = timed_gpt_and_mlp(train_names, dev_names, stoi, seconds)
        print(
            f"{seconds} s of CPU time each: tiny GPT ({GPT_SIZE}) dev {gpt['dev']:.4f} "
            f"({gpt['steps']} steps of {GPT_RECIPE.batch_size} names); context-8 MLP dev "
            f"{mlp['dev']:.4f} ({mlp['steps']} steps of {MLP_RECIPE.batch_size} windows)"
        )
    print_shakespeare_comparison()
    print_tokenizer_comparison()


def print_shakespeare_comparison() -> None:
    """Chapter 08's GPT against the context-8 MLP on Shakespeare, 20 s and 60 s of CPU time each."""
    for seconds in (20, 60):
        gpt_dev, mlp_dev = shakespeare(seconds)
        print(f"shakespeare {seconds}s: gpt={gpt_dev:.4f} mlp={mlp_dev:.4f}", flush=True)


if __name__ == "__main__":
    main()
