"""proof_lm.baselines: the interface COURSE.md fixes, datasets, determinism, and learning on a periodic stream."""

import math

import pytest
import torch

from proof_lm.baselines import (
    TorchBigramLM,
    TorchContextMLP,
    make_context_dataset,
    train_classifier,
)

PERIODIC = [0, 1, 0, 1, 0, 1] * 18


def test_course_example_runs_as_written():
    bigram = TorchBigramLM(vocab_size=2)
    mlp = TorchContextMLP(vocab_size=2, context_length=3, embedding_dim=8, hidden_dim=24)
    X, Y = make_context_dataset(PERIODIC, context_length=3)
    assert X.dtype == Y.dtype == torch.int64 and X.shape == (105, 3) and Y.shape == (105,)
    losses = train_classifier(mlp, X, Y, steps=24, learning_rate=0.05)
    assert len(losses) == 24 and all(isinstance(loss, float) for loss in losses)
    assert bigram(X[:, -1]).shape == (105, 2) and bigram(X[:, -1:]).shape == (105, 2)


def test_context_windows_are_oldest_first_with_the_next_token_as_target():
    X, Y = make_context_dataset([5, 6, 7, 8, 9], context_length=2)
    assert X.tolist() == [[5, 6], [6, 7], [7, 8]] and Y.tolist() == [7, 8, 9]
    X, Y = make_context_dataset(torch.tensor([1, 2]), context_length=1)
    assert X.tolist() == [[1]] and Y.tolist() == [2]


@pytest.mark.parametrize("stream", [[], [3], [1, 2, 3]])
def test_a_stream_too_short_gives_empty_tensors(stream):
    X, Y = make_context_dataset(stream, context_length=3)
    assert X.shape == (0, 3) and Y.shape == (0,) and X.dtype == Y.dtype == torch.int64


def test_context_length_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        make_context_dataset([1, 2, 3], context_length=0)


@pytest.mark.parametrize(
    "make_model, context",
    [
        (lambda: TorchBigramLM(vocab_size=2), 1),
        (
            lambda: TorchContextMLP(vocab_size=2, context_length=3, embedding_dim=8, hidden_dim=24),
            3,
        ),
    ],
)
def test_both_models_learn_the_periodic_stream(make_model, context):
    torch.manual_seed(0)
    X, Y = make_context_dataset(PERIODIC, context_length=context)
    losses = train_classifier(make_model(), X, Y, steps=60, learning_rate=0.5)
    assert abs(losses[0] - math.log(2)) < 0.05, "small output init: initial loss close to ln V"
    assert losses[-1] < 0.1 * losses[0]


def test_training_is_deterministic_under_manual_seed():
    X, Y = make_context_dataset(PERIODIC * 3, context_length=3)

    def run():
        torch.manual_seed(123)
        model = TorchContextMLP(vocab_size=2, context_length=3, embedding_dim=4, hidden_dim=8)
        return train_classifier(model, X, Y, steps=20, learning_rate=0.1, batch_size=16)

    assert run() == run()


def test_mlp_concatenates_oldest_first_and_supports_direct_connections():
    torch.manual_seed(0)
    mlp = TorchContextMLP(
        vocab_size=5, context_length=2, embedding_dim=3, hidden_dim=4, direct=True
    )
    context = torch.tensor([[1, 4]])
    expected_input = torch.cat([mlp.embedding.weight[1], mlp.embedding.weight[4]])
    with torch.no_grad():
        mlp.direct.weight.normal_()
        hidden = torch.tanh(mlp.hidden(expected_input))
        expected = mlp.output(hidden) + mlp.direct(expected_input)
        assert torch.allclose(mlp(context)[0], expected)
    assert sum(p.numel() for p in mlp.parameters()) == 5 * 3 + 6 * 4 + 4 + 4 * 5 + 5 + 6 * 5
    with pytest.raises(ValueError, match=r"\(B, 2\)"):
        mlp(torch.tensor([1, 2]))


def test_bad_arguments():
    X, Y = make_context_dataset(PERIODIC, context_length=1)
    with pytest.raises(ValueError, match="learning rate"):
        train_classifier(TorchBigramLM(2), X, Y, steps=1, learning_rate=0.0)
    with pytest.raises(ValueError, match="differ in length"):
        train_classifier(TorchBigramLM(2), X, Y[:-1], steps=1, learning_rate=0.1)
    with pytest.raises(ValueError, match="no training examples"):
        train_classifier(TorchBigramLM(2), X[:0], Y[:0], steps=1, learning_rate=0.1)
    with pytest.raises(ValueError, match="at least 1"):
        TorchContextMLP(vocab_size=2, context_length=0, embedding_dim=2, hidden_dim=2)


@pytest.mark.parametrize(
    "bad, expected",
    [
        (torch.zeros((4, 3), dtype=torch.int64), r"shape \(B,\) or \(B, 1\)"),
        (torch.zeros((2, 2, 1), dtype=torch.int64), r"shape \(B,\) or \(B, 1\)"),
        (torch.zeros(4), "integer token ids"),
        ([0, 1], "torch tensor"),
    ],
)
def test_bigram_refuses_inputs_of_the_wrong_shape_or_type(bad, expected):
    """A (B, n) context is refused, not silently cut to its last column."""
    with pytest.raises(ValueError, match=expected):
        TorchBigramLM(vocab_size=3)(bad)


@pytest.mark.parametrize(
    "bad, expected",
    [
        (torch.zeros((4, 2), dtype=torch.int64), r"shape \(B, 3\)"),
        (torch.zeros(3, dtype=torch.int64), r"shape \(B, 3\)"),
        (torch.zeros((2, 3, 1), dtype=torch.int64), r"shape \(B, 3\)"),
        (torch.zeros((4, 3)), "integer token ids"),
    ],
)
def test_context_mlp_refuses_inputs_of_the_wrong_shape_or_type(bad, expected):
    mlp = TorchContextMLP(vocab_size=3, context_length=3, embedding_dim=2, hidden_dim=4)
    with pytest.raises(ValueError, match=expected):
        mlp(bad)
    assert mlp(torch.zeros((5, 3), dtype=torch.int64)).shape == (5, 3)
