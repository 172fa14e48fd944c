"""The library code of chapter 06: NumPy gradients, minibatches, range test, optimisers, training statistics."""

import copy
import math

import numpy as np
import pytest
import torch
from torch import nn

from proof_lm.baselines import TorchBigramLM, TorchContextMLP
from proof_lm.batching import random_batches
from proof_lm.gpt import TinyGPT
from proof_lm.gpt2 import GPT
from proof_lm.lr_range import geometric_rates, lr_range_test, smooth, suggest_rate
from proof_lm.nplm import init_nplm, nplm_loss_and_grads, nplm_mean_loss
from proof_lm.training import (
    Recipe,
    learning_rate_at,
    make_optimizer,
    schedule,
    train_lm,
    train_steps,
)
from proof_lm.training_stats import saturation, tanh_gain, tanh_stack, update_to_data


def test_nplm_loss_and_grads_match_autograd_with_repeated_tokens():
    rng = np.random.default_rng(0)
    P = init_nplm(7, 3, 3, 5, rng)
    X = np.array([[1, 1, 2], [0, 1, 6], [4, 4, 4], [1, 2, 3]])
    Y = np.array([1, 0, 6, 6])
    loss, grads = nplm_loss_and_grads(P, X, Y)
    t = {k: torch.tensor(v, requires_grad=True) for k, v in P.items() if v is not None}
    hidden = torch.tanh(t["E"][torch.tensor(X)].flatten(1) @ t["W1"] + t["b1"])
    reference = torch.nn.functional.cross_entropy(hidden @ t["W2"] + t["b2"], torch.tensor(Y))
    reference.backward()
    assert math.isclose(loss, reference.item(), rel_tol=1e-12)
    assert math.isclose(loss, nplm_mean_loss(P, X, Y), rel_tol=1e-12)
    assert set(grads) == {"E", "W1", "b1", "W2", "b2"}
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, t[name].grad.numpy(), rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="W3"):
        nplm_loss_and_grads({**P, "W3": np.zeros((9, 7))}, X, Y)


def test_random_batches_are_reproducible_rows_of_the_data():
    X, Y = np.arange(20).reshape(10, 2), np.arange(10) * 10
    first = list(random_batches(X, Y, 4, 3, np.random.default_rng(1)))
    again = list(random_batches(X, Y, 4, 3, np.random.default_rng(1)))
    assert len(first) == 3
    for (xb, yb), (xa, ya) in zip(first, again, strict=True):
        assert xb.shape == (4, 2) and np.array_equal(xb, xa) and np.array_equal(yb, ya)
        assert np.array_equal(yb, xb[:, 0] * 5)  # the rows stay paired
    with pytest.raises(ValueError, match="as many inputs as targets"):
        next(random_batches(X, Y[:5], 4, 1, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="batch_size"):
        next(random_batches(X, Y, 0, 1, np.random.default_rng(0)))


def test_range_test_stops_at_the_blow_up_and_suggests_a_safe_rate():
    rates = geometric_rates(1e-3, 10.0, 40)
    assert math.isclose(rates[0], 1e-3) and math.isclose(rates[-1], 10.0)
    assert np.allclose(rates[1:] / rates[:-1], rates[1] / rates[0])
    # a loss that falls until rate 0.1, then climbs steeply
    losses = lr_range_test(
        lambda r: 1.0 + (math.log10(r) + 1) ** 2 * (3 if r > 0.1 else 0.1), rates
    )
    stopped = int(np.argmax(np.isnan(losses)))
    assert 0 < stopped < len(rates) and np.isnan(losses[stopped:]).all()
    assert losses[stopped - 1] > 4 * np.nanmin(losses)
    lowest = rates[int(np.nanargmin(smooth(losses)))]
    assert math.isclose(suggest_rate(rates, losses), lowest / 3)
    assert np.allclose(
        smooth(np.array([2.0, 2.0, 2.0])), 2.0
    )  # bias-corrected from the first value
    with pytest.raises(ValueError):
        geometric_rates(1.0, 0.1, 10)
    with pytest.raises(ValueError, match="no finite loss"):
        suggest_rate(rates, np.full(len(rates), np.nan))


def test_tanh_gain_keeps_unit_variance():
    gain = tanh_gain()
    z = np.random.default_rng(0).normal(size=2_000_000)
    assert abs(gain - 1 / np.sqrt(np.mean(np.tanh(z) ** 2))) < 5e-3
    assert abs(gain - 1.5925) < 1e-3 and abs(gain - 5 / 3) < 0.1


def test_saturation_counts_beyond_the_threshold():
    h = np.array([-0.99, -0.5, 0.0, 0.96, 0.98, 1.0])
    assert saturation(h) == 0.5
    assert saturation(h, threshold=0.9) == pytest.approx(4 / 6)
    assert saturation(h, threshold=0.99) == pytest.approx(1 / 6)


def test_tanh_stack_gradients_match_the_chain_rule_by_hand():
    x = np.random.default_rng(0).normal(size=(6, 5))
    activations, grads = tanh_stack(x, 3, 4, 5 / 3, np.random.default_rng(1))
    assert [h.shape for h in activations] == [(6, 4)] * 3 and len(grads) == 3
    # rebuild the same weights and readout, then go back layer by layer: tanh, then the weights
    rng = np.random.default_rng(1)
    weights, hs, h = [], [], x
    for _ in range(3):
        weights.append(rng.normal(size=(h.shape[1], 4)) * (5 / 3) / np.sqrt(h.shape[1]))
        h = np.tanh(h @ weights[-1])
        hs.append(h)
    expected = [rng.normal(size=(6, 4)) / 6]
    for W, h in zip(weights[:0:-1], hs[-1:0:-1], strict=True):
        expected.append((expected[-1] * (1 - h**2)) @ W.T)
    for ours, theirs, act, h in zip(grads, expected[::-1], activations, hs, strict=True):
        np.testing.assert_allclose(act, h, rtol=1e-12)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-14)


def test_update_to_data_is_the_log_ratio_of_spreads():
    before = {"W": np.array([1.0, -1.0, 1.0, -1.0]), "W3": None}
    after = {"W": before["W"] * 1.001, "W3": None}
    ratios = update_to_data(before, after)
    assert set(ratios) == {"W"}
    assert math.isclose(ratios["W"], math.log10(0.001 / 1.001), rel_tol=1e-6)


def test_train_steps_with_adamw_and_the_schedule_is_train_lm():
    torch.manual_seed(0)
    X = torch.randint(0, 5, (200, 3))
    Y = (X.sum(1) % 5).long()
    start = TorchContextMLP(5, context_length=3, embedding_dim=4, hidden_dim=8)
    recipe = Recipe(steps=30, batch_size=16, learning_rate=0.05, warmup=5, seed=3)
    ours = copy.deepcopy(start)
    losses = train_steps(
        ours,
        (X, Y),
        make_optimizer("adamw", ours, 0.05, recipe.weight_decay),
        schedule(recipe),
        16,
        3,
    )
    theirs = copy.deepcopy(start)
    assert train_lm(theirs, (X, Y), recipe=recipe, progress=False).train == losses
    assert schedule(recipe) == [learning_rate_at(s, recipe) for s in range(30)]
    assert schedule(recipe, warmup_decay=False) == [0.05] * 30


def test_make_optimizer_kinds():
    model = TorchContextMLP(5, context_length=2, embedding_dim=3, hidden_dim=4)
    assert isinstance(make_optimizer("sgd", model, 0.1), torch.optim.SGD)
    momentum = make_optimizer("momentum", model, 0.1)
    assert momentum.param_groups[0]["momentum"] == 0.9
    adamw = make_optimizer("adamw", model, 0.01, weight_decay=0.1)
    assert [g["weight_decay"] for g in adamw.param_groups] == [0.1, 0.0]
    with pytest.raises(ValueError, match="unknown optimiser"):
        make_optimizer("lion", model, 0.1)


def test_make_optimizer_decays_by_names_and_layer_types():
    # Hugging Face's convention: biases (by name) and normalisation layers (by type) are spared
    class Own(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(3)
            self.scale = nn.Parameter(torch.ones(3))  # one number per feature, yet decayed
            self.out_bias = nn.Parameter(torch.zeros(3))

    decayed, spared = make_optimizer("adamw", Own(), 0.01, 0.1).param_groups
    assert [p.shape for p in decayed["params"]] == [(3,)]
    assert len(spared["params"]) == 3
    # on every model the course trains with it, that is every parameter of two or more dimensions
    # (so chapter 08's rule by what a tensor is changed no figure measured with this optimizer)
    for model in [
        TorchBigramLM(5),
        TorchContextMLP(5, context_length=2, embedding_dim=3, hidden_dim=4, direct=True),
        TinyGPT(5, 8, 16, 2, 2),
        GPT(5, 8, 16, 2, 2),
    ]:
        decayed, spared = make_optimizer("adamw", model, 0.01, 0.1).param_groups
        assert decayed["params"] == [p for p in model.parameters() if p.dim() >= 2]
        assert spared["params"] == [p for p in model.parameters() if p.dim() < 2]
