"""Hidden checks for chapter 08's `CausalSelfAttention`: random shapes against the per-head reference, T < block_size, one head, head size 1, causality, dropout, errors."""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.gpt_shared import (
    MODULE,
    _diagnose,
    _expect_calls_in_turn,
    _expect_eval_mode,
    _first_output,
    _n,
    _report,
    _t,
    attention_shapes,
    causal_check,
    expect_listing,
    random_weights,
    reference_attention,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import expect_raises, labelled, matches
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="CausalSelfAttention",
    chapter="08_gpt",
    points=4,
    library=("gpt2:CausalSelfAttention",),
    refuse_attention=True,
    probe_only=True,
)


def attention_diagnoses(x: torch.Tensor, w: dict, H: int) -> list[tuple[str, np.ndarray]]:
    """(hint, output) of the classic mistakes on these inputs and weights."""
    C = x.shape[-1]
    D = C // H
    variants = [
        ("the weights are too peaked: the scores are not scaled", {"scale": "none"}),
        (
            "the weights are too flat, more so with more heads: the scale follows the model "
            "width, not what one head's scores are dot products of",
            {"scale": "width"} if H > 1 else None,
        ),
        (
            "the weights are too flat: the scores are scaled down too much as the head size grows",
            {"scale": "linear"} if D > 1 else None,
        ),
        (
            "the mask is off by one: position t also sees position t + 1",
            {"mask": "off_by_one"},
        ),
        ("no causal mask: position t sees later positions", {"mask": "none"}),
        (
            "the mask is the wrong way round: position t sees the future and not the past",
            {"mask": "upper"},
        ),
        (
            "the rows do not sum to 1 over the past: the mask came after the softmax",
            {"mask": "after"},
        ),
        (
            "heads split in the wrong order: the heads take every n_head-th column (which "
            "columns of q belong to one head?)",
            {"split": "interleaved"} if H > 1 else None,
        ),
        (
            "heads split in the wrong order: positions and heads are mixed ((B, T, C) reshaped "
            "straight to (B, n_head, T, D): try it on torch.arange)",
            {"split": "no_transpose"} if H > 1 else None,
        ),
        (
            "the heads were merged in the wrong order: the merge does not undo the split step by "
            "step",
            {"merge": "no_transpose"} if H > 1 else None,
        ),
        (
            "queries and keys read from blocks of qkv's outputs that nn.MultiheadAttention "
            "gives other roles",
            {"order": "kqv"},
        ),
        (
            "qkv's blocks read in the wrong roles: the block read as queries holds "
            "nn.MultiheadAttention's values",
            {"order": "vkq"},
        ),
        (
            "keys and values swapped: the block of qkv's outputs read as keys holds "
            "nn.MultiheadAttention's values, and the other way round",
            {"order": "qvk"},
        ),
        (
            "qkv's outputs read head by head, each head's queries, keys and values side by side: "
            "nn.MultiheadAttention's in_proj does not lay them out so",
            {"order": "per_head"} if H > 1 else None,
        ),
        ("the output projection proj is missing", {"proj": False}),
    ]
    return [
        (hint, _n(reference_attention(x, w, H, **kwargs)[0]))
        for hint, kwargs in variants
        if kwargs is not None
    ]


def _attention_call(init: dict, w: dict, x: np.ndarray, modes=("eval",), hooks=()) -> Call:
    return Call((init, w, [x], ["float"]), {"modes": modes, "hooks": hooks}, probe=MODULE)


def _judge_attention(
    rng: np.random.Generator, B: int, T: int, C: int, H: int, block: int, scale: float = 1.0
) -> Check:
    w = random_weights(rng, attention_shapes(C))
    x = rng.normal(0, scale, (B, T, C))
    expected = _n(reference_attention(_t(x), w, H)[0])
    diagnoses = attention_diagnoses(_t(x), w, H)
    init = {"n_embd": C, "n_head": H, "block_size": block}

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        expect_listing(report, attention_shapes(C), "CausalSelfAttention")
        for mode, output in zip(("eval", "train"), report["outputs"], strict=True):
            got = _first_output(output, False, (B, T, C))
            if np.isnan(got[:, 0]).any() and not np.isnan(got[:, 1:]).all():
                raise CheckFailed(
                    "position 0 is nan: the diagonal was masked too, and the first position has "
                    "nothing left to attend to"
                )
            with labelled(f"{mode} mode, dropout=0"):
                _diagnose(got, expected, diagnoses)
        if not np.array_equal(report["inputs_after"][0], x):
            raise CheckFailed(
                "forward modified its input x: an in-place operation wrote into the caller's tensor"
            )

    return Check(
        f"B={B}, T={T}, n_embd={C}, n_head={H}, block_size={block}"
        + (f", inputs of scale {scale:g}" if scale != 1 else ""),
        [_attention_call(init, w, x, ("eval", "train"))],
        judge,
    )


def _judge_attention_causal(rng: np.random.Generator) -> Check:
    B, T, C, H = 2, 7, 8, 2
    w = random_weights(rng, attention_shapes(C))
    x = rng.normal(size=(B, T, C))
    expected = _n(reference_attention(_t(x), w, H)[0])
    t = int(rng.integers(1, T - 1))
    changed = x.copy()
    changed[:, t + 1 :] += rng.normal(0, 3, (B, T - t - 1, C))
    init = {"n_embd": C, "n_head": H, "block_size": T}
    return causal_check(
        t,
        [_attention_call(init, w, x), _attention_call(init, w, changed)],
        lambda report: expect_listing(report, attention_shapes(C), "CausalSelfAttention"),
        (B, T, C),
        expected,
    )


def _judge_attention_dropout(rng: np.random.Generator) -> Check:
    B, T, C, H, p = 3, 6, 8, 2, 0.5
    w = random_weights(rng, attention_shapes(C))
    x = rng.normal(size=(B, T, C))
    out, weights = reference_attention(_t(x), w, H)
    expected, expected_weights = _n(out), _n(weights)
    init = {"n_embd": C, "n_head": H, "block_size": T, "dropout": p}
    modes = ("eval", "eval", "train", "train")

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        expect_listing(report, attention_shapes(C), "CausalSelfAttention")
        dropouts = report["listing"]["dropouts"]
        for name in ("attn_dropout", "resid_dropout"):
            if dropouts.get(name) != p:
                raise CheckFailed(
                    f"{name} is {dropouts.get(name)}: the contract's {name} is a dropout layer at "
                    "the rate the constructor was given"
                )
        outs = [_first_output(o, False, (B, T, C)) for o in report["outputs"]]
        _expect_eval_mode(outs, expected, "dropout=0.5")
        if np.allclose(outs[2], expected) or np.array_equal(outs[2], outs[3]):
            raise CheckFailed(
                "train mode with dropout=0.5 gives the eval output: dropout is not applied"
            )
        hooked = report["hooked"][2]
        attn_in = hooked["attn_dropout"]
        if attn_in is None:
            raise CheckFailed(
                "attn_dropout is never applied in training: the attention weights reach the values "
                "undropped"
            )
        if not (
            isinstance(attn_in, np.ndarray)
            and matches(attn_in, expected_weights, 1e-6, 1e-9, strict=True)
        ):
            raise CheckFailed(
                "attn_dropout was applied to something else than the attention weights "
                "(B, n_head, T, T) the softmax gives"
            )
        if hooked["resid_dropout"] is None:
            raise CheckFailed(
                "resid_dropout is never applied in training: the output of proj leaves undropped"
            )

    return Check(
        "dropout=0.5: none in eval mode; attn_dropout on the weights and resid_dropout after proj in training",
        [_attention_call(init, w, x, modes, ("attn_dropout", "resid_dropout"))],
        judge,
    )


def _judge_attention_across_calls(rng: np.random.Generator) -> Check:
    """One module called on several lengths and batches in turn: nothing of one call (a mask made
    for its T, say) may leak into the next."""
    C, H, block = 8, 2, 9
    w = random_weights(rng, attention_shapes(C))
    shapes = [(2, 4), (3, 9), (1, 2), (2, 6)]  # (B, T): shorter, longer, shorter, between
    xs = [rng.normal(size=(B, T, C)) for B, T in shapes]
    expected = [_n(reference_attention(_t(x), w, H)[0]) for x in xs]
    init = {"n_embd": C, "n_head": H, "block_size": block}
    call = Call((init, w, [xs[0]], ["float"]), {"then": [[x] for x in xs[1:]]}, probe=MODULE)

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        expect_listing(report, attention_shapes(C), "CausalSelfAttention")
        _expect_calls_in_turn(report, [(B, T, C) for B, T in shapes], expected, False, "module")

    return Check("one module called on T = 4, 9, 2, 6 in turn, with other batches", [call], judge)


def _constructor_rejects(init: dict, what: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if outcome.error == "AssertionError":
            raise CheckFailed(
                "raised AssertionError where the contract raises ValueError (an assert vanishes under "
                "python -O)"
            )
        expect_raises(outcome, "ValueError", "n_head must divide n_embd")

    return Check(what, [Call((init,), probe=torch_probes.constructor_probe)], judge)


def CausalSelfAttention_checks(rng: np.random.Generator) -> list[Check]:  # noqa: N802 - the exercise's name
    """Random shapes against the per-head reference, T < block_size, one head, head size 1, causality, dropout, errors."""
    checks = [
        _judge_attention(rng, B, T, C, H, block)
        for B, T, C, H, block in [
            (2, 5, 8, 2, 8),
            (3, 7, 12, 3, 7),
            (1, 1, 4, 2, 4),
            (2, 6, 16, 4, 10),
            (2, 4, 6, 6, 4),
            (1, 9, 8, 1, 9),
        ]
    ]
    checks.append(_judge_attention(rng, 2, 6, 8, 2, 6, scale=30.0))
    checks += [_judge_attention_causal(rng), _judge_attention_dropout(rng)]
    checks.append(_judge_attention_across_calls(rng))
    checks += [
        _constructor_rejects(
            {"n_embd": 10, "n_head": 3, "block_size": 4}, "n_head=3 for n_embd=10 raises ValueError"
        ),
        _constructor_rejects(
            {"n_embd": 8, "n_head": 3, "block_size": 4}, "n_head=3 for n_embd=8 raises ValueError"
        ),
    ]
    return checks
