"""proof_lm.gpt2 (chapter 08's GPT, the contract's names) and proof_lm.text_training."""

import math

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 - the PyTorch convention
from torch import nn

from proof_lm.gpt2 import GPT, Block, CausalSelfAttention, generate, get_batch
from proof_lm.text_training import text_loss, train_on_text
from proof_lm.training import Recipe


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread, as the chapters use: timed runs measure CPU time, which threads inflate."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_get_batch_windows_are_shifted_by_one_and_reproducible():
    data = torch.arange(100, 120)
    x, y = get_batch(data, 5, 64, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (64, 5) and x.dtype == y.dtype == torch.int64
    assert torch.equal(y[:, :-1], x[:, 1:]) and torch.equal(y[:, -1], x[:, -1] + 1)
    assert set((x[:, 0] - 100).tolist()) == set(range(15)), "every start 0..14 drawn"
    again, _ = get_batch(data, 5, 64, torch.Generator().manual_seed(0))
    assert torch.equal(x, again)
    assert get_batch(torch.arange(4), 3, 2, torch.Generator())[0].tolist() == [[0, 1, 2]] * 2
    with pytest.raises(ValueError, match="longer than block_size"):
        get_batch(torch.arange(3), 3, 2, torch.Generator())
    with pytest.raises(ValueError, match="1-D"):
        get_batch(torch.arange(12).view(3, 4), 2, 2, torch.Generator())


def test_contract_names_tying_and_parameter_count():
    V, T, C, H, L = 13, 8, 16, 4, 3
    model = GPT(V, T, C, H, L)
    assert model.head.weight is model.tok_emb.weight and model.head.bias is None
    names = dict(model.named_parameters())
    assert {"tok_emb.weight", "pos_emb.weight", "ln_f.weight", "blocks.2.attn.qkv.weight"} <= set(
        names
    )
    assert names["blocks.0.attn.qkv.weight"].shape == (3 * C, C)
    assert isinstance(model.blocks[0].mlp[1], nn.GELU) and isinstance(
        model.blocks[0].mlp[3], nn.Dropout
    )
    count = V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C
    assert sum(p.numel() for p in model.parameters()) == count
    with pytest.raises(ValueError, match="divide"):
        CausalSelfAttention(10, 3, 4)


def test_initialisation_follows_gpt2():
    torch.manual_seed(0)
    model = GPT(50, 16, 64, 4, 2)
    params = dict(model.named_parameters())
    assert params["blocks.0.attn.qkv.weight"].std().item() == pytest.approx(0.02, rel=0.1)
    residual = 0.02 / math.sqrt(4)
    assert params["blocks.1.attn.proj.weight"].std().item() == pytest.approx(residual, rel=0.1)
    assert params["blocks.1.mlp.2.weight"].std().item() == pytest.approx(residual, rel=0.1)
    assert all(p.abs().max() == 0 for n, p in params.items() if n.endswith("bias"))
    assert torch.equal(params["ln_f.weight"], torch.ones(64))


def test_the_forward_pass_is_causal_and_equals_a_hand_written_block():
    torch.manual_seed(1)
    model = GPT(11, 8, 16, 4, 2).double().eval()
    ids = torch.randint(0, 11, (3, 8))
    changed = ids.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 11
    logits, loss = model(ids)
    assert loss is None and logits.shape == (3, 8, 11)
    assert torch.allclose(logits[:, :5], model(changed)[0][:, :5], atol=1e-12)
    _, loss = model(ids, changed)
    assert loss.item() == pytest.approx(
        F.cross_entropy(logits.flatten(0, 1), changed.flatten()).item()
    )
    block, x = model.blocks[0], torch.randn(2, 6, 16, dtype=torch.float64)
    h = block.ln1(x)
    q, k, v = block.attn.qkv(h).split(16, dim=2)
    heads = []
    for i in range(4):
        cols = slice(4 * i, 4 * i + 4)
        scores = q[..., cols] @ k[..., cols].transpose(1, 2) / 2.0
        scores = scores.masked_fill(torch.ones(6, 6).triu(1).bool(), -math.inf)
        heads.append(scores.softmax(-1) @ v[..., cols])
    x1 = x + block.attn.proj(torch.cat(heads, dim=-1))
    assert torch.allclose(block(x), x1 + block.mlp(block.ln2(x1)))
    with pytest.raises(ValueError, match="at most 8"):
        model(torch.zeros(1, 9, dtype=torch.int64))


def test_block_is_pre_norm_with_dropout_only_in_training():
    torch.manual_seed(2)
    block = Block(8, 2, 4, dropout=0.5).double()
    x = torch.randn(2, 4, 8, dtype=torch.float64)
    block.eval()
    assert torch.equal(block(x), block(x))
    block.train()
    assert not torch.allclose(block(x), block(x))


class Counting(nn.Module):
    """Logits that favour the token after the last one; refuses contexts longer than block_size."""

    def __init__(self, vocab_size: int, block_size: int) -> None:
        super().__init__()
        self.block_size, self.vocab_size, self.seen = block_size, vocab_size, []
        self.anchor = nn.Parameter(torch.zeros(1))

    def forward(self, idx: torch.Tensor) -> tuple[torch.Tensor, None]:
        self.seen.append((idx.shape[1], self.training, torch.is_grad_enabled()))
        if idx.shape[1] > self.block_size:
            raise RuntimeError("too long")
        return 50.0 * F.one_hot((idx + 1) % self.vocab_size, self.vocab_size).double(), None


def test_generate_crops_the_context_restores_the_mode_and_uses_the_generator():
    model = Counting(7, 3).train()
    out = generate(model, torch.tensor([[0, 1]]), 6, torch.Generator().manual_seed(0))
    assert out.tolist() == [[0, 1, 2, 3, 4, 5, 6, 0]]
    assert [s[0] for s in model.seen] == [2, 3, 3, 3, 3, 3]
    assert not any(s[1] or s[2] for s in model.seen) and model.training
    torch.manual_seed(0)
    lm = GPT(9, 4, 8, 2, 1)
    runs = [
        generate(lm, torch.zeros(5, 1, dtype=torch.int64), 6, torch.Generator().manual_seed(3))
        for _ in range(2)
    ]
    assert torch.equal(*runs) and runs[0].shape == (5, 7)


def test_text_loss_predicts_every_id_after_the_first_once():
    model = Counting(7, 4)
    data = torch.tensor([0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3])  # each next id is the favoured one
    assert text_loss(model, data, 4) == pytest.approx(0.0, abs=1e-12)
    uniform = nn.Sequential(nn.Embedding(7, 7))
    nn.init.zeros_(uniform[0].weight)
    assert text_loss(uniform, data, 3) == pytest.approx(math.log(7))
    assert text_loss(uniform, data, 3, max_tokens=5) == pytest.approx(math.log(7))


@pytest.mark.parametrize("training", [True, False])
def test_text_loss_measures_the_model_without_dropout_and_leaves_its_mode(training):
    torch.manual_seed(0)
    model = GPT(7, 4, 8, 2, 1, dropout=0.5).train(training)
    data = torch.randint(0, 7, (40,), generator=torch.Generator().manual_seed(1))
    measured = [text_loss(model, data, 4) for _ in range(2)]
    assert model.training is training
    model.eval()
    assert measured == [text_loss(model, data, 4)] * 2, "dropout acted while the loss was measured"


def test_train_on_text_learns_a_repeating_text_within_its_budget():
    torch.manual_seed(0)
    data = torch.tensor([0, 1, 2, 3, 4, 5] * 60)
    model = GPT(6, 8, 16, 2, 1)
    recipe = Recipe(steps=10**6, batch_size=16, learning_rate=0.01, warmup=5, eval_every=25)
    history = train_on_text(model, data[:300], data[300:], 8, recipe, seconds=2.0, progress=False)
    assert history.dev[-1] < 0.2 < math.log(6) and history.dev_steps[-1] == len(history.train)
    assert history.seconds[-1] >= 2.0 and history.seconds == sorted(history.seconds)
    with pytest.raises(ValueError, match="positive"):
        train_on_text(model, data, None, 8, recipe, seconds=0)


@pytest.mark.parametrize("max_grad_norm", [1e-3, None])
def test_train_on_text_clips_each_gradient_to_max_grad_norm(max_grad_norm):
    torch.manual_seed(0)
    data = torch.randint(0, 6, (200,), generator=torch.Generator().manual_seed(1))
    model = GPT(6, 8, 16, 2, 1)
    recipe = Recipe(steps=3, batch_size=4, learning_rate=0.01, warmup=1, eval_every=10**6)
    train_on_text(model, data, None, 8, recipe, progress=False, max_grad_norm=max_grad_norm)
    # the gradient of the last step stays on the parameters: clipped, or as backward left it
    norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()]))
    if max_grad_norm is None:
        assert norm > 0.1, norm  # a fresh model's gradient is far longer than 1e-3
    else:
        assert norm <= max_grad_norm * 1.001, norm


def test_grading_blocks_the_library_class_of_the_exercise_and_keeps_the_others():
    import importlib.util

    from autograder.judge.mounted import library_without

    path = library_without("CausalSelfAttention") / "gpt2.py"
    spec = importlib.util.spec_from_file_location("blocked_gpt2", path)
    blocked = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(blocked)
    with pytest.raises(RuntimeError, match="implements the exercise being graded") as caught:
        blocked.CausalSelfAttention(8, 2, 4)
    assert type(caught.value).__name__ == "AnswerKeyError"

    class Sneaky(blocked.CausalSelfAttention):
        def __init__(self):
            super().__init__(8, 2, 4)

    with pytest.raises(RuntimeError, match="CausalSelfAttention"):
        Sneaky()
    assert "def forward" not in path.read_text().split("class Block")[0]
    x, _ = blocked.get_batch(torch.arange(10), 3, 2, torch.Generator())
    assert x.shape == (2, 3)


class SeesAfter(nn.Module):
    """Certain of the next id (i + 1) once a position has `k` ids of context, uniform before."""

    def __init__(self, vocab_size: int, k: int) -> None:
        super().__init__()
        self.vocab_size, self.k = vocab_size, k
        self.anchor = nn.Parameter(torch.zeros(1))

    def forward(self, idx: torch.Tensor) -> tuple[torch.Tensor, None]:
        sure = 100.0 * F.one_hot((idx + 1) % self.vocab_size, self.vocab_size).double()
        sure[:, : self.k - 1] = 0.0  # position t reads t + 1 ids
        return sure, None


def test_sliding_text_loss_reads_every_id_after_the_first_window_with_enough_context():
    data = torch.arange(50) % 7  # the next id is always (i + 1) mod 7
    # only the first window's first 3 predictions have fewer than 4 ids of context
    for block, stride in ((8, 4), (8, 3), (10, 5), (8, 1), (49, 20), (60, 30)):
        loss = text_loss(SeesAfter(7, 4), data, block, stride=stride)
        assert loss == pytest.approx(3 * math.log(7) / 49), (block, stride)
    # consecutive windows: each of the 6 whole windows of 8 starts afresh; the last one, ending at
    # the end of the data, predicts its one new id with 8 ids of context
    assert text_loss(SeesAfter(7, 4), data, 8) == pytest.approx(6 * 3 * math.log(7) / 49)
    with pytest.raises(ValueError, match="stride"):
        text_loss(SeesAfter(7, 4), data, 8, stride=9)
    with pytest.raises(ValueError, match="stride"):
        text_loss(SeesAfter(7, 4), data, 8, stride=0)


def test_sliding_text_loss_with_stride_one_predicts_each_id_from_the_block_before_it():
    torch.manual_seed(0)
    model = GPT(5, 6, 8, 2, 1).double()
    data = torch.randint(0, 5, (40,), generator=torch.Generator().manual_seed(1))
    losses = [  # an independent reference: id i from the (up to) 6 ids before it
        F.cross_entropy(model(data[max(0, i - 6) : i][None])[0][0, -1], data[i]).item()
        for i in range(1, 40)
    ]
    assert text_loss(model, data, 6, stride=1) == pytest.approx(sum(losses) / 39, rel=1e-9)
