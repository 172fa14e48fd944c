"""What the checks of `get_batch`, `CausalSelfAttention`, `Block`, `GPT`, `generate` share.

The modules are built in the grading process by `autograder.sandbox.guest.torch_probes`, which loads weights
drawn here (by the contract's parameter names), runs them in float64 and sends back plain arrays.
The references are written out here with one loop per head in float64 torch (a calculator only:
no nn module, no library code); known mistakes are the same code with one thing changed, and a
failing answer that matches one is told which. `generate` runs on a trusted toy model that
refuses contexts longer than its block_size and logs what it is fed.
"""

import math
from collections.abc import Callable

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed
from autograder.judge.expect import expect_close, labelled, matches, value_of
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome

RTOL, ATOL = 1e-7, 1e-9  # strict: chapter 08 keeps its float64 tolerances (see expect.py)


MODULE = torch_probes.module_probe  # builds and runs the student's module


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


def _n(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy().copy()


def attention_shapes(C: int, prefix: str = "") -> dict[str, tuple]:
    """The contract's parameters of CausalSelfAttention(C, ...)."""
    return {
        f"{prefix}qkv.weight": (3 * C, C),
        f"{prefix}qkv.bias": (3 * C,),
        f"{prefix}proj.weight": (C, C),
        f"{prefix}proj.bias": (C,),
    }


def block_shapes(C: int, prefix: str = "") -> dict[str, tuple]:
    """The contract's parameters of Block(C, ...)."""
    return {
        f"{prefix}ln1.weight": (C,),
        f"{prefix}ln1.bias": (C,),
        **attention_shapes(C, f"{prefix}attn."),
        f"{prefix}ln2.weight": (C,),
        f"{prefix}ln2.bias": (C,),
        f"{prefix}mlp.0.weight": (4 * C, C),
        f"{prefix}mlp.0.bias": (4 * C,),
        f"{prefix}mlp.2.weight": (C, 4 * C),
        f"{prefix}mlp.2.bias": (C,),
    }


def random_weights(rng: np.random.Generator, shapes: dict[str, tuple]) -> dict[str, np.ndarray]:
    """Weights that make every part matter: matrices N(0, 1/fan-in), norms near 1, small biases."""
    weights = {}
    for name, shape in shapes.items():
        if name.endswith("emb.weight"):
            weights[name] = rng.normal(0, 1, shape)
        elif len(shape) == 2:
            weights[name] = rng.normal(0, 1 / math.sqrt(shape[1]), shape)
        elif name.split(".")[-2].startswith("ln") and name.endswith("weight"):
            weights[name] = 1 + rng.normal(0, 0.3, shape)
        else:
            weights[name] = rng.normal(0, 0.2, shape)
    return weights


def reference_attention(
    x: torch.Tensor,
    w: dict,
    n_head: int,
    prefix: str = "",
    scale: str = "head",
    mask: str = "causal",
    split: str = "contiguous",
    order: str = "qkv",
    merge: str = "back",
    proj: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal self-attention, one head at a time: (output (B, T, C), weights (B, H, T, T)).

    The keywords make the known mistakes: the scale of the scores, the mask, how q, k, v are cut
    out of qkv and into heads, how the heads are put back together, the output projection.
    """
    B, T, C = x.shape
    H, D = n_head, C // n_head
    qkv = x @ _t(w[f"{prefix}qkv.weight"]).T + _t(w[f"{prefix}qkv.bias"])  # (B, T, 3C)
    if order == "per_head":  # q, k, v side by side inside each head's block of 3D columns
        blocks = qkv.view(B, T, H, 3 * D)
        q, k, v = (blocks[..., i * D : (i + 1) * D].reshape(B, T, C) for i in range(3))
    else:
        parts = dict(zip(order, qkv.split(C, dim=-1), strict=True))
        q, k, v = parts["q"], parts["k"], parts["v"]

    def heads(a: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, H, T, D)
        if split == "interleaved":
            return a.view(B, T, D, H).permute(0, 3, 1, 2)
        if split == "no_transpose":
            return a.reshape(B, H, T, D)
        return a.view(B, T, H, D).transpose(1, 2)

    q, k, v = heads(q), heads(k), heads(v)
    factor = {"head": 1 / math.sqrt(D), "none": 1.0, "width": 1 / math.sqrt(C), "linear": 1 / D}
    scores = q @ k.transpose(-2, -1) * factor[scale]  # (B, H, T, T)
    ones = torch.ones(T, T, dtype=torch.bool)
    allowed = {
        "causal": ones.tril(),
        "after": ones.tril(),
        "off_by_one": ones.tril(1),
        "none": ones,
        "upper": ones.triu(),
    }[mask]
    if mask == "after":
        weights = scores.softmax(dim=-1) * allowed
    else:
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
    y = weights @ v  # (B, H, T, D)
    if merge == "no_transpose":
        y = y.reshape(B, T, C)
    elif split == "interleaved":
        y = y.permute(0, 2, 3, 1).reshape(B, T, C)
    else:
        y = y.transpose(1, 2).reshape(B, T, C)
    if proj:
        y = y @ _t(w[f"{prefix}proj.weight"]).T + _t(w[f"{prefix}proj.bias"])
    return y, weights


def _layer_norm(x: torch.Tensor, w: dict, name: str) -> torch.Tensor:
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5) * _t(w[f"{name}.weight"]) + _t(w[f"{name}.bias"])


def _activation(x: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "tanh":
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    if kind == "relu":
        return x.clamp(min=0)
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def reference_block(
    x: torch.Tensor,
    w: dict,
    n_head: int,
    prefix: str = "",
    variant: str = "pre",
    activation: str = "gelu",
) -> torch.Tensor:
    """x + attn(ln1(x)), then x + mlp(ln2(x)); `variant` and `activation` make the known mistakes."""

    def attn(h: torch.Tensor) -> torch.Tensor:
        return reference_attention(h, w, n_head, f"{prefix}attn.")[0]

    def mlp(h: torch.Tensor) -> torch.Tensor:
        h = h @ _t(w[f"{prefix}mlp.0.weight"]).T + _t(w[f"{prefix}mlp.0.bias"])
        return _activation(h, activation) @ _t(w[f"{prefix}mlp.2.weight"]).T + _t(
            w[f"{prefix}mlp.2.bias"]
        )

    def ln1(h: torch.Tensor) -> torch.Tensor:
        return _layer_norm(h, w, f"{prefix}ln1")

    def ln2(h: torch.Tensor) -> torch.Tensor:
        return _layer_norm(h, w, f"{prefix}ln2")

    if variant == "post":
        x = ln1(x + attn(x))
        return ln2(x + mlp(x))
    if variant == "swapped":
        x = x + attn(ln2(x))
        return x + mlp(ln1(x))
    if variant == "one_norm":
        x = x + attn(ln1(x))
        return x + mlp(ln1(x))
    if variant == "normed_residual":
        h = ln1(x)
        x = h + attn(h)
        h = ln2(x)
        return h + mlp(h)
    if variant == "parallel":
        return x + attn(ln1(x)) + mlp(ln2(x))
    x = (x if variant != "no_attn_residual" else 0) + attn(ln1(x))
    return (x if variant != "no_mlp_residual" else 0) + mlp(ln2(x))


def _report(outcome: Outcome) -> dict:
    report = value_of(outcome)
    if not isinstance(report, dict):
        raise CheckFailed("the probe returned no report")  # cannot happen with the trusted probe
    return report


def expect_listing(report: dict, shapes: dict[str, tuple], what: str) -> None:
    """The module's parameters are exactly the contract's names and shapes; hints otherwise."""
    listing = report["listing"]
    if not listing.get("is_module"):
        raise CheckFailed(
            f"{what}(...) built a {listing.get('type')}: the contract's {what} is a PyTorch module "
            "(did nn.Module set itself up before the layers were added?)"
        )
    got = {name: tuple(shape) for name, shape in listing["parameters"].items()}
    if got == shapes:
        return
    missing, extra = sorted(set(shapes) - set(got)), sorted(set(got) - set(shapes))
    if "head.weight" in extra:
        raise CheckFailed(
            "the head is untied: it has a weight of its own, where the contract's head shares the "
            "token embedding's"
        )
    if "head.bias" in extra:
        raise CheckFailed(
            "the head has a bias: the contract's head has none (its weight is the token embedding's)"
        )
    if any(name.endswith(("query.weight", "key.weight", "q.weight")) for name in extra):
        raise CheckFailed(
            "queries, keys and values come from one linear layer of n_embd to 3 n_embd features, named qkv "
            f"(the parameter names are the contract); unexpected: {', '.join(extra[:4])}"
        )
    if any(name.endswith("mlp.3.weight") or name.endswith("mlp.1.weight") for name in extra):
        raise CheckFailed(
            "mlp's layers are not the contract's (C to 4C, GELU, 4C to C, dropout, in that order); "
            f"unexpected parameters: {', '.join(extra[:4])}"
        )
    if missing or extra:
        raise CheckFailed(
            "the parameter names differ from the contract's"
            + (f"; missing: {', '.join(missing[:5])}" if missing else "")
            + (f"; unexpected: {', '.join(extra[:5])}" if extra else "")
        )
    wrong = [name for name in shapes if got[name] != shapes[name]]
    name = wrong[0]
    raise CheckFailed(f"{name} has shape {got[name]}; expected {shapes[name]}")


def _array(value: object, shape: tuple, what: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise CheckFailed(f"{what} is a {type(value).__name__}; expected a tensor of shape {shape}")
    if value.shape != shape:
        raise CheckFailed(f"{what} has shape {value.shape}; expected {shape}")
    return value


def _first_output(output: object, tuple_expected: bool, shape: tuple) -> object:
    if tuple_expected:
        if not (isinstance(output, tuple | list) and len(output) == 2):
            raise CheckFailed(
                f"forward returned {type(output).__name__}; expected the pair (logits, loss)"
            )
        return _array(output[0], shape, "logits")
    return _array(output, shape, "the output")


def _diagnose(
    got: np.ndarray, expected: np.ndarray, diagnoses: list[tuple[str, np.ndarray]]
) -> None:
    expect_close(got, expected, RTOL, ATOL, diagnoses=diagnoses, strict=True)


def causal_check(
    t: int,
    calls: list[Call],
    listing: Callable[[dict], None],
    shape: tuple[int, ...],
    expected: np.ndarray,
    what: tuple[str, str, str] = ("inputs", "outputs", "the output"),
    logits: bool = False,
) -> Check:
    """The causality check: two calls whose inputs differ only after position t must give the same
    outputs at positions <= t. `listing` checks each report's parameters, `what` names the inputs,
    the outputs and the output in a hint; `logits`: forward returns (logits, loss). When the first
    output is wrong anyway, the single-call checks name the cause (one bug is named once)."""
    inputs, outputs, output = what

    def judge(outcomes: list[Outcome]) -> None:
        first, second = (_report(o) for o in outcomes)
        listing(first)
        a = _first_output(first["outputs"][0], logits, shape)
        b = _first_output(second["outputs"][0], logits, shape)
        if np.allclose(a[:, : t + 1], b[:, : t + 1], rtol=0, atol=1e-12):
            return
        position = int(np.argwhere(~np.isclose(a[:, : t + 1], b[:, : t + 1]))[0][1])
        leak = f"{output} at position {position} changed when only inputs after position {t} did"
        if not matches(a, expected, RTOL, ATOL, strict=True):
            raise CheckFailed(f"{leak}: the same mistake as in the checks of a single call")
        raise CheckFailed(
            f"{leak}: position t may read positions 0..t only (is the future masked, and is the "
            "mask off by one?)"
        )

    return Check(
        f"causal: {inputs} after position {t} changed, {outputs} up to {t} unchanged", calls, judge
    )


def _judge_reproducible(
    report: dict, first: np.ndarray, again: np.ndarray, other: np.ndarray, use: str, what: str
) -> None:
    """Three runs (seeds s, s, s + 1): the same seed gives the same `what`, another seed other ones,
    and the global random state never moves (`use`: what a moved state says about the draws)."""
    if report["global_moved"]:
        raise CheckFailed(f"the global random state moved: {use}")
    if not np.array_equal(first, again):
        raise CheckFailed(
            f"two generators seeded alike gave different {what}: something besides `generator` "
            "decides them"
        )
    if np.array_equal(first, other):
        raise CheckFailed(f"generators with different seeds gave the same {what}")


def _expect_eval_mode(outs: list[np.ndarray], expected: np.ndarray, dropout: str) -> None:
    """The first two outputs, both in eval mode with dropout on, match the reference: a random
    output means dropout ran in eval mode; a fixed wrong one, the mistake the checks without
    dropout name (one bug is named once, by its own check)."""
    with labelled(f"eval mode, {dropout}"):
        if not np.array_equal(outs[0], outs[1]):
            raise CheckFailed(
                "two calls in eval mode gave different outputs: dropout ran in eval mode"
            )
        if not matches(outs[0], expected, RTOL, ATOL, strict=True):
            raise CheckFailed(
                "wrong in eval mode too, where dropout does nothing: the same mistake as in the "
                "checks without dropout"
            )


def _expect_calls_in_turn(
    report: dict, shapes: list[tuple], expected: list, pair: bool, what: str
) -> None:
    """The outputs of one module called on several inputs in turn (the probe's first run, then
    `then`) each match a fresh reference; a hint about state kept across calls otherwise."""
    lengths = ", ".join(str(shape[1]) for shape in shapes)
    outputs = [report["outputs"][0], *report["then"]]
    for number, (output, shape, want) in enumerate(zip(outputs, shapes, expected, strict=True), 1):
        call = f"one {what} called on T = {lengths} in turn: call {number} (B = {shape[0]}, T = {shape[1]})"
        question = f"what does the {what} keep from one call to the next?"
        if number == 1:  # a fresh module: nothing is kept yet, so the single-call checks tell why
            question = "the same mistake as in the checks of a single call"
        if isinstance(output, dict) and "raised" in output:
            raise CheckFailed(f"{call} raised {output['raised']}: {question}")
        if not matches(_first_output(output, pair, shape), want, RTOL, ATOL, strict=True):
            raise CheckFailed(f"{call} is wrong: {question}")
