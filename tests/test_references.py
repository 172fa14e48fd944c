"""The autograder's own references, proved against central finite differences in float64."""

import numpy as np
import pytest
import torch

from autograder.checks.attention import (
    attention_diagnoses,
    finite_difference_layer_norm,
    library_count,
    random_mha_case,
    reference_attention,
    reference_layer_norm,
    reference_mha,
    torch_mha,
)
from autograder.checks.gradients import NAMES, torch_grads, torch_linear
from autograder.checks.mlp_lm import random_params, torch_nplm
from autograder.checks.neural_bigram import reference_ce, reference_softmax, reference_table_grad
from autograder.checks.sampling import reference_top_p
from proof_lm.gpt import gpt_param_count
from proof_lm.gradcheck import central_difference, relative_error

RNG = np.random.default_rng(2024)


def test_softmax_and_cross_entropy_references():
    logits = RNG.normal(size=(4, 6))
    assert np.allclose(reference_softmax(logits, -1).sum(axis=-1), 1.0)
    targets = RNG.integers(0, 6, 4)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    assert reference_ce(logits, targets) == pytest.approx(-log_probs[np.arange(4), targets].mean())


def test_table_gradient_reference():
    table, previous, targets = (
        RNG.normal(size=(5, 5)),
        np.array([0, 0, 3, 0]),
        np.array([1, 2, 4, 1]),
    )
    numeric = central_difference(lambda: reference_ce(table[previous], targets), table)
    assert relative_error(reference_table_grad(table, previous, targets), numeric) < 1e-7


def test_linear_reference():
    W, b, X, Y = (
        RNG.normal(size=(3, 4)),
        RNG.normal(size=4),
        RNG.normal(size=(5, 3)),
        RNG.integers(0, 4, 5),
    )
    _, dW, db = torch_linear(W, b, X, Y)
    assert relative_error(dW, central_difference(lambda: torch_linear(W, b, X, Y)[0], W)) < 1e-7
    assert relative_error(db, central_difference(lambda: torch_linear(W, b, X, Y)[0], b)) < 1e-7


def test_nplm_gradient_reference():
    P = random_params(RNG, 6, 3, 3, 5, direct=False)
    X, Y = np.array([[1, 1, 2], [0, 1, 1], [5, 4, 1]]), np.array([2, 0, 1])
    ref = torch_grads(P, X, Y)
    for name in NAMES:
        numeric = central_difference(lambda: torch_nplm(P, X, Y)[0], P[name])
        assert relative_error(ref[name], numeric) < 1e-6, name


def test_top_p_reference_keeps_the_crossing_token():
    assert np.allclose(reference_top_p(np.log(np.array([0.5, 0.3, 0.2])), 0.6), [0.625, 0.375, 0.0])


def test_attention_references_agree_with_torch():
    q, k, v = RNG.normal(size=(2, 6, 4)), RNG.normal(size=(2, 6, 4)), RNG.normal(size=(2, 6, 3))
    out, weights = reference_attention(q, k, v)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), is_causal=True
    )
    assert np.allclose(out, expected.numpy(), rtol=1e-12, atol=1e-12)
    assert np.allclose(weights.sum(-1), 1) and np.all(np.triu(weights[0], 1) == 0)
    for hint, (_, candidate) in attention_diagnoses(q, k, v):  # every hint names a real difference
        assert not np.allclose(np.nan_to_num(candidate, nan=9.0), weights), hint
    x, W = random_mha_case(RNG, 2, 5, 12)
    assert np.allclose(reference_mha(x, *W, 3), torch_mha(x, *W, 3), rtol=1e-12, atol=1e-12)


def test_layer_norm_references_agree_with_torch_autograd():
    x, dout, gamma = RNG.normal(size=(2, 3, 5)), RNG.normal(size=(2, 3, 5)), RNG.normal(size=5)
    beta = RNG.normal(size=5)
    x_t, gamma_t, beta_t = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    y = torch.nn.functional.layer_norm(x_t, (5,), gamma_t, beta_t, eps=1e-5)
    assert np.allclose(reference_layer_norm(x, gamma, beta, 1e-5), y.detach().numpy(), atol=1e-12)
    (y * torch.tensor(dout)).sum().backward()
    numeric = finite_difference_layer_norm(dout, x, gamma, 1e-5)
    for mine, torchs in zip(numeric, (x_t.grad, gamma_t.grad, beta_t.grad), strict=True):
        assert relative_error(mine, torchs.numpy()) < 1e-8


@pytest.mark.parametrize("config", [(27, 15, 32, 1, 4), (3, 2, 6, 3, 2)])
def test_gpt_count_reference_is_the_closed_form(config):
    V, T, C, layers, heads = config
    assert library_count(V, T, C, layers, heads) == gpt_param_count(V, T, C, layers)
