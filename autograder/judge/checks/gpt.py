"""Hidden checks for chapter 08: get_batch, CausalSelfAttention, Block, GPT, generate.

The modules are built in the grading process by `autograder.sandbox.guest.torch_probes`, which loads weights
drawn here (by the contract's parameter names), runs them in float64 and sends back plain arrays.
The references are written out here with one loop per head in float64 torch (a calculator only:
no nn module, no library code); known mistakes are the same code with one thing changed, and a
failing answer that matches one is told which. `generate` runs on a trusted toy model that
refuses contexts longer than its block_size and logs what it is fed.
"""

import math

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.judge.expect import expect_close, expect_raises, labelled, matches, value_of
from autograder.sandbox.guest.calls import Call, Outcome

RTOL, ATOL = 1e-7, 1e-9  # strict: chapter 08 keeps its float64 tolerances (see expect.py)
PROBES = "autograder.sandbox.guest.torch_probes"
MODULE = f"{PROBES}:module_probe"


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


def _n(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy().copy()


# ---------------------------------------------------------------- shapes and weights


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


def gpt_shapes(V: int, T: int, C: int, L: int) -> dict[str, tuple]:
    """The contract's parameters of GPT (the head shares tok_emb.weight, so it is not listed)."""
    shapes = {"tok_emb.weight": (V, C), "pos_emb.weight": (T, C)}
    for i in range(L):
        shapes.update(block_shapes(C, f"blocks.{i}."))
    return {**shapes, "ln_f.weight": (C,), "ln_f.bias": (C,)}


def gpt_count(V: int, T: int, C: int, L: int) -> int:
    """Parameters of the contract's GPT: V*C + T*C + L*(12C^2 + 13C) + 2C."""
    return V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C


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


# ---------------------------------------------------------------- references and variants


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


# ---------------------------------------------------------------- judging helpers


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
            f"{what}(...) built a {listing.get('type')}, not an nn.Module: subclass nn.Module "
            "and call super().__init__() first"
        )
    got = {name: tuple(shape) for name, shape in listing["parameters"].items()}
    if got == shapes:
        return
    missing, extra = sorted(set(shapes) - set(got)), sorted(set(got) - set(shapes))
    if "head.weight" in extra:
        raise CheckFailed(
            "the head is untied: it has a weight of its own; make it the token embedding's, "
            "self.head.weight = self.tok_emb.weight"
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
            "mlp must be nn.Sequential(nn.Linear(C, 4C), nn.GELU(), nn.Linear(4C, C), "
            f"nn.Dropout(dropout)); unexpected parameters: {', '.join(extra[:4])}"
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


def _expect_causal(
    first: np.ndarray, second: np.ndarray, t: int, what: str, expected: np.ndarray
) -> None:
    """Outputs at positions <= t must not change when only inputs after t changed; when the first
    output is wrong anyway, the single-call checks name the cause (one bug is named once)."""
    if not np.allclose(first[:, : t + 1], second[:, : t + 1], rtol=0, atol=1e-12):
        position = int(np.argwhere(~np.isclose(first[:, : t + 1], second[:, : t + 1]))[0][1])
        leak = f"{what} at position {position} changed when only inputs after position {t} did"
        if not matches(first, expected, RTOL, ATOL, strict=True):
            raise CheckFailed(f"{leak}: the same mistake as in the checks of a single call")
        raise CheckFailed(
            f"{leak}: position t may read positions 0..t only (is the future masked, and is the "
            "mask off by one?)"
        )


# ---------------------------------------------------------------- get_batch


def _judge_batch_runs(
    data: np.ndarray, block_size: int, batch_size: int, report: dict
) -> list[np.ndarray]:
    """Each run's shapes, types and windows; return each run's start offsets."""
    starts_per_run = []
    position = {int(v): i for i, v in enumerate(data)}
    for run in report["runs"]:
        for name, value, kind in zip(("x", "y"), (run["x"], run["y"]), run["types"], strict=True):
            if kind != "torch.int64":
                raise CheckFailed(f"{name} is {kind}; expected a torch int64 tensor")
            _array(value, (batch_size, block_size), name)
        x, y = run["x"], run["y"]
        starts = np.array([position.get(int(v), -1) for v in x[:, 0]])
        if (starts < 0).any():
            raise CheckFailed("x holds ids that are not in data: cut x out of data itself")
        for row, start in enumerate(starts):
            window = data[start : start + block_size]
            if len(window) < block_size or not np.array_equal(x[row], window):
                raise CheckFailed(
                    f"row {row} of x is not block_size consecutive ids of data (x[i] must be "
                    "data[s : s + block_size] for a start s)"
                )
            after = data[start + 1 : start + block_size + 1]
            if not np.array_equal(y[row], after):
                if np.array_equal(y[row][:-1], x[row][1:]):
                    raise CheckFailed(
                        "y is not data one position ahead of x at its end: y's last id is not the "
                        "one after x's last"
                    )
                raise CheckFailed(
                    "y is not x shifted by one position in data: are x and y cut from the same "
                    "start?"
                )
        starts_per_run.append(starts)
    return starts_per_run


def _batch_call(data: np.ndarray, block_size: int, batch_size: int, seeds: list[int]) -> Call:
    return Call((data, block_size, batch_size, seeds), probe=f"{PROBES}:get_batch_probe")


def _judge_get_batch_windows(
    rng: np.random.Generator, N: int, block_size: int, batch: int
) -> Check:
    data = rng.permutation(10 * N)[:N].astype(np.int64)  # distinct ids: a window tells its start
    seeds = [int(s) for s in rng.integers(0, 2**31, 2)]

    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if len(data) == block_size + 1 and outcome.raised("ValueError"):
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids is long enough, it holds "
                "exactly one window (start 0)"
            )
        if len(data) == block_size + 1 and "expects 'from' to be less than 'to'" in (
            outcome.message or ""
        ):
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids holds one window, and "
                "the last valid start, 0, is never drawn (which starts does your range hold?)"
            )
        if len(data) == block_size + 1 and outcome.error is not None:
            raise CheckFailed(
                f"{describe_error(outcome)}: data of block_size + 1 ids holds one window, at "
                "start 0 (which starts does your range hold?)"
            )
        report = _report(outcome)
        _judge_batch_runs(data, block_size, batch, report)
        if not np.array_equal(report["data_after"], data):
            raise CheckFailed("data was modified; leave it as it was")

    return Check(
        f"len(data) = {N}, block_size = {block_size}, batch_size = {batch}: windows of data, y one ahead",
        [_batch_call(data, block_size, batch, seeds)],
        judge,
    )


def _judge_get_batch_distribution(rng: np.random.Generator) -> Check:
    block_size, starts = 5, 9
    data = rng.permutation(1000)[: block_size + starts].astype(np.int64)
    batch = 4500
    seeds = [int(s) for s in rng.integers(0, 2**31, 1)]

    def judge(outcomes: list[Outcome]) -> None:
        (got,) = _judge_batch_runs(data, block_size, batch, _report(outcomes[0]))
        counts = np.bincount(got, minlength=starts)
        expected = batch / starts
        spread = math.sqrt(expected * (1 - 1 / starts))
        if counts[-1] == 0:
            raise CheckFailed(
                f"the last valid start, len(data) - block_size - 1 = {starts - 1}, is never drawn "
                "(is torch.randint's high inclusive or exclusive?)"
            )
        if counts[0] == 0:
            raise CheckFailed(
                "start 0 is never drawn: every start 0 .. len(data) - block_size - 1 is valid"
            )
        worst = int(np.argmax(np.abs(counts - expected)))
        if abs(counts[worst] - expected) > 5 * spread:
            raise CheckFailed(
                f"start {worst} was drawn {counts[worst]} times in {batch}; about {expected:.0f} "
                "expected: draw the starts uniformly over 0 .. len(data) - block_size - 1"
            )
        # the joint distribution: row i + 1's start minus row i's (mod the number of starts) is
        # uniform when the rows are independent; consecutive, sorted or repeated starts are not
        steps = np.bincount((got[1:] - got[:-1]) % starts, minlength=starts)
        pairs = batch - 1
        step_spread = math.sqrt(pairs / starts * (1 - 1 / starts))
        odd = int(np.argmax(np.abs(steps - pairs / starts)))
        if abs(steps[odd] - pairs / starts) > 5 * step_spread:
            raise CheckFailed(
                f"the rows of one batch are not independent: row i + 1 starts {odd} after row i "
                f"(mod {starts}) in {steps[odd]} of {pairs} pairs, about {pairs / starts:.0f} "
                "expected: what does each row's start depend on?"
            )

    return Check(
        f"starts independent and uniform over all {starts} valid starts (4,500 windows)",
        [_batch_call(data, block_size, batch, seeds)],
        judge,
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
            f"two generators seeded alike gave different {what}: draw from `generator` alone"
        )
    if np.array_equal(first, other):
        raise CheckFailed(f"generators with different seeds gave the same {what}")


def _judge_get_batch_generator(rng: np.random.Generator) -> Check:
    data = rng.permutation(500)[:60].astype(np.int64)
    seed = int(rng.integers(0, 2**31))
    seeds = [seed, seed, seed + 1]

    def judge(outcomes: list[Outcome]) -> None:
        report = _report(outcomes[0])
        runs = _judge_batch_runs(data, 4, 16, report)
        _judge_reproducible(
            report,
            *runs,
            "the starts came from torch's, NumPy's or Python's own random state, not from the "
            "generator passed in",
            "batches",
        )

    return Check(
        "reproducible from the generator alone; the global random state untouched",
        [_batch_call(data, 4, 16, seeds)],
        judge,
    )


def get_batch_checks(rng: np.random.Generator) -> list[Check]:
    """Windows and their shift on random data, one valid start, uniform starts, the generator, errors."""
    checks = [
        _judge_get_batch_windows(rng, N, T, B) for N, T, B in [(40, 8, 6), (100, 16, 3), (9, 1, 20)]
    ]
    checks.append(
        _judge_get_batch_windows(rng, 7, 6, 5)
    )  # len(data) = block_size + 1: start 0 only
    checks[-1].name = "len(data) = block_size + 1: the only window starts at 0"
    checks += [_judge_get_batch_distribution(rng), _judge_get_batch_generator(rng)]
    for N, T in [(8, 8), (5, 8)]:
        data = rng.permutation(100)[:N].astype(np.int64)

        def judge(outcomes: list[Outcome]) -> None:
            expect_raises(outcomes[0], "ValueError", "data must be longer than block_size")

        checks.append(
            Check(
                f"len(data) = {N}, block_size = {T} raises ValueError",
                [_batch_call(data, T, 2, [0])],
                judge,
            )
        )
    return checks


# ---------------------------------------------------------------- CausalSelfAttention


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
            "queries and keys swapped: qkv's output holds queries, keys, values in that order",
            {"order": "kqv"},
        ),
        (
            "qkv's output holds queries, keys, values in that order (got values first)",
            {"order": "vkq"},
        ),
        (
            "qkv's output holds queries, keys, values in that order (keys and values swapped)",
            {"order": "qvk"},
        ),
        (
            "qkv's output is three blocks of n_embd columns (all queries, then keys, then values), "
            "not q, k, v inside each head",
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
            raise CheckFailed("forward modified its input x; leave it as it was")

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

    def judge(outcomes: list[Outcome]) -> None:
        first, second = (_report(o) for o in outcomes)
        expect_listing(first, attention_shapes(C), "CausalSelfAttention")
        a = _first_output(first["outputs"][0], False, (B, T, C))
        b = _first_output(second["outputs"][0], False, (B, T, C))
        _expect_causal(a, b, t, "the output", expected)

    return Check(
        f"causal: inputs after position {t} changed, outputs up to {t} unchanged",
        [_attention_call(init, w, x), _attention_call(init, w, changed)],
        judge,
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
                raise CheckFailed(f"{name} must be nn.Dropout(dropout); got {dropouts.get(name)}")
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
                "attn_dropout is never applied in training: apply it to the attention weights "
                "after the softmax"
            )
        if not (
            isinstance(attn_in, np.ndarray)
            and matches(attn_in, expected_weights, 1e-6, 1e-9, strict=True)
        ):
            raise CheckFailed(
                "attn_dropout must be applied to the attention weights (B, n_head, T, T) right "
                "after the softmax"
            )
        if hooked["resid_dropout"] is None:
            raise CheckFailed(
                "resid_dropout is never applied in training: apply it to the output of proj"
            )

    return Check(
        "dropout=0.5: none in eval mode; attn_dropout on the weights and resid_dropout after proj in training",
        [_attention_call(init, w, x, modes, ("attn_dropout", "resid_dropout"))],
        judge,
    )


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
                "raised AssertionError; raise ValueError (an assert vanishes under python -O)"
            )
        expect_raises(outcome, "ValueError", "n_head must divide n_embd")

    return Check(what, [Call((init,), probe=f"{PROBES}:constructor_probe")], judge)


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


# ---------------------------------------------------------------- Block


def block_diagnoses(x: torch.Tensor, w: dict, H: int) -> list[tuple[str, np.ndarray]]:
    """(hint, output) of the classic mistakes of a decoder block."""
    variants = [
        (
            "post-norm: normalise the input of each sublayer, x + attn(ln1(x)), not ln1(x + attn(x))",
            {"variant": "post"},
        ),
        ("the attention has no residual: x = x + attn(ln1(x))", {"variant": "no_attn_residual"}),
        ("the MLP has no residual: x = x + mlp(ln2(x))", {"variant": "no_mlp_residual"}),
        ("ln1 and ln2 are swapped: ln1 comes before attn, ln2 before mlp", {"variant": "swapped"}),
        ("ln1 is used twice: the MLP reads ln2(x)", {"variant": "one_norm"}),
        (
            "the residual adds the normalised x: what does the residual stream carry?",
            {"variant": "normed_residual"},
        ),
        (
            "attention and MLP ran side by side on the same x: the MLP never sees the "
            "attention's output",
            {"variant": "parallel"},
        ),
        (
            "GELU with the tanh approximation: the contract's GELU is the exact (erf) form",
            {"activation": "tanh"},
        ),
        (
            "ReLU instead of the contract's GELU",
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
            raise CheckFailed("forward modified its input x: write x = x + ..., not x += ...")

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
                "the MLP ends with nn.Dropout(dropout): nn.Sequential(nn.Linear(C, 4C), nn.GELU(), "
                "nn.Linear(4C, C), nn.Dropout(dropout))"
            )
        if listing["dropouts"].get("attn.attn_dropout") != p:
            raise CheckFailed("pass dropout on to the attention: CausalSelfAttention(..., dropout)")
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

    def judge(outcomes: list[Outcome]) -> None:
        first, second = (_report(o) for o in outcomes)
        expect_listing(first, block_shapes(C), "Block")
        a = _first_output(first["outputs"][0], False, (B, T, C))
        b = _first_output(second["outputs"][0], False, (B, T, C))
        _expect_causal(a, b, t, "the block's output", expected)

    return Check(
        f"causal: inputs after position {t} changed, outputs up to {t} unchanged",
        [Call((init, w, [v], ["float"]), probe=MODULE) for v in (x, changed)],
        judge,
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


# ---------------------------------------------------------------- GPT


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
        raise CheckFailed("the head is untied: self.head.weight = self.tok_emb.weight")
    if listing.get("block_size") != block:
        raise CheckFailed(
            f"model.block_size is {listing.get('block_size')!r}; store it (self.block_size = "
            "block_size): generate reads it to crop the context"
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
                "the loss has no gradient for tok_emb.weight: keep it in the autograd graph "
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
            raise CheckFailed("GPT(...) is not an nn.Module: subclass nn.Module")
        if listing.get("tied") is False:
            raise CheckFailed(
                "the head is untied (it adds vocab_size * n_embd parameters): "
                "self.head.weight = self.tok_emb.weight"
            )
        if listing.get("head_bias"):
            raise CheckFailed("the head has a bias: the contract's head has none")
        if listing["count"] != count:
            raise CheckFailed(
                f"{listing['count']} parameters; expected {count} = V*C + T*C + L*(12C² + 13C) + 2C "
                "(the head shares the token embedding)"
            )

    return Check(
        f"tied head and {count:,} parameters for V={V}, block_size={block}, n_embd={C}, n_layer={L}",
        [Call((init,), probe=f"{PROBES}:constructor_probe")],
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
                    raise CheckFailed(f"{name} must start at 1 (nn.LayerNorm's default)")
            else:
                target = residual if name.endswith(("attn.proj.weight", "mlp.2.weight")) else 0.02
                if abs(std - target) > 0.12 * target or abs(mean) > 5 * target / math.sqrt(n):
                    why = (
                        f"the residual projections start at N(0, 0.02/√(2·n_layer)) = N(0, {residual:.4f})"
                        if target == residual
                        else "weights start at N(0, 0.02)"
                    )
                    if target == 0.02 and abs(std - residual) < 0.12 * residual:
                        why = "only attn.proj.weight and mlp.2.weight of each block are scaled by 1/√(2·n_layer)"
                    raise CheckFailed(
                        f"{name} starts with mean {mean:.3g} and std {std:.4f}: {why}"
                    )

    return Check(
        "initialisation: N(0, 0.02), residual projections N(0, 0.02/√(2·n_layer)), zero biases",
        [Call((init, seed), probe=f"{PROBES}:init_probe")],
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
            raise CheckFailed(f"drop must be nn.Dropout(dropout); got {dropouts.get('drop')}")
        if dropouts.get("blocks.0.mlp.3") != p:
            raise CheckFailed("pass dropout on to every Block: Block(..., dropout)")
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
        "dropout=0.3: drop after the embeddings, none in eval mode, active in training",
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

    def judge(outcomes: list[Outcome]) -> None:
        first, second = (_report(o) for o in outcomes)
        _expect_gpt_listing(first, shapes, block)
        a = _first_output(first["outputs"][0], True, (3, 10, V))
        b = _first_output(second["outputs"][0], True, (3, 10, V))
        _expect_causal(a, b, t, "the logits", expected)

    return Check(
        f"causal: ids after position {t} changed, logits up to {t} unchanged",
        [_gpt_call(init, w, idx), _gpt_call(init, w, changed)],
        judge,
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


# ---------------------------------------------------------------- generate


def toy_probs(
    W: np.ndarray, U: np.ndarray, context: np.ndarray, temperature: float, top_k: int | None
) -> np.ndarray:
    """The next-id distribution the toy model and a correct generate give for one context."""
    logits = (W[context[-1]] + U[context[0]]) / temperature
    if top_k is not None:
        logits = np.where(logits < np.sort(logits)[-top_k], -np.inf, logits)
    e = np.exp(logits - logits.max())
    return e / e.sum()


def _fits(counts: np.ndarray, probs: np.ndarray) -> bool:
    """Counts of one draw per row agree with probs: no count where p = 0, within 5 sigma elsewhere."""
    n = counts.sum()
    if (counts[probs == 0] > 0).any():
        return False
    spread = np.sqrt(n * probs * (1 - probs)) + 1e-12
    return bool((np.abs(counts - n * probs) <= 5 * spread + 1).all())


def _expected_rows(out: np.ndarray, T0: int, steps: int, block: int, row_major: bool) -> list:
    """The contexts a correct generate feeds, in the order of batched steps (or row by row)."""
    rows = range(out.shape[0])
    windows = [(r, out[r, max(0, T0 + i - block) : T0 + i]) for i in range(steps) for r in rows]
    if row_major:
        windows.sort(key=lambda pair: pair[0])
    return [window for _, window in windows]


def _judge_generate_runs(
    report: dict, idx: np.ndarray, steps: int, block: int, train_mode: bool
) -> list[np.ndarray]:
    """Shapes, dtypes, the prefix, the contexts fed, eval mode and no_grad; return the outputs."""
    B, T0 = idx.shape
    outs = []
    for run in report["runs"]:
        if run["type"] != "torch.int64":
            raise CheckFailed(f"generate returned {run['type']}; expected a torch int64 tensor")
        out = _array(run["out"], (B, T0 + steps), "the output")
        if not np.array_equal(out[:, :T0], idx):
            raise CheckFailed("the output must start with idx itself, then the new ids")
        if not np.array_equal(run["idx_after"], idx):
            raise CheckFailed("idx was modified in place: the caller's tensor must not change")
        if any(run["training"]):
            raise CheckFailed("the model ran in training mode while sampling: dropout was active")
        if any(run["grad"]):
            raise CheckFailed("the model ran with gradients on: sampling built an autograd graph")
        if run["mode_after"] != train_mode:
            mode = "training" if train_mode else "eval"
            raise CheckFailed(
                f"the model was in {mode} mode before generate and not after: the caller's "
                "mode was not restored"
            )
        fed = [row for context in run["contexts"] for row in context]
        if steps and len(fed) != B * steps:
            raise CheckFailed(
                f"the model was called on {len(fed)} contexts for {B} rows and {steps} new ids; "
                "expected one forward pass per new id"
            )
        for row_major in (False, True):
            wanted = _expected_rows(out, T0, steps, block, row_major)
            if all(
                len(a) == len(b) and np.array_equal(a, b) for a, b in zip(fed, wanted, strict=True)
            ):
                break
        else:
            bad = next(
                i
                for i, (a, b) in enumerate(
                    zip(fed, _expected_rows(out, T0, steps, block, False), strict=True)
                )
                if len(a) != len(b) or not np.array_equal(a, b)
            )
            got, want = fed[bad], _expected_rows(out, T0, steps, block, False)[bad]
            if len(got) < len(want):
                raise CheckFailed(
                    f"the model was fed {len(got)} ids where {len(want)} were available: the "
                    "context was cut shorter than block_size"
                )
            raise CheckFailed(
                "the model was not fed the last block_size ids of the sequence so far at every step"
            )
        outs.append(out)
    return outs


def _generate_call(
    W: np.ndarray,
    U: np.ndarray,
    block: int,
    idx: np.ndarray,
    steps: int,
    seeds: list[int],
    kwargs: dict,
    train_mode: bool,
) -> Call:
    return Call(
        (W, U, block, idx, steps, seeds, kwargs, train_mode), probe=f"{PROBES}:generate_probe"
    )


def _crop_hint(outcome: Outcome) -> None:
    if outcome.error is not None and "reads at most block_size" in outcome.message:
        raise CheckFailed(
            f"context not cropped ({outcome.message}): the model reads at most block_size ids"
        )


def _judge_generate_distribution(
    rng: np.random.Generator, T0: int, temperature: float, top_k: int | None
) -> Check:
    V, block, B = 6, 4, 4000
    W, U = rng.normal(size=(V, V)), rng.normal(size=(V, V))
    idx = np.repeat(rng.integers(0, V, (1, T0)), B, axis=0)
    context = idx[0, -block:]
    probs = toy_probs(W, U, context, temperature, top_k)
    full = idx[0]
    candidates = [
        ("the logits were not divided by the temperature", toy_probs(W, U, context, 1.0, top_k)),
        (
            "a higher temperature made the distribution sharper: it should flatten it",
            toy_probs(W, U, context, 1 / temperature, top_k),
        ),
        (
            "top_k was ignored: every token can be drawn",
            toy_probs(W, U, context, temperature, None) if top_k else None,
        ),
        (
            "sampled from the first position's logits: which position predicts the next id?",
            toy_probs(W, U, context[:1], temperature, top_k),
        ),
        (
            "the context was not cropped to the last block_size ids",
            toy_probs(W, U, full, temperature, top_k) if block < T0 else None,
        ),
    ]
    kwargs = {"temperature": temperature} if temperature != 1.0 else {}
    if top_k is not None:
        kwargs["top_k"] = top_k
    seeds = [int(rng.integers(0, 2**31))]

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        (out,) = _judge_generate_runs(_report(outcomes[0]), idx, 1, block, False)
        counts = np.bincount(out[:, -1], minlength=V)[:V]
        if _fits(counts, probs):
            return
        for hint, candidate in candidates:
            if candidate is not None and _fits(counts, candidate):
                raise CheckFailed(hint)
        if top_k is not None and (counts[probs == 0] > 0).any():
            raise CheckFailed(f"an id outside the top_k = {top_k} most likely was sampled")
        raise CheckFailed(
            f"the new ids are not drawn from softmax(logits[:, -1] / temperature) (after top_k): "
            f"frequencies {np.round(counts / B, 3).tolist()}, expected {np.round(probs, 3).tolist()}"
        )

    return Check(
        f"the distribution of the next id: {B} rows, T={T0}, block_size={block}, "
        f"temperature={temperature}, top_k={top_k}",
        [_generate_call(W, U, block, idx, 1, seeds, kwargs, False)],
        judge,
    )


def _greedy(
    W: np.ndarray, U: np.ndarray, idx: np.ndarray, steps: int, block: int, read: int = -1
) -> np.ndarray:
    """Greedy ids from the toy model; `read` is the position of the context whose logits are read."""
    out = idx.copy()
    for _ in range(steps):
        picks = [int(np.argmax(W[row[-block:][read]] + U[row[-block:][0]])) for row in out]
        out = np.concatenate([out, np.array(picks)[:, None]], axis=1)
    return out


def _judge_generate_greedy(rng: np.random.Generator) -> Check:
    V, block, steps = 7, 4, 9
    while True:  # a case where reading the first position's logits gives other ids (most do)
        W, U = rng.normal(size=(V, V)), rng.normal(size=(V, V))
        idx = rng.integers(0, V, (3, 2))
        expected = _greedy(W, U, idx, steps, block)
        first = _greedy(W, U, idx, steps, block, read=0)
        if not np.array_equal(first, expected):
            break
    seeds = [int(rng.integers(0, 2**31))]

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        (out,) = _judge_generate_runs(_report(outcomes[0]), idx, steps, block, False)
        if np.array_equal(out, first):
            raise CheckFailed(
                "sampled from the first position's logits: which position predicts the next id?"
            )
        if not np.array_equal(out, expected):
            column = int(np.argwhere(out != expected)[0][1])
            raise CheckFailed(
                f"with top_k=1 the ids must be the most likely ones at every step; the first "
                f"difference is at position {column}"
            )

    return Check(
        f"top_k=1 is greedy: {steps} new ids from T=2 with block_size={block}, crops as it goes",
        [_generate_call(W, U, block, idx, steps, seeds, {"top_k": 1}, False)],
        judge,
    )


def _judge_generate_generator(rng: np.random.Generator) -> Check:
    V, block, steps = 8, 5, 12
    W, U = rng.normal(0, 0.5, (V, V)), rng.normal(0, 0.5, (V, V))
    idx = rng.integers(0, V, (6, 3))
    seed = int(rng.integers(0, 2**31))

    def judge(outcomes: list[Outcome]) -> None:
        _crop_hint(outcomes[0])
        report = _report(outcomes[0])
        runs = _judge_generate_runs(report, idx, steps, block, True)
        _judge_reproducible(
            report,
            *runs,
            "sample with the generator passed in (torch.multinomial(probs, 1, generator=generator))",
            "ids",
        )

    return Check(
        "reproducible from the generator alone; eval mode, no_grad, the training mode restored",
        [_generate_call(W, U, block, idx, steps, [seed, seed, seed + 1], {}, True)],
        judge,
    )


def _judge_generate_nothing(rng: np.random.Generator) -> Check:
    W, U = rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    idx = rng.integers(0, 5, (2, 3))

    def judge(outcomes: list[Outcome]) -> None:
        _judge_generate_runs(_report(outcomes[0]), idx, 0, 4, False)

    return Check(
        "max_new_tokens=0 returns idx",
        [_generate_call(W, U, 4, idx, 0, [0], {}, False)],
        judge,
    )


def generate_checks(rng: np.random.Generator) -> list[Check]:
    """Distributions under temperature and top-k, cropping, greedy decoding, the generator, the mode."""
    return [
        _judge_generate_distribution(rng, 3, 1.0, None),
        _judge_generate_distribution(rng, 6, 0.5, 3),
        _judge_generate_distribution(rng, 2, 2.0, None),
        _judge_generate_distribution(rng, 4, 1.5, 2),
        _judge_generate_greedy(rng),
        _judge_generate_generator(rng),
        _judge_generate_nothing(rng),
    ]
