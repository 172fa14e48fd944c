"""Hidden checks for chapter 08's `Block`: random shapes against the pre-norm reference, T < block_size, structure, dropout, causality."""

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.gpt_shared import (
    MODULE,
    _diagnose,
    _expect_eval_mode,
    _first_output,
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
from autograder.judge.expect import labelled
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="Block",
    chapter="08_gpt",
    points=2,
    library=("gpt2:Block",),
    refuse_attention=True,
    probe_only=True,
)


def block_diagnoses(x: torch.Tensor, w: dict, H: int) -> list[tuple[str, np.ndarray]]:
    """(hint, output) of the classic mistakes of a decoder block."""
    variants = [
        (
            "post-norm: the output matches a block that normalises the stream itself after each "
            "sum, so that with both sublayers writing zeros it would not give x back (property 1)",
            {"variant": "post"},
        ),
        (
            "the attention has no residual: x itself never reaches the attention's output "
            "(what does the residual stream carry past a sublayer?)",
            {"variant": "no_attn_residual"},
        ),
        (
            "the MLP has no residual: x itself never reaches the MLP's output "
            "(what does the residual stream carry past a sublayer?)",
            {"variant": "no_mlp_residual"},
        ),
        (
            "the norms are swapped: the output matches attention reading the stream through ln2's "
            "weights and the MLP through ln1's (property 2: whose norm is whose?)",
            {"variant": "swapped"},
        ),
        ("ln1 is used twice: which norm belongs to which sublayer?", {"variant": "one_norm"}),
        (
            "the sums carry the normalised stream: with both sublayers writing zeros this block "
            "gives back the layer-normalised x where property 1 gives x itself",
            {"variant": "normed_residual"},
        ),
        (
            "attention and MLP ran side by side on the same x: the MLP never sees what "
            "attention wrote (property 3)",
            {"variant": "parallel"},
        ),
        (
            "GELU with the tanh approximation: the contract's GELU is the exact (erf) form",
            {"activation": "tanh"},
        ),
        (
            "the activation is ReLU: the contract's MLP has GELU",
            {"activation": "relu"},
        ),
    ]
    return [(hint, _n(reference_block(x, w, H, **kwargs))) for hint, kwargs in variants]


def _judge_block(rng: np.random.Generator, B: int, T: int, C: int, H: int, block: int) -> Check:
    w = random_weights(rng, block_shapes(C))
    x = rng.normal(size=(B, T, C))
    expected = _n(reference_block(_t(x), w, H))
    diagnoses = block_diagnoses(_t(x), w, H)
    init = {"n_embd": C, "n_head": H, "block_size": block}

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        expect_listing(report, block_shapes(C), "Block")
        for mode, output in zip(("eval", "train"), report["outputs"], strict=True):
            with labelled(f"{mode} mode, dropout=0"):
                _diagnose(_first_output(output, False, (B, T, C)), expected, diagnoses)
        if not np.array_equal(report["inputs_after"][0], x):
            raise CheckFailed(
                "forward modified its input x: an in-place operation wrote into the caller's "
                "tensor (which operations write into the tensor they are given?)"
            )

    return Check(
        f"B={B}, T={T}, n_embd={C}, n_head={H}, block_size={block}",
        [Call((init, w, [x], ["float"]), {"modes": ("eval", "train")}, probe=MODULE)],
        judge,
    )


def _judge_block_structure_and_dropout(rng: np.random.Generator) -> Check:
    B, T, C, H, p = 2, 5, 8, 2, 0.3
    w = random_weights(rng, block_shapes(C))
    x = rng.normal(size=(B, T, C))
    expected = _n(reference_block(_t(x), w, H))
    init = {"n_embd": C, "n_head": H, "block_size": T, "dropout": p}

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        listing = report["listing"]
        expect_listing(report, block_shapes(C), "Block")
        children = listing["children"]
        for name, kind in (("ln1", "LayerNorm"), ("ln2", "LayerNorm"), ("mlp", "Sequential")):
            if children.get(name) != kind:
                raise CheckFailed(f"{name} must be an nn.{kind}; got {children.get(name)}")
        if listing["dropouts"].get("mlp.3") != p:
            raise CheckFailed(
                "the MLP has no dropout at the block's rate at its end (mlp.3), where the "
                "contract has one"
            )
        if listing["dropouts"].get("attn.attn_dropout") != p:
            raise CheckFailed(
                "the attention's dropout does not have the block's rate: what does the attention "
                "receive from the block's constructor?"
            )
        outs = [_first_output(o, False, (B, T, C)) for o in report["outputs"]]
        _expect_eval_mode(outs, expected, "dropout=0.3")
        if np.array_equal(outs[2], outs[3]):
            raise CheckFailed(
                "train mode with dropout=0.3 gives the same output twice: dropout is not applied"
            )

    return Check(
        "dropout=0.3: ln1, ln2, the MLP ending in Dropout; none in eval mode, active in training",
        [
            Call(
                (init, w, [x], ["float"]),
                {"modes": ("eval", "eval", "train", "train")},
                probe=MODULE,
            )
        ],
        judge,
    )


def _judge_block_causal(rng: np.random.Generator) -> Check:
    B, T, C, H = 2, 6, 8, 4
    w = random_weights(rng, block_shapes(C))
    x = rng.normal(size=(B, T, C))
    expected = _n(reference_block(_t(x), w, H))
    t = int(rng.integers(0, T - 1))
    changed = x.copy()
    changed[:, t + 1 :] = rng.normal(size=(B, T - t - 1, C))
    init = {"n_embd": C, "n_head": H, "block_size": T}
    return causal_check(
        t,
        [Call((init, w, [v], ["float"]), probe=MODULE) for v in (x, changed)],
        lambda report: expect_listing(report, block_shapes(C), "Block"),
        (B, T, C),
        expected,
        what=("inputs", "outputs", "the block's output"),
    )


def Block_checks(rng: np.random.Generator) -> list[Check]:  # noqa: N802 - the exercise's name
    """Random shapes against the pre-norm reference, T < block_size, structure, dropout, causality."""
    checks = [
        _judge_block(rng, B, T, C, H, block)
        for B, T, C, H, block in [
            (2, 5, 8, 2, 8),
            (1, 7, 12, 3, 7),
            (3, 1, 4, 1, 4),
            (2, 6, 16, 4, 9),
        ]
    ]
    return [*checks, _judge_block_structure_and_dropout(rng), _judge_block_causal(rng)]
