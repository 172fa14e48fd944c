"""proof_lm.gradcheck and table_fit against closed forms and finite differences."""

import numpy as np
import pytest
import torch

from proof_lm.gradcheck import finite_differences, relative_error
from proof_lm.table_fit import fit_table, fit_tables


def test_gradient_tools():
    rng = np.random.default_rng(1)
    logits, targets = rng.normal(size=(4, 5)), np.array([0, 4, 4, 2])

    def loss() -> float:
        return torch.nn.functional.cross_entropy(
            torch.from_numpy(logits), torch.from_numpy(targets)
        ).item()

    numeric = finite_differences(loss, logits)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    assert relative_error((probs - np.eye(5)[targets]) / 4, numeric) < 1e-8
    before = logits.copy()
    finite_differences(lambda: float((logits**2).sum()), logits)
    assert np.array_equal(logits, before), "x is restored exactly"
    x = np.array([0.5, -1.0, 2.0])
    assert np.allclose(
        finite_differences(lambda: float((x**3).sum()), x, eps=1e-3), 3 * x**2, atol=1e-5
    )
    assert relative_error(np.ones(3), np.ones(3) * 1.01) == pytest.approx(0.01 / 2.01)


def test_fit_table_converges_to_the_count_rows():
    counts = np.array([[1, 3, 0], [2, 2, 4], [5, 1, 1]])
    target = counts / counts.sum(axis=1, keepdims=True)
    _table, losses, gaps = fit_table(counts, steps=3000, learning_rate=5.0, target=target)
    assert losses[-1] < losses[0] and gaps[-1] < 1e-2 and len(gaps) == 3000
    assert losses[0] == pytest.approx(np.log(3))  # a zero table predicts uniformly
    with pytest.raises(ValueError, match="all zero"):
        fit_table(np.zeros((4, 4)), 10, 5.0)


def test_fit_tables_is_fit_table_for_each_weight_decay():
    counts = np.random.default_rng(3).integers(0, 20, (5, 5)).astype(float)
    decays = [0.0, 1e-3, 3e-2]
    together = fit_tables(counts, 200, 5.0, decays)
    assert together.shape == (3, 5, 5)
    for table, decay in zip(together, decays, strict=True):
        np.testing.assert_allclose(
            table, fit_table(counts, 200, 5.0, weight_decay=decay)[0], atol=1e-12
        )
    assert not np.allclose(together[0], together[2])  # the decay acts
    with pytest.raises(ValueError, match="at least one weight decay"):
        fit_tables(counts, 10, 5.0, [])
