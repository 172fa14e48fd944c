"""proof_lm training loop, back-off model, embeddings and sampling."""

import itertools
import math

import numpy as np
import pytest
import torch

from proof_lm.backoff import BackoffLM
from proof_lm.baselines import TorchContextMLP, numpy_params
from proof_lm.embeddings import cosine_similarity, nearest_neighbours
from proof_lm.sampling import draw, filter_probs, generate_names
from proof_lm.training import Recipe, evaluate, init_output_bias, learning_rate_at, train_lm


def test_schedule_warms_up_then_decays():
    recipe = Recipe(steps=100, learning_rate=1.0, warmup=10, final_fraction=0.1)
    rates = [learning_rate_at(step, recipe) for step in range(100)]
    assert rates[0] == pytest.approx(0.1) and rates[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(rates[9:]))
    assert rates[-1] == pytest.approx(0.1, abs=0.01)
    # a straight line from the peak at step 10 to the floor at step 100, not chapter 08's cosine
    drops = [a - b for a, b in itertools.pairwise(rates[10:])]
    assert max(drops) == pytest.approx(min(drops)) == pytest.approx(0.9 / 90)


def test_train_lm_learns_is_deterministic_and_records_dev():
    stream = torch.tensor([0, 1, 2, 0, 1, 2] * 30)
    X, Y = stream.unfold(0, 2, 1)[:-1], stream[2:]

    def run():
        torch.manual_seed(0)
        model = TorchContextMLP(3, 2, 4, 16)
        init_output_bias(model.output, Y, 3)
        recipe = Recipe(steps=120, batch_size=32, learning_rate=0.05, warmup=10, eval_every=40)
        return train_lm(model, (X, Y), (X, Y), recipe, progress=False), model

    (first, model), (second, _) = run(), run()
    assert first.train == second.train and first.dev == second.dev
    assert first.dev_steps == [40, 80, 120] and first.dev[-1] < 0.05
    assert evaluate(model, X, Y) == pytest.approx(first.dev[-1])


def test_output_bias_is_the_log_unigram():
    layer = torch.nn.Linear(2, 3)
    init_output_bias(layer, torch.tensor([0, 0, 1]), 3)
    expected = torch.log(torch.tensor([3.0, 2.0, 1.0]) / 6)
    assert torch.allclose(layer.bias, expected)


def test_numpy_params_layout():
    model = TorchContextMLP(5, 2, 3, 4)
    P = numpy_params(model)
    assert (
        P["E"].shape == (5, 3)
        and P["W1"].shape == (6, 4)
        and P["W2"].shape == (4, 5)
        and P["W3"] is None
    )
    assert P["E"].dtype == np.float64


def test_backoff_uses_the_longest_seen_context():
    corpus = [["a", "b", "c"], ["x", "b", "d"], ["a", "b", "c"]]
    model = BackoffLM(order=3).fit(corpus)
    assert model.context_used(["a", "b"]) == ("a", "b")
    assert model.distribution(["a", "b"]) == {"c": 1.0}
    assert model.context_used(["z", "b"]) == ("b",)
    assert model.distribution(["z", "b"]) == pytest.approx({"c": 2 / 3, "d": 1 / 3})
    assert math.isclose(sum(model.distribution(["q"]).values()), 1.0)
    with pytest.raises(ValueError, match="at least one"):
        BackoffLM(2).fit([[]])


def test_cosine_neighbours():
    table = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    assert np.allclose(np.diag(cosine_similarity(table)), 1.0)
    assert nearest_neighbours(table, ["a", "b", "c"], "a", 1)[0][0] == "b"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        nearest_neighbours(table, ["a", "b", "c"], "z")
    with pytest.raises(ValueError, match="all zeros"):
        cosine_similarity(np.zeros((2, 2)))


def test_filter_probs_reproduces_the_worked_table():
    logits = np.array([2.0, 1.0, 0.1])
    assert np.allclose(filter_probs(logits, 1.0), [0.659, 0.242, 0.099], atol=5e-4)
    assert np.allclose(filter_probs(logits, 0.5), [0.864, 0.117, 0.019], atol=5e-4)
    assert np.allclose(filter_probs(logits, 2.0), [0.502, 0.304, 0.194], atol=5e-4)
    assert np.allclose(filter_probs(logits, top_p=0.9), [0.731, 0.269, 0.0], atol=5e-4)
    assert np.array_equal(filter_probs(logits, top_k=1), [1.0, 0.0, 0.0])
    assert np.array_equal(filter_probs(logits, top_p=1e-9), [1.0, 0.0, 0.0])
    for bad in [dict(temperature=0), dict(top_k=0), dict(top_p=0.0), dict(top_p=1.5)]:
        with pytest.raises(ValueError):
            filter_probs(logits, **bad)


def test_draw_follows_the_distribution_with_either_generator():
    probs = np.array([0.2, 0.5, 0.3])
    picks = draw(np.tile(probs, (20000, 1)), np.random.default_rng(0))
    assert np.allclose(np.bincount(picks, minlength=3) / 20000, probs, atol=0.015)
    torch_picks = draw(np.tile(probs, (20000, 1)), torch.Generator().manual_seed(0))
    assert np.allclose(np.bincount(torch_picks, minlength=3) / 20000, probs, atol=0.015)
    with pytest.raises(ValueError, match="generator"):
        draw(probs, 0)


def test_generate_names_is_reproducible_and_stops_at_the_boundary():
    torch.manual_seed(0)
    model = TorchContextMLP(4, 2, 3, 8)
    itos = [".", "a", "b", "c"]
    first = generate_names(model, itos, 2, 20, np.random.default_rng(1), max_length=12)
    assert first == generate_names(model, itos, 2, 20, np.random.default_rng(1), max_length=12)
    assert all(set(name) <= {"a", "b", "c"} and len(name) <= 12 for name in first)
    greedy = generate_names(model, itos, 2, 3, np.random.default_rng(2), top_k=1, max_length=12)
    assert len(set(greedy)) == 1
