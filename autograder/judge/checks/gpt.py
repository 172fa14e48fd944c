"""Hidden checks for chapter 08's `GPT`: logits, loss and gradient against the reference, tying and count, init, dropout, causality, errors."""

import math

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.gpt_shared import (
    ATOL,
    MODULE,
    RTOL,
    _diagnose,
    _expect_calls_in_turn,
    _expect_eval_mode,
    _first_output,
    _layer_norm,
    _n,
    _report,
    _t,
    block_shapes,
    causal_check,
    expect_listing,
    random_weights,
    reference_block,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import expect_close, expect_raises, labelled, matches, value_of
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="GPT",
    chapter="08_gpt",
    points=4,
    library=("gpt2:GPT",),
    refuse_attention=True,
    probe_only=True,
)


def gpt_shapes(V: int, T: int, C: int, L: int) -> dict[str, tuple]:
    """The contract's parameters of GPT (the head shares tok_emb.weight, so it is not listed)."""
    shapes = {"tok_emb.weight": (V, C), "pos_emb.weight": (T, C)}
    for i in range(L):
        shapes.update(block_shapes(C, f"blocks.{i}."))
    return {**shapes, "ln_f.weight": (C,), "ln_f.bias": (C,)}


def gpt_count(V: int, T: int, C: int, L: int) -> int:
    """Parameters of the contract's GPT: V*C + T*C + L*(12C^2 + 13C) + 2C."""
    return V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C


def reference_gpt(
    idx: np.ndarray,
    w: dict,
    n_head: int,
    n_layer: int,
    targets: np.ndarray | None = None,
    variant: str = "",
    tok: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Logits (B, T, V) and the mean cross-entropy (or None); `variant` makes a known mistake.

    `tok` replaces w["tok_emb.weight"] (a leaf tensor whose gradient is wanted)."""
    ids = torch.as_tensor(idx)
    T = ids.shape[1]
    tok = _t(w["tok_emb.weight"]) if tok is None else tok
    x = tok[ids]
    if variant != "no_position":
        x = x + _t(w["pos_emb.weight"])[:T]
    for i in range(n_layer):
        x = reference_block(x, w, n_head, f"blocks.{i}.")
    if variant != "no_final_norm":
        x = _layer_norm(x, w, "ln_f")
    logits = x @ tok.T  # the head is the token embedding
    if targets is None:
        return logits, None
    y = torch.as_tensor(targets)
    if variant == "shifted":
        logits_used, y = logits[:, :-1], y[:, 1:]
    else:
        logits_used = logits
    flat = logits_used.reshape(-1, logits.shape[-1])
    log_probs = flat - torch.logsumexp(flat, dim=-1, keepdim=True)
    picked = -log_probs[torch.arange(len(flat)), y.reshape(-1)]
    loss = picked.sum() if variant == "sum" else picked.mean()
    return logits, loss


def _gpt_init(V: int, T: int, C: int, H: int, L: int, dropout: float = 0.0) -> dict:
    return {
        "vocab_size": V,
        "block_size": T,
        "n_embd": C,
        "n_head": H,
        "n_layer": L,
        "dropout": dropout,
    }


def _gpt_call(init: dict, w: dict, idx: np.ndarray, **kwargs: object) -> Call:
    return Call((init, w, [idx], ["ids"]), kwargs, probe=MODULE)


def _expect_gpt_listing(report: dict, shapes: dict, block: int) -> None:
    expect_listing(report, shapes, "GPT")
    listing = report["listing"]
    if not listing.get("tied"):
        raise CheckFailed("the head is untied: its weight is not the token embedding's own tensor")
    if listing.get("block_size") != block:
        raise CheckFailed(
            f"model.block_size is {listing.get('block_size')!r}: the model was built with another "
            "block size, and generate reads it to crop the context"
        )


def _judge_gpt_forward(
    rng: np.random.Generator, V: int, block: int, C: int, H: int, L: int, B: int, T: int
) -> Check:
    shapes = gpt_shapes(V, block, C, L)
    w = random_weights(rng, shapes)
    idx = rng.integers(0, V, (B, T))
    targets = rng.integers(0, V, (B, T))
    tok = _t(w["tok_emb.weight"]).requires_grad_(True)
    logits, loss = reference_gpt(idx, w, H, L, targets, tok=tok)
    loss.backward()
    expected_logits, expected_loss, expected_grad = _n(logits), loss.item(), _n(tok.grad)
    logit_diagnoses = [
        (hint, _n(reference_gpt(idx, w, H, L, None, variant)[0]))
        for hint, variant in [
            ("no position embedding: the model cannot tell positions apart", "no_position"),
            ("the final layer norm ln_f is missing before the head", "no_final_norm"),
        ]
    ]
    loss_diagnoses = [
        (hint, reference_gpt(idx, w, H, L, targets, variant)[1].item())
        for hint, variant in [
            ("the loss is summed, not averaged over the B*T positions", "sum"),
            (
                "the targets were shifted again: targets[:, t] is already the id after idx[:, t]",
                "shifted",
            ),
        ]
    ]
    init = _gpt_init(V, block, C, H, L)

    def judge(outcomes: list[Outcome]) -> None:
        with_targets, without = (_report(o) for o in outcomes)
        _expect_gpt_listing(with_targets, shapes, block)
        output = with_targets["outputs"][0]
        with labelled("logits"):
            _diagnose(_first_output(output, True, (B, T, V)), expected_logits, logit_diagnoses)
        got_loss = output[1]
        if not (isinstance(got_loss, np.ndarray) and got_loss.size == 1):
            raise CheckFailed(
                f"forward(idx, targets) returned a loss of type {type(got_loss).__name__}; "
                "expected the mean cross-entropy as a scalar tensor"
            )
        with labelled("loss"):
            expect_close(
                got_loss.reshape(()),
                expected_loss,
                RTOL,
                ATOL,
                diagnoses=loss_diagnoses,
                strict=True,
            )
        plain = without["outputs"][0]
        _first_output(plain, True, (B, T, V))
        if plain[1] is not None:
            raise CheckFailed(
                "forward(idx) without targets must return the logits and None for the loss"
            )
        gradient = with_targets.get("gradient")
        if gradient is None:
            raise CheckFailed(
                "the loss has no gradient for tok_emb.weight: the graph is cut between them "
                "(no torch.no_grad(), .detach() or .item() inside forward)"
            )
        with labelled("the gradient of tok_emb.weight (embedding and head together)"):
            expect_close(gradient, expected_grad, 1e-6, 1e-9, strict=True)

    return Check(
        f"V={V}, block_size={block}, n_embd={C}, n_head={H}, n_layer={L}, idx ({B}, {T}): "
        "logits, loss, its gradient",
        [
            _gpt_call(init, w, idx, targets=targets, gradient_of="tok_emb.weight"),
            _gpt_call(init, w, idx),
        ],
        judge,
    )


def _judge_gpt_count(V: int, block: int, C: int, H: int, L: int) -> Check:
    init = _gpt_init(V, block, C, H, L)
    count = gpt_count(V, block, C, L)

    def judge(outcomes: list[Outcome]) -> None:
        listing = value_of(outcomes[0])
        if not listing.get("is_module"):
            raise CheckFailed(
                "GPT(...) is not an nn.Module: the contract's model is a PyTorch module"
            )
        if listing.get("tied") is False:
            raise CheckFailed(
                "the head is untied: it adds vocab_size * n_embd parameters of its own, where the "
                "contract's head shares the token embedding's"
            )
        if listing.get("head_bias"):
            raise CheckFailed("the head has a bias: the contract's head has none")
        if listing["count"] != count:
            raise CheckFailed(
                f"{listing['count']} parameters; expected {count} (the head shares the token "
                "embedding): which module has more or fewer than the contract's?"
            )

    return Check(
        f"tied head and {count:,} parameters for V={V}, block_size={block}, n_embd={C}, n_layer={L}",
        [Call((init,), probe=torch_probes.constructor_probe)],
        judge,
    )


def _judge_gpt_init(rng: np.random.Generator) -> Check:
    V, block, C, H, L = 70, 32, 64, 4, 3
    init = _gpt_init(V, block, C, H, L)
    seed = int(rng.integers(0, 2**31))
    residual = 0.02 / math.sqrt(2 * L)

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        stats = report["stats"]
        if set(stats) != set(gpt_shapes(V, block, C, L)):
            expect_listing({"listing": report["listing"]}, gpt_shapes(V, block, C, L), "GPT")
        for name, (mean, std, low, high) in stats.items():
            shape = gpt_shapes(V, block, C, L)[name]
            n = math.prod(shape)
            if name.endswith("bias"):
                if low != 0 or high != 0:
                    raise CheckFailed(f"{name} starts at {mean:.3g} on average; biases start at 0")
            elif name.split(".")[-2].startswith("ln"):
                if low != 1 or high != 1:
                    raise CheckFailed(f"{name} does not start at 1, nn.LayerNorm's default")
            else:
                target = residual if name.endswith(("attn.proj.weight", "mlp.2.weight")) else 0.02
                if abs(std - target) > 0.12 * target or abs(mean) > 5 * target / math.sqrt(n):
                    why = (
                        f"the residual projections of all {L} blocks together add to the stream "
                        "another variance than one write at std 0.02 would"
                        if target == residual
                        else "weights start at N(0, 0.02)"
                    )
                    if target == 0.02 and abs(std - residual) < 0.12 * residual:
                        why = "only the residual projections (attn.proj, mlp.2) of each block start smaller"
                    raise CheckFailed(
                        f"{name} starts with mean {mean:.3g} and std {std:.4f}: {why}"
                    )

    return Check(
        "initialisation: the contract's std for the weights and the residual projections, zero biases",
        [Call((init, seed), probe=torch_probes.init_probe)],
        judge,
    )


def _judge_gpt_dropout(rng: np.random.Generator) -> Check:
    V, block, C, H, L, p = 11, 8, 8, 2, 2, 0.3
    shapes = gpt_shapes(V, block, C, L)
    w = random_weights(rng, shapes)
    idx = rng.integers(0, V, (2, 6))
    expected = _n(reference_gpt(idx, w, H, L)[0])
    embedded = w["tok_emb.weight"][idx] + w["pos_emb.weight"][:6]
    init = _gpt_init(V, block, C, H, L, p)

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        _expect_gpt_listing(report, shapes, block)
        dropouts = report["listing"]["dropouts"]
        if dropouts.get("drop") != p:
            raise CheckFailed(
                f"drop is {dropouts.get('drop')}: the contract's drop is a dropout layer at the "
                "rate the constructor was given"
            )
        if dropouts.get("blocks.0.mlp.3") != p:
            raise CheckFailed(
                "the blocks' dropout does not have the model's rate: what does each Block receive "
                "from the model's constructor?"
            )
        outs = [_first_output(o, True, (2, 6, V)) for o in report["outputs"]]
        _expect_eval_mode(outs, expected, "dropout=0.3")
        if np.array_equal(outs[2], outs[3]):
            raise CheckFailed(
                "train mode with dropout=0.3 gives the same logits twice: dropout is not applied"
            )
        dropped = report["hooked"][2]["drop"]
        if dropped is None:
            raise CheckFailed("drop is never applied in training to the embeddings")
        if not matches(dropped, embedded, 1e-9, 1e-12, strict=True):
            raise CheckFailed("drop is applied to something else than the summed embeddings")

    return Check(
        "dropout=0.3: dropout after the embeddings, none in eval mode, active in training",
        [_gpt_call(init, w, idx, modes=("eval", "eval", "train", "train"), hooks=("drop",))],
        judge,
    )


def _judge_gpt_causal(rng: np.random.Generator) -> Check:
    V, block, C, H, L = 9, 10, 8, 2, 2
    shapes = gpt_shapes(V, block, C, L)
    w = random_weights(rng, shapes)
    idx = rng.integers(0, V, (3, 10))
    expected = _n(reference_gpt(idx, w, H, L)[0])
    t = int(rng.integers(0, 8))
    changed = idx.copy()
    changed[:, t + 1 :] = (changed[:, t + 1 :] + rng.integers(1, V, (3, 9 - t))) % V
    init = _gpt_init(V, block, C, H, L)
    return causal_check(
        t,
        [_gpt_call(init, w, idx), _gpt_call(init, w, changed)],
        lambda report: _expect_gpt_listing(report, shapes, block),
        (3, 10, V),
        expected,
        what=("ids", "logits", "the logits"),
        logits=True,
    )


def _judge_gpt_too_long(rng: np.random.Generator) -> Check:
    V, block, C, H, L = 7, 5, 8, 2, 1
    shapes = gpt_shapes(V, block, C, L)
    w = random_weights(rng, shapes)
    idx = rng.integers(0, V, (2, block + 1))

    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", "idx may hold at most block_size positions")

    return Check(
        f"idx of block_size + 1 = {block + 1} positions raises ValueError",
        [_gpt_call(_gpt_init(V, block, C, H, L), w, idx)],
        judge,
    )


def _judge_gpt_across_calls(rng: np.random.Generator) -> Check:
    """One model called on several lengths and batches in turn: nothing of one call (positions
    made for its T, say) may leak into the next."""
    V, block, C, H, L = 11, 8, 8, 2, 1
    shapes = gpt_shapes(V, block, C, L)
    w = random_weights(rng, shapes)
    sizes = [(2, 3), (1, 8), (3, 2), (2, 5)]  # (B, T): shorter, longer, shorter, between
    ids = [rng.integers(0, V, size) for size in sizes]
    expected = [_n(reference_gpt(idx, w, H, L)[0]) for idx in ids]
    init = _gpt_init(V, block, C, H, L)
    call = Call((init, w, [ids[0]], ["ids"]), {"then": [[idx] for idx in ids[1:]]}, probe=MODULE)

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        _expect_gpt_listing(report, shapes, block)
        _expect_calls_in_turn(report, [(B, T, V) for B, T in sizes], expected, True, "model")

    return Check("one model called on T = 3, 8, 2, 5 in turn, with other batches", [call], judge)


def GPT_checks(rng: np.random.Generator) -> list[Check]:  # noqa: N802 - the exercise's name
    """Logits, loss and gradient against the reference, tying and count, init, dropout, causality, errors."""
    checks = [
        _judge_gpt_forward(rng, V, block, C, H, L, B, T)
        for V, block, C, H, L, B, T in [
            (13, 8, 8, 2, 2, 2, 8),
            (7, 12, 12, 3, 1, 3, 5),
            (20, 6, 16, 4, 3, 1, 1),
        ]
    ]
    checks += [
        _judge_gpt_count(V, T, C, H, L) for V, T, C, H, L in [(65, 64, 32, 4, 4), (3, 2, 4, 1, 1)]
    ]
    return [
        *checks,
        _judge_gpt_init(rng),
        _judge_gpt_dropout(rng),
        _judge_gpt_causal(rng),
        _judge_gpt_too_long(rng),
        _judge_gpt_across_calls(rng),
    ]
