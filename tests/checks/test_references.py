"""The autograder's own references, proved against central finite differences in float64."""

import numpy as np
import pytest
import torch

from autograder.judge.checks.attention_shared import reference_attention, reference_layer_norm
from autograder.judge.checks.bigram_loss_and_grad import reference_table_grad
from autograder.judge.checks.causal_attention import attention_diagnoses
from autograder.judge.checks.gpt_params import reference_count
from autograder.judge.checks.layer_norm_backward import finite_difference_layer_norm
from autograder.judge.checks.linear_loss_and_grad import torch_linear
from autograder.judge.checks.multi_head_attention import random_mha_case, reference_mha, torch_mha
from autograder.judge.checks.neural_bigram_shared import reference_ce, reference_softmax
from autograder.judge.checks.nplm_grads import NAMES, torch_grads
from autograder.judge.checks.nplm_loss import random_params, torch_nplm
from autograder.judge.checks.sampling_shared import reference_top_p
from proof_lm.gradcheck import finite_differences, relative_error

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
    numeric = finite_differences(lambda: reference_ce(table[previous], targets), table)
    assert relative_error(reference_table_grad(table, previous, targets), numeric) < 1e-7


def test_linear_reference():
    W, b, X, Y = (
        RNG.normal(size=(3, 4)),
        RNG.normal(size=4),
        RNG.normal(size=(5, 3)),
        RNG.integers(0, 4, 5),
    )
    _, dW, db = torch_linear(W, b, X, Y)
    assert relative_error(dW, finite_differences(lambda: torch_linear(W, b, X, Y)[0], W)) < 1e-7
    assert relative_error(db, finite_differences(lambda: torch_linear(W, b, X, Y)[0], b)) < 1e-7


def test_nplm_gradient_reference():
    P = random_params(RNG, 6, 3, 3, 5, direct=False)
    X, Y = np.array([[1, 1, 2], [0, 1, 1], [5, 4, 1]]), np.array([2, 0, 1])
    ref = torch_grads(P, X, Y)
    for name in NAMES:
        numeric = finite_differences(lambda: torch_nplm(P, X, Y)[0], P[name])
        assert relative_error(ref[name], numeric) < 1e-6, name


def test_top_p_reference_keeps_the_crossing_token():
    assert np.allclose(reference_top_p(np.log(np.array([0.5, 0.3, 0.2])), 0.6), [0.625, 0.375, 0.0])


def test_batchnorm_forward_reference_is_pytorch_and_its_slips_differ():
    import torch

    from autograder.judge.checks.batchnorm_forward import FORWARD_SLIPS, bn_reference

    x, gamma, beta = RNG.normal(1, 2, size=(7, 4)), RNG.uniform(0.5, 2, 4), RNG.normal(size=4)
    mean, var = RNG.normal(size=4), RNG.uniform(0.5, 2, 4)
    for training in (True, False):
        out, new_mean, new_var = bn_reference(x, gamma, beta, mean, var, 0.3, 1e-3, training)
        mean_t, var_t = torch.tensor(mean), torch.tensor(var)
        expected = torch.nn.functional.batch_norm(
            torch.tensor(x),
            mean_t,
            var_t,
            torch.tensor(gamma),
            torch.tensor(beta),
            training=training,
            momentum=0.3,
            eps=1e-3,
        )
        assert np.allclose(out, expected.numpy(), rtol=1e-12)
        assert np.allclose(new_mean, mean_t.numpy()) and np.allclose(new_var, var_t.numpy())
    reference = bn_reference(x, gamma, beta, mean, var, 0.3, 1e-3, True)
    for slip in FORWARD_SLIPS:
        wrong = bn_reference(x, gamma, beta, mean, var, 0.3, 1e-3, True, slip=slip)
        assert not all(np.allclose(a, b) for a, b in zip(wrong, reference, strict=True)), slip


def test_batchnorm_backward_reference_is_autograd_and_its_slips_differ():
    import torch

    from autograder.judge.checks.batchnorm_backward import backward_slips, finite_difference_grads

    x, gamma, dout = RNG.normal(size=(6, 3)), RNG.uniform(0.5, 2, 3), RNG.normal(size=(6, 3))
    dx, dgamma, dbeta = finite_difference_grads(dout, x.copy(), gamma.copy(), 1e-3)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(gamma, requires_grad=True)
    bt = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.batch_norm(xt, None, None, gt, bt, training=True, eps=1e-3)
    y.backward(torch.tensor(dout))
    for ours, theirs in [(dx, xt), (dgamma, gt), (dbeta, bt)]:
        assert relative_error(ours, theirs.grad.numpy()) < 1e-6  # central differences, float64
    for hint, wrong in backward_slips(dout, x, gamma, 1e-3).items():
        assert relative_error(wrong, dx) > 1e-3, hint


def test_sgd_problems_gradients_and_the_fixed_problem_is_solvable():
    from autograder.judge.checks.sgd_train import OUTCOME_THRESHOLD, _replay, fixed_problem
    from autograder.sandbox.guest.probes import least_squares, softmax_regression

    P = {"W": RNG.normal(size=(3, 4)), "b": RNG.normal(size=4)}
    X, Y = RNG.normal(size=(5, 3)), RNG.integers(0, 4, 5)
    _, grads = softmax_regression(P, X, Y)
    for name in P:
        numeric = finite_differences(lambda: softmax_regression(P, X, Y)[0], P[name])
        assert relative_error(grads[name], numeric) < 1e-7
    Q = {"w": RNG.normal(size=3), "c": np.array(0.4)}
    targets = RNG.normal(size=5)
    _, grads = least_squares(Q, X, targets)
    for name in Q:
        numeric = finite_differences(lambda: least_squares(Q, X, targets)[0], Q[name])
        assert relative_error(grads[name], numeric) < 1e-7
    params, batches, rate = fixed_problem()
    trained = _replay(params, "softmax_regression", batches, rate)
    assert trained["losses"][0] == pytest.approx(np.log(3))
    assert softmax_regression(trained["params"], *batches[0])[0] < OUTCOME_THRESHOLD / 2


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


@pytest.mark.parametrize("config", [(27, 15, 32, 1, 4), (3, 2, 6, 3, 2), (11, 7, 8, 2, 4)])
def test_gpt_count_reference_is_tiny_gpt(config):
    """Without the options, the reference's count is the chapter's TinyGPT's (the model the text
    describes), and the heads change nothing."""
    from proof_lm.gpt import TinyGPT

    built = sum(p.numel() for p in TinyGPT(*config).parameters())
    assert reference_count(*config, attention_bias=False, tied=False) == built
    assert reference_count(*config[:4], 1, attention_bias=False, tied=False) == built


def test_gpt_count_reference_knows_gpt2_and_gpt3():
    """GPT-2 small's published count (attention biases, a tied output layer), and GPT-3's 175
    billion, whose count no model could be built for here."""
    assert reference_count(50257, 1024, 768, 12, 12, attention_bias=True, tied=True) == 124_439_808
    gpt3 = reference_count(50257, 2048, 12288, 96, 96, attention_bias=True, tied=True)
    assert gpt3 == 174_604_259_328
