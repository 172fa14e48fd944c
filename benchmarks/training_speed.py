"""Chapter 03's recipes against the makemore lectures' recipe, timed in the same run.

    .venv/bin/python benchmarks/training_speed.py [--names PATH] [--skip-lectures]

Uses ../shared/data/names.txt (the lectures' file) when it exists, else the course corpus, with
the makemore split. Prints: the time for the lectures' recipe (emb 10, hidden 200, context 3, SGD
batch 32, learning rate 0.1 then 0.01 after 100,000 steps, 200,000 steps) to reach dev 2.17 and
where it ends; the time for ours to reach 2.17 and the ratio; the dev loss our recipes reach in
about 20 s with contexts 3 and 8. One thread, as COURSE.md recommends.
"""

import argparse
import time
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

from proof_lm.baselines import TorchContextMLP
from proof_lm.data import load_names, split_names
from proof_lm.datasets import name_windows
from proof_lm.training import Recipe, evaluate, init_output_bias, train_lm
from proof_lm.vocab import build_vocab

LECTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "names.txt"
TARGET = 2.17
QUICK = Recipe(
    steps=1000, batch_size=2048, learning_rate=0.05, weight_decay=0.0, warmup=30, eval_every=25
)
TWENTY_SECONDS = {  # context: (embedding, hidden, recipe), each about 20 s on one thread here
    3: (
        32,
        512,
        Recipe(steps=2500, batch_size=1024, learning_rate=0.01, weight_decay=0.05, eval_every=500),
    ),
    8: (
        32,
        512,
        Recipe(steps=2000, batch_size=1024, learning_rate=0.01, weight_decay=0.05, eval_every=500),
    ),
}


def lectures_recipe(train, dev, eval_every: int = 5000) -> tuple[float | None, float, float]:
    """makemore's MLP: return (seconds to reach TARGET or None, total seconds, final dev loss)."""
    torch.manual_seed(2147483647)
    model = TorchContextMLP(27, 3, 10, 200)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    X, Y = train
    reached, start = None, time.perf_counter()
    for step in range(200_000):
        index = torch.randint(0, len(Y), (32,))
        loss = F.cross_entropy(model(X[index]), Y[index])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        for group in optimizer.param_groups:
            group["lr"] = 0.1 if step < 100_000 else 0.01
        optimizer.step()
        if reached is None and (step + 1) % eval_every == 0 and evaluate(model, *dev) <= TARGET:
            reached = time.perf_counter() - start
    total = time.perf_counter() - start
    return reached, total, evaluate(model, *dev)


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


def main() -> None:
    """Run and print every measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=Path, default=LECTURES if LECTURES.is_file() else None)
    parser.add_argument("--skip-lectures", action="store_true", help="skip the 200,000-step recipe")
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = load_names(args.names)
    stoi, _ = build_vocab(names)
    train_names, dev_names, _ = split_names(names)
    print(
        f"corpus: {args.names or 'course default'} ({len(names)} names), torch threads: {torch.get_num_threads()}"
    )

    quick_time, quick_dev = ours(train_names, dev_names, stoi, 3, 16, 200, QUICK, until=TARGET)
    print(
        f"ours (context 3, emb 16, hidden 200, AdamW batch 2048): dev {quick_dev[-1]:.4f} "
        f"after {quick_time:.2f} s ({len(quick_dev) * QUICK.eval_every} steps)"
    )
    if not args.skip_lectures:
        dev = name_windows(dev_names, stoi, 3)
        reached, total, final = lectures_recipe(name_windows(train_names, stoi, 3), dev)
        reached_text = f"{reached:.1f} s" if reached is not None else "never"
        print(
            f"lectures' recipe: reached dev <= {TARGET} after {reached_text}; 200,000 steps in {total:.1f} s, "
            f"final dev {final:.4f}"
        )
        if reached is not None:
            print(f"speed-up to dev {TARGET}: {reached / quick_time:.0f}x")
    for context, (embedding, hidden, recipe) in TWENTY_SECONDS.items():
        seconds, devs = ours(train_names, dev_names, stoi, context, embedding, hidden, recipe)
        print(
            f"ours, context {context} (emb {embedding}, hidden {hidden}, {recipe.steps} steps): "
            f"dev {devs[-1]:.4f} in {seconds:.1f} s  (dev every {recipe.eval_every} steps: "
            f"{', '.join(f'{d:.3f}' for d in devs)})"
        )


if __name__ == "__main__":
    main()
