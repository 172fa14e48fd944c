"""proof_lm's tiny GPT, whole-name sequences, sequence losses, timed training and GPT sampling."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

from proof_lm.gpt import TinyGPT
from proof_lm.sampling import generate_names
from proof_lm.training import Recipe, evaluate, learning_rate_at, train_lm
from proof_lm.vocab import build_vocab
from proof_lm.windows import IGNORE, name_sequences, name_windows

NAMES = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "ella", "bo", "x"]


def test_logits_at_a_position_ignore_later_tokens():
    torch.manual_seed(0)
    model = TinyGPT(11, 8, 16, 2, 4)
    torch.nn.init.normal_(model.head.weight)  # it starts at 0: every logit 0 wherever it reads
    ids = torch.randint(0, 11, (3, 8))
    changed = ids.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 11
    with torch.no_grad():
        before, after = model(ids), model(changed)
    assert before.shape == (3, 8, 11)
    assert torch.allclose(before[:, :5], after[:, :5], atol=1e-6)
    assert not torch.allclose(before[:, 5:], after[:, 5:], atol=1e-6)


def test_attention_maps_are_causal_distributions_that_reproduce_the_forward_pass():
    torch.manual_seed(1)
    model = TinyGPT(9, 6, 8, 2, 2).double()
    ids = torch.randint(0, 9, (2, 6))
    maps = model.attention_maps(ids)
    assert len(maps) == 2 and maps[0].shape == (2, 2, 6, 6)
    for weights in maps:
        assert torch.allclose(weights.sum(-1), torch.ones(1, dtype=torch.float64))
        assert weights.triu(1).abs().max() == 0
    block = model.blocks[0]  # the maps are the weights the forward pass mixes its values with
    x = model.hidden(ids)  # post-norm: attention reads the stream itself
    _, _, Wv = block.self_attn.in_proj_weight.chunk(3)
    v = (x @ Wv.T).view(2, 6, 2, 4).transpose(1, 2)  # (B, H, T, D)
    manual = block.self_attn.out_proj((maps[0] @ v).transpose(1, 2).flatten(2))
    with torch.no_grad():
        attended = block.self_attn(x, x, x, attn_mask=torch.ones(6, 6).triu(1).bool())[0]
    assert torch.allclose(manual, attended)


def test_the_blocks_are_pytorchs_finished_layers():
    # chapter 08 asks for attention, the block and the GPT by hand: the demo model holds none of
    # them in building blocks, so its layers are PyTorch's own (refused where chapter 08 is graded)
    model = TinyGPT(9, 6, 8, 2, 2)
    assert all(
        isinstance(b, torch.nn.TransformerEncoderLayer) and not b.norm_first for b in model.blocks
    )
    assert all(isinstance(b.self_attn, torch.nn.MultiheadAttention) for b in model.blocks)
    assert all(b.self_attn.in_proj_bias is None for b in model.blocks)  # no attention biases


def test_bad_shapes_raise_clear_errors():
    with pytest.raises(ValueError, match="multiple of n_heads"):
        TinyGPT(5, 4, 6, 1, 4)
    with pytest.raises(ValueError, match="at least 1"):
        TinyGPT(5, 0, 8, 1, 2)
    with pytest.raises(ValueError, match=r"1 <= T <= 4"):
        TinyGPT(5, 4, 8, 1, 2)(torch.zeros((1, 5), dtype=torch.int64))


def test_name_sequences_shift_by_one_and_pad_with_ignored_targets():
    stoi, itos = build_vocab(NAMES)
    X, Y = name_sequences(["emma", "x"], stoi, 6)
    assert X.dtype == Y.dtype == torch.int64 and X.shape == Y.shape == (2, 6)
    assert "".join(itos[i] for i in X[0]) == ".emma."  # '.', the name, '.' padding
    assert Y[0].tolist() == [stoi[c] for c in "emma."] + [IGNORE]
    assert Y[1].tolist() == [stoi["x"], 0] + [IGNORE] * 4
    targets = int((name_sequences(NAMES, stoi, 9)[1] != IGNORE).sum())
    assert targets == len(name_windows(NAMES, stoi, 3)[1])  # the same predictions as the MLP's
    with pytest.raises(ValueError, match="at least 9"):
        name_sequences(NAMES, stoi, 8)


def test_evaluate_averages_over_real_targets_only():
    stoi, _ = build_vocab(NAMES)
    X, Y = name_sequences(NAMES, stoi, 9)
    torch.manual_seed(2)
    model = TinyGPT(len(stoi), 9, 8, 1, 2)
    with torch.no_grad():
        logits = model(X)
    keep = Y != IGNORE
    expected = F.cross_entropy(logits[keep], Y[keep]).item()
    assert evaluate(model, X, Y) == pytest.approx(expected, rel=1e-6)
    assert evaluate(model, X, Y, batch_size=3) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("training", [True, False])
def test_evaluate_measures_the_model_without_dropout_and_leaves_its_mode(training):
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Embedding(5, 5), torch.nn.Dropout(0.5)).train(training)
    X, Y = torch.randint(0, 5, (64,)), torch.randint(0, 5, (64,))
    measured = [evaluate(model, X, Y) for _ in range(2)]
    assert model.training is training
    assert measured == [evaluate(model.eval(), X, Y)] * 2, "dropout acted while evaluating"


def test_gpt_learns_names_with_the_shared_training_loop():
    stoi, _ = build_vocab(NAMES)
    X, Y = name_sequences(NAMES, stoi, 9)
    torch.manual_seed(3)
    model = TinyGPT(len(stoi), 9, 16, 1, 2)
    first = evaluate(model, X, Y)
    assert abs(first - math.log(len(stoi))) < 0.1  # small logits at initialisation
    recipe = Recipe(steps=150, batch_size=None, learning_rate=0.01, warmup=10, eval_every=50)
    history = train_lm(model, (X, Y), (X, Y), recipe, progress=False)
    assert history.dev_steps == [50, 100, 150]
    assert history.dev[-1] < first - 1.0


def test_timed_training_stops_on_its_budget_and_evaluates_at_the_end():
    stoi, _ = build_vocab(NAMES)
    X, Y = name_sequences(NAMES, stoi, 9)
    torch.manual_seed(4)
    model = TinyGPT(len(stoi), 9, 8, 1, 2)
    recipe = Recipe(steps=10**9, batch_size=4, learning_rate=0.01, warmup=2, eval_every=10**9)
    history = train_lm(model, (X, Y), (X, Y), recipe, progress=False, seconds=0.3)
    assert 1 <= len(history.train) < 10**9
    assert history.dev_steps == [len(history.train)]


def test_timed_schedule_follows_the_given_progress():
    recipe = Recipe(steps=10**6, learning_rate=1.0, warmup=5, final_fraction=0.1)
    assert learning_rate_at(100, recipe, progress=0.0) == pytest.approx(1.0)
    assert learning_rate_at(100, recipe, progress=0.5) == pytest.approx(0.55)
    assert learning_rate_at(100, recipe, progress=1.0) == pytest.approx(0.1)
    assert learning_rate_at(0, recipe, progress=0.9) == pytest.approx(0.2)  # still warming up


def test_generate_names_feeds_a_gpt_the_whole_name_so_far():
    stoi, itos = build_vocab(NAMES)
    torch.manual_seed(5)
    model = TinyGPT(len(stoi), 6, 8, 1, 2)
    seen = []
    forward = model.forward

    def spy(ids: torch.Tensor) -> torch.Tensor:
        seen.append(ids.shape[1])
        return forward(ids)

    model.forward = spy
    names = generate_names(model, itos, None, 5, np.random.default_rng(0), prompt="e")
    again = generate_names(model, itos, None, 5, np.random.default_rng(0), prompt="e")
    assert names == again and len(names) == 5 and all(n.startswith("e") for n in names)
    assert seen[0] == 2  # '.' and the prompt
    assert max(seen) <= 6  # a name stops when it fills the model's block size
    assert max(len(name) for name in names) <= 6
    with pytest.raises(ValueError, match="reads at most 5"):
        generate_names(model, itos, None, 1, np.random.default_rng(0), prompt="e" * 6)
    assert seen[:4] == [2, 3, 4, 5][: len(seen[:4])]


class ModeShow(torch.nn.Module):
    """Logits that tell the mode they were computed in: '.' first in evaluation mode, 'a' in training."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(vocab_size))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        favourite = 1 if self.training else 0
        return self.anchor + 50.0 * F.one_hot(
            torch.full(ids.shape[:1], favourite), len(self.anchor)
        )


@pytest.mark.parametrize("training", [True, False])
def test_generate_names_reads_the_model_in_evaluation_mode_and_leaves_its_mode(training):
    _, itos = build_vocab(NAMES)
    model = ModeShow(len(itos)).train(training)
    names = generate_names(model, itos, 3, 4, np.random.default_rng(0), max_length=5)
    assert names == [""] * 4, "the names were drawn from the training mode's logits"
    assert model.training is training
