"""proof_lm.functional, gradcheck and table_fit against torch and finite differences."""

import math

import numpy as np
import pytest
import torch

from proof_lm.functional import cross_entropy, cross_entropy_grad, log_softmax, softmax
from proof_lm.gradcheck import central_difference, relative_error
from proof_lm.table_fit import fit_table, table_loss_and_grad


def test_softmax_and_cross_entropy_match_torch_even_for_huge_logits():
    rng = np.random.default_rng(0)
    logits = rng.uniform(-1000, 1000, size=(6, 9))
    targets = rng.integers(0, 9, size=6)
    torch_logits = torch.tensor(logits)
    assert np.allclose(softmax(logits), torch.softmax(torch_logits, 1).numpy())
    assert np.allclose(log_softmax(logits, axis=0), torch.log_softmax(torch_logits, 0).numpy())
    expected = torch.nn.functional.cross_entropy(torch_logits, torch.tensor(targets)).item()
    assert math.isclose(cross_entropy(logits, targets), expected, rel_tol=1e-12)


def test_cross_entropy_rejects_bad_shapes():
    with pytest.raises(ValueError, match=r"\(B, V\)"):
        cross_entropy(np.zeros(3), np.array([0]))
    with pytest.raises(ValueError, match=r"\(B,\)"):
        cross_entropy(np.zeros((2, 3)), np.array([0, 1, 2]))


def test_gradient_tools():
    rng = np.random.default_rng(1)
    logits, targets = rng.normal(size=(4, 5)), np.array([0, 4, 4, 2])
    numeric = central_difference(lambda: cross_entropy(logits, targets), logits)
    assert relative_error(cross_entropy_grad(logits, targets), numeric) < 1e-8
    before = logits.copy()
    central_difference(lambda: float((logits**2).sum()), logits)
    assert np.array_equal(logits, before), "x is restored exactly"
    assert relative_error(np.ones(3), np.ones(3) * 1.01) == pytest.approx(0.01 / 2.01)


def test_table_loss_and_grad_from_counts():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 5, size=(4, 4))
    table = rng.normal(size=(4, 4))
    _loss, grad = table_loss_and_grad(table, counts, weight_decay=0.01)
    numeric = central_difference(lambda: table_loss_and_grad(table, counts, 0.01)[0], table)
    assert relative_error(grad, numeric) < 1e-7
    with pytest.raises(ValueError, match="all zero"):
        table_loss_and_grad(table, np.zeros((4, 4)))


def test_fit_table_converges_to_the_count_rows():
    counts = np.array([[1, 3, 0], [2, 2, 4], [5, 1, 1]])
    target = counts / counts.sum(axis=1, keepdims=True)
    _table, losses, gaps = fit_table(counts, steps=3000, learning_rate=5.0, target=target)
    assert losses[-1] < losses[0] and gaps[-1] < 1e-2 and len(gaps) == 3000
