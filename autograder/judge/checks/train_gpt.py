"""Hidden checks for chapter 08's train_gpt: AdamW on two parameter groups, warm-up then cosine, clipping.

The student's loop trains trusted probe models (autograder.sandbox.guest.torch_probes.training_model)
inside the sandbox; each logs the parameters at every call. Here the same models are trained by the
specification's loop, and on a mismatch by that loop with one known slip each (`SLIPS`), so that a
failing run is named by the slip it reproduces. Each probe isolates one part: a constant gradient
reads the learning rate of every step (Adam moves a weight whose gradient never changes by exactly
the rate), a zero gradient shows the weight decay alone, gradients of varying length (some past the
bound given, or the default with the argument left out) show the clipping, and a tiny language model checks the whole loop and its batches.

Its length (one exercise, some 500 lines) is the slips': each known departure from the loop is
replayed on the same probes, so that a failing run is named by the slip it reproduces.
"""

import math
from dataclasses import dataclass

import numpy as np
import torch

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.judge.declaration import Exercise
from autograder.sandbox.guest import torch_probes
from autograder.sandbox.guest.protocol import Call, Outcome
from autograder.sandbox.guest.torch_probes import probe_parameters, training_model

EXERCISE = Exercise(
    name="train_gpt",
    chapter="08_gpt",
    points=3,
    kind="derive",
    library=("text_training:train_on_text",),
    probe_only=True,
    refuse_schedules=True,
    given_in_text=("get_batch(data,block_size,recipe.batch_size,generator)",),
)

PROBE = torch_probes.train_probe
DEFAULT_MAX_GRAD_NORM = 1.0  # the signature's, in the chapter's contract
# what each check calls the probe's layers and raw tensors: drawn per check, misleading on purpose
# (a LayerNorm called "head", a matrix called "gain"), so no list of names tells them apart
NAME_POOL = (
    "ln_1", "ln_f", "norm", "wte", "embed", "lm_head", "head", "proj", "c_fc", "mix", "gain",
    "scale", "shift", "kernel", "gate", "mlp",
)  # fmt: skip


@dataclass(frozen=True)
class Slip:
    """One departure from the specified loop (the defaults are the specification)."""

    rate: str = "schedule"  # "schedule", "late" or a slip of rate_at
    first_group_only: bool = False  # the rate set on param_groups[0] alone
    # which parameters decay: "matrices"; "all"; "none"; "weights" (by name: LayerNorm's gains
    # too); "linear" (nn.Linear's weight only); "layers" (the weights of nn.Linear and nn.Embedding
    # only); "convention" (all but biases by name and normalisation layers by type, Hugging
    # Face's); "two_dims" (2-D tensors only); "default" (the others at AdamW's default 0.01); or
    # "l2" (Adam's penalty, in the gradient)
    decay: str = "matrices"
    clip: str = "global"  # "global", "each" (parameter by parameter), "value", "one" or "none"
    clear: str = "before"  # when .grad is cleared: "before" backward, "never", "after" backward
    fresh_optimizer: bool = False  # a new optimizer at every step
    betas: tuple[float, float] = (0.9, 0.999)


# (slip, the hint that names it): the first one a failing run reproduces is reported
SLIPS: list[tuple[Slip, str]] = [
    (
        Slip(rate="constant"),
        "every step ran at the peak rate: the learning rate never warms up nor decays",
    ),
    (
        Slip(rate="warmup_from_zero"),
        "step 0 ran at rate 0 and every warm-up step one increment behind: the warm-up's first "
        "step already takes the first of its `warmup` equal increments",
    ),
    (
        Slip(rate="no_warmup"),
        "the first steps already ran at (nearly) the peak rate: there is no warm-up",
    ),
    (
        Slip(rate="to_zero"),
        "the decay falls toward 0, below the floor final_fraction of the peak sets",
    ),
    (
        Slip(rate="early_floor"),
        "the cosine reaches its floor at the last step, one step early: the floor belongs to step "
        "`steps`, one past the last",
    ),
    (
        Slip(rate="whole_run"),
        "the cosine's half period is measured from step 0: it starts from the peak at step "
        "`warmup`",
    ),
    (
        Slip(rate="linear"),
        "the rate falls in a straight line: the decay is half a period of a cosine, flat at both "
        "ends",
    ),
    (
        Slip(rate="late"),
        "each update ran at the rate meant for the step before it (step 0 at the optimizer's "
        "initial rate): when does a step's rate reach the optimizer?",
    ),
    (
        Slip(first_group_only=True),
        "the schedule reached one parameter group only: the other trained at the optimizer's "
        "initial rate throughout",
    ),
    (
        Slip(decay="all"),
        "the biases and the normalisation layers' parameters shrank too: weight decay reached "
        "parameters that hold one number per feature",
    ),
    (
        Slip(decay="weights"),
        "the normalisation layers' gains shrank: they hold one number per feature, whatever their "
        "name says",
    ),
    (
        Slip(decay="default"),
        "the biases and the normalisation layers' parameters shrank a little: a parameter group "
        "without a weight_decay of its own takes AdamW's default, 0.01",
    ),
    (
        Slip(decay="layers"),
        "a matrix that no nn.Linear or nn.Embedding holds did not shrink: it mixes features all "
        "the same",
    ),
    (
        Slip(decay="convention"),
        "a tensor of one number per feature outside any normalisation layer shrank: weight decay "
        "reached a parameter that holds one number per feature",
    ),
    (
        Slip(decay="two_dims"),
        "the stacks of weight matrices (3-D and 4-D tensors) did not shrink: they mix features as "
        "each of their matrices does",
    ),
    (
        Slip(decay="linear"),
        "the embedding did not shrink: an embedding table mixes features as a weight matrix does",
    ),
    (
        Slip(decay="none"),
        "the matrices did not shrink: no weight decay reached the parameters that mix features",
    ),
    (
        Slip(decay="l2"),
        "the decay went into the gradient, where Adam rescales it (Adam's L2 penalty): AdamW "
        "shrinks the weights apart from the gradient",
    ),
    (
        Slip(clip="none"),
        "the gradient reached the optimizer unclipped when it was longer than max_grad_norm",
    ),
    (
        Slip(clip="each"),
        "each parameter's gradient was clipped on its own: the length to bound is that of all "
        "the gradients together, as one vector",
    ),
    (
        Slip(clip="value"),
        "each entry of the gradient was cut to at most max_grad_norm: the bound is on the length "
        "of the whole gradient, which keeps its direction",
    ),
    (
        Slip(clip="one"),
        "the gradient was clipped to length 1, whatever max_grad_norm says",
    ),
    (
        Slip(clear="never"),
        "the gradients of earlier steps stayed in .grad and added up: each step must start from "
        "fresh gradients",
    ),
    (
        Slip(clear="after"),
        "no weight followed its gradient: the gradients were cleared between backward and the "
        "optimizer's step",
    ),
    (
        Slip(fresh_optimizer=True),
        "Adam's running averages started afresh at every step: one optimizer must live through "
        "the whole run",
    ),
    (
        Slip(betas=(0.9, 0.95)),
        "Adam's moment averages are not PyTorch's defaults: the contract's AdamW keeps its "
        "default betas",
    ),
]


def rate_at(step: int, recipe: dict, slip: str = "schedule") -> float:
    """The learning rate of `step` under the specification, or under one of its rate slips."""
    peak, warmup, steps = recipe["learning_rate"], recipe["warmup"], recipe["steps"]
    floor = 0.0 if slip == "to_zero" else recipe["final_fraction"] * peak
    if slip == "constant":
        return peak
    if step < warmup and slip != "no_warmup":
        return peak * (step if slip == "warmup_from_zero" else step + 1) / warmup
    start = 0 if slip in ("no_warmup", "whole_run") else warmup
    span = steps - start - (1 if slip == "early_floor" else 0)
    progress = (step - start) / max(1, span)
    if slip == "linear":
        return floor + (peak - floor) * (1 - progress)
    return floor + (peak - floor) * (1 + math.cos(math.pi * progress)) / 2


def _step_rate(step: int, recipe: dict, slip: Slip) -> float:
    if slip.rate == "late":
        return recipe["learning_rate"] if step == 0 else rate_at(step - 1, recipe)
    return rate_at(step, recipe, slip.rate)


def draw_batch(
    data: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """get_batch's contract (chapter 08, Exercise 1): the draws a correct loop makes."""
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[s : s + block_size] for s in starts.tolist()])
    y = torch.stack([data[s + 1 : s + 1 + block_size] for s in starts.tolist()])
    return x, y


def _optimizer(
    model: torch.nn.Module, spec: dict, decay: float, peak: float, slip: Slip
) -> torch.optim.Optimizer:
    """The specification's AdamW on two parameter groups, or one of the optimizer slips."""
    named = dict(model.named_parameters())
    roles = probe_parameters(model, spec)
    linear = {id(roles["lin.weight"])}
    layers = linear | {id(roles["emb.weight"])}
    norms = {id(roles[role]) for role in ("norm.weight", "norm.bias", "rms.weight")}
    decayed = {
        "weights": lambda n, p: n.endswith("weight"),
        "linear": lambda n, p: id(p) in linear,
        "layers": lambda n, p: id(p) in layers,
        "convention": lambda n, p: not n.endswith("bias") and id(p) not in norms,
        "two_dims": lambda n, p: p.dim() == 2,
    }.get(slip.decay, lambda n, p: p.dim() >= 2)
    on_matrices, on_vectors = {
        "all": (decay, decay),
        "none": (0.0, 0.0),
        "default": (decay, 0.01),
    }.get(slip.decay, (decay, 0.0))
    groups = [
        {"params": [p for n, p in named.items() if decayed(n, p)], "weight_decay": on_matrices},
        {"params": [p for n, p in named.items() if not decayed(n, p)], "weight_decay": on_vectors},
    ]
    adam = torch.optim.Adam if slip.decay == "l2" else torch.optim.AdamW
    return adam(groups, lr=peak, betas=slip.betas)


def train(case: dict, slip: Slip = Slip()) -> dict:
    """Train the case's probe model with the specified loop (or with one slip): the probe's report,
    computed once per case and slip (the judges ask for the same replays more than once)."""
    replays = case.setdefault("replays", {})
    if slip not in replays:
        replays[slip] = _replay(case, slip)
    return replays[slip]


def _replay(case: dict, slip: Slip) -> dict:
    """One training run of the case's probe model by the specified loop with `slip`."""
    recipe, max_norm = case["recipe"], case["max_grad_norm"]
    model = training_model(case["kind"], case["spec"])
    if case["eval_first"]:
        model.eval()
    peak = recipe["learning_rate"]

    def optimizer() -> torch.optim.Optimizer:
        return _optimizer(model, case["spec"], recipe["weight_decay"], peak, slip)

    adam = optimizer()
    data = torch.tensor(case["data"], dtype=torch.int64)
    generator = torch.Generator().manual_seed(case["seed"])
    model.train()
    losses = []
    for step in range(recipe["steps"]):
        if slip.fresh_optimizer:
            adam = optimizer()
        groups = adam.param_groups[:1] if slip.first_group_only else adam.param_groups
        for group in groups:
            group["lr"] = _step_rate(step, recipe, slip)
        x, y = draw_batch(data, case["block_size"], recipe["batch_size"], generator)
        _, loss = model(x, y)
        if slip.clear == "before":
            adam.zero_grad(set_to_none=True)
        loss.backward()
        if slip.clear == "after":
            adam.zero_grad(set_to_none=True)
        bound = 1.0 if slip.clip == "one" else (max_norm or DEFAULT_MAX_GRAD_NORM)
        if slip.clip in ("global", "one"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), bound)
        elif slip.clip == "each":
            for p in model.parameters():
                torch.nn.utils.clip_grad_norm_(p, bound)
        elif slip.clip == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), bound)
        adam.step()
        losses.append(loss.item())
    return {"returned": losses, "calls": model.log, "final": model.flat()}


def _path(report: dict) -> np.ndarray | None:
    """The parameters at every call and at the end, one row each (None if they cannot be stacked)."""
    rows = [np.asarray(call["params"], dtype=np.float64) for call in report["calls"]]
    rows.append(np.asarray(report["final"], dtype=np.float64))
    if len({row.shape for row in rows}) != 1:
        return None
    return np.stack(rows)


def _same_path(got: np.ndarray | None, expected: np.ndarray) -> bool:
    """True when two training paths agree to 1e-6 of how far the weights moved (or 1e-12).

    Loose enough for any correct order of floating-point work (a hand-written clip without
    clip_grad_norm_'s 1e-6, fused or looped AdamW), far tighter than any slip's effect.
    """
    if got is None or got.shape != expected.shape:
        return False
    moved = float(np.max(np.abs(expected - expected[0])))
    return bool(np.max(np.abs(got - expected)) <= 1e-6 * moved + 1e-12)


def _named_slip(case: dict, got: np.ndarray | None) -> str | None:
    """The hint of the slip whose training path is the observed one (None if no slip's is).

    When several slips leave the same path on this model, another check tells them apart.
    """
    # without weight decay every slip of the decay but AdamW's default leaves the specification's
    # path: those are not replayed
    decays = case["recipe"]["weight_decay"] != 0
    hints = [
        hint
        for slip, hint in SLIPS
        if (decays or slip.decay in ("matrices", "default"))
        and _same_path(got, _path(train(case, slip)))
    ]
    if len(hints) > 1:
        return "the same mistake as another check here; on this model it is " + " or ".join(hints)
    return hints[0] if hints else None


def _call(case: dict) -> Call:
    return Call(
        (
            case["kind"],
            case["spec"] | {"eval_first": case["eval_first"]},
            case["data"],
            case["block_size"],
            case["recipe"],
            case["seed"],
            case["max_grad_norm"],
        ),
        probe=PROBE,
    )


def _judge_run(case: dict, outcome: Outcome, off_path: str) -> None:
    """Fail unless the student's loop trained the case's model as the specification does.

    `off_path` is the hint for a path that no known slip explains.
    """
    if outcome.error is not None:
        raise CheckFailed(describe_error(outcome))
    report = outcome.value
    steps = case["recipe"]["steps"]
    if len(report["calls"]) != steps:
        raise CheckFailed(
            f"the model was called {len(report['calls'])} times with gradients on in {steps} "
            "steps: one forward pass per step, on that step's batch"
        )
    if case["eval_first"] and not all(call["mode"] for call in report["calls"]):
        raise CheckFailed(
            "the model was handed over in evaluation mode and trained so (dropout off): the "
            "loop trains in training mode"
        )
    got = _path(report)
    if not _same_path(got, _path(train(case))):
        raise CheckFailed(_named_slip(case, got) or off_path)


def _judge_returned(report: dict) -> None:
    """The list returned holds the loss the model computed at each call, in order."""
    if report["returned"] is None:
        raise CheckFailed(
            f"returned {report['returned_type']}: expected a list of Python floats, one per step"
        )
    want = [call["loss"] for call in report["calls"]]
    if len(report["returned"]) != len(want) or not np.allclose(
        report["returned"], want, rtol=1e-12, atol=1e-12
    ):
        raise CheckFailed(
            "the list returned is not each step's loss, taken on that step's batch before its "
            "update, in order"
        )


def _spec(rng: np.random.Generator) -> dict:
    """A probe of this check's own: sizes, names and order drawn, weights set.

    C is 2 or 3 and V at least C * C, so the vector lin.bias is never smaller than the matrix
    a.mix: no threshold on a tensor's size separates the two kinds. The boxes' slots share their
    names across kinds (the slot that holds a vector in one box holds a matrix in the other), so
    no list of names does either.
    """
    C = int(rng.integers(2, 4))
    V = int(rng.integers(C * C, 120))
    holders = ["emb", "norm", "rms", "lin", "a", "b"]
    names = dict(zip(holders, rng.permutation(NAME_POOL)[: len(holders)].tolist(), strict=True))
    names |= dict(zip(["l1", "l2", "l3"], rng.permutation(NAME_POOL)[:3].tolist(), strict=True))
    weights = {
        "emb.weight": rng.normal(0, 1, (V, C)),
        "norm.weight": 1 + 0.1 * rng.normal(size=C),
        "norm.bias": 0.1 * rng.normal(size=C),
        "rms.weight": 1 + 0.1 * rng.normal(size=C),
        "lin.weight": rng.normal(0, 0.5, (V, C)),
        "lin.bias": 0.1 * rng.normal(size=V),
        "a.gain": 1 + 0.1 * rng.normal(size=C),
        "a.mix": np.eye(C) + 0.2 * rng.normal(size=(C, C)),
        "a.stack4": 0.1 * rng.normal(size=(2, 1, C, C)),
        "b.stack3": 0.1 * rng.normal(size=(2, C, C)),
        "b.offset": 0.1 * rng.normal(size=C),
        "b.shift": 0.1 * rng.normal(size=C),
    }
    order = [holders[i] for i in rng.permutation(len(holders))]
    return {"vocab": V, "width": C, "names": names, "order": order, "weights": weights}


def _shapes(spec: dict) -> dict[str, tuple[int, ...]]:
    """Each parameter's shape, by role."""
    return {role: np.shape(w) for role, w in spec["weights"].items()}


def _case(
    rng: np.random.Generator,
    spec: dict,
    kind: str,
    grads: dict | None,
    recipe: dict,
    **extra: object,
) -> dict:
    if grads is not None:
        spec = spec | {"grads": grads}
    case = {
        "kind": kind,
        "spec": spec,
        "data": rng.integers(0, spec["vocab"], int(rng.integers(40, 80))),
        "block_size": int(rng.integers(5, 8)),  # never batch_size: a swap of the two shows
        "recipe": {"batch_size": int(rng.integers(2, 5)), "eval_every": 10**6, "seed": 0} | recipe,
        "seed": int(rng.integers(0, 2**31)),
        "max_grad_norm": 1.0,
        "eval_first": False,
    }
    return case | extra


def _recipe(rng: np.random.Generator, steps: int, weight_decay: float) -> dict:
    return {
        "steps": steps,
        "warmup": int(rng.integers(3, 7)),
        "learning_rate": float(rng.uniform(0.02, 0.1)),
        "final_fraction": float(rng.uniform(0.05, 0.3)),
        "weight_decay": weight_decay,
    }


def _constant_grads(rng: np.random.Generator, shapes: dict, steps: int) -> dict:
    """One constant gradient per parameter, of total length 0.5 (below max_grad_norm: no clipping)."""
    direction = {n: rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 1, s) for n, s in shapes.items()}
    length = math.sqrt(sum(float((d**2).sum()) for d in direction.values()))
    return {n: np.repeat((0.5 * d / length)[None], steps, 0) for n, d in direction.items()}


def _rates(case: dict, path: np.ndarray) -> np.ndarray:
    """The rate of every step, read from lin.bias[0], whose gradient is the constant g: Adam moves
    it by rate * g / (|g| + eps) when the gradient never changes."""
    model = training_model(case["kind"], case["spec"])
    target = probe_parameters(model, case["spec"])["lin.bias"]
    offset = 0
    for p in model.parameters():
        if p is target:
            break
        offset += p.numel()
    g = float(np.asarray(case["spec"]["grads"]["lin.bias"])[0][0])
    moved = path[:-1, offset] - path[1:, offset]
    return moved * (abs(g) + 1e-8) / g


def _judge_schedule(rng: np.random.Generator) -> Check:
    steps = int(rng.integers(16, 24))
    spec = _spec(rng)
    shapes = _shapes(spec)
    grads = _constant_grads(rng, shapes, steps)
    case = _case(rng, spec, "linear", grads, _recipe(rng, steps, 0.0))

    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if outcome.error is None and len(outcome.value["calls"]) == steps:
            got = _path(outcome.value)
            wanted = _path(train(case))
            if got is not None and not _same_path(got, wanted):
                hint = _named_slip(case, got)
                mine, theirs = _rates(case, got), _rates(case, wanted)
                off = ~np.isclose(mine, theirs, rtol=1e-4, atol=1e-12)  # apart in 6 digits
                if hint is None and off.any():  # the rates differ: say where, not what to do
                    step = int(np.argmax(off))
                    where = "a warm-up step" if step < case["recipe"]["warmup"] else "a decay step"
                    hint = (
                        f"step {step} ({where}) ran at rate {mine[step]:.6g}; the schedule's "
                        f"properties give {theirs[step]:.6g} there"
                    )
                if hint is not None:
                    raise CheckFailed(hint)
        _judge_run(case, outcome, "the weights did not move by the schedule's rate at every step")
        _judge_returned(outcome.value)

    recipe = case["recipe"]
    return Check(
        f"the rate of each of {steps} steps (warm-up {recipe['warmup']}, peak "
        f"{recipe['learning_rate']:.3g}, floor {recipe['final_fraction']:.2f} of it), read from "
        "weights with a constant gradient",
        [_call(case)],
        judge,
    )


def _decay_symptom(case: dict, got: np.ndarray) -> str | None:
    """The first tensor that shrank and should not have, or the other way round, named as the probe
    names it; or one that moved as neither (None if every tensor moved as its kind should).

    The gradients are constant and short of the clipping bound, so each tensor's path depends only
    on whether AdamW decays it: the runs with every tensor decayed and with none give both paths.
    """
    model = training_model(case["kind"], case["spec"])
    role_of = {id(p): role for role, p in probe_parameters(model, case["spec"]).items()}
    decayed, kept = (_path(train(case, Slip(decay=rule))) for rule in ("all", "none"))
    found, start = [], 0  # (name, shape, matrix, decayed?, kept?) of each tensor, in order
    for name, p in model.named_parameters():
        span = slice(start, start + p.numel())
        start += p.numel()
        paths = (_same_path(got[:, span], path[:, span]) for path in (decayed, kept))
        found.append((name, p, p.dim() >= 2, *paths))
    if any(not (d or k) for _, _, matrix, d, k in found if not matrix):
        return None  # a tensor no decay reaches moved otherwise: not a mistake of the decay
    for name, p, matrix, as_decayed, as_kept in found:
        shape = tuple(p.shape)
        if as_decayed and not matrix:
            return (
                f"{name}, of shape {shape}, shrank: weight decay reached a parameter that holds "
                "one number per feature"
            )
        if as_kept and matrix:
            kind = "an embedding table" if role_of[id(p)] == "emb.weight" else "a tensor"
            return (
                f"{name}, {kind} of shape {shape}, did not shrink: weight decay missed a "
                "parameter that mixes features"
            )
        if not (as_decayed or as_kept):
            return (
                f"{name}, of shape {shape}, moved as neither AdamW's step with decay nor its step "
                "without: where in the update does AdamW's decay act?"
            )
    return None


def _judge_decay(rng: np.random.Generator) -> Check:
    steps = int(rng.integers(10, 16))
    spec = _spec(rng)
    grads = _constant_grads(rng, _shapes(spec), steps)
    case = _case(rng, spec, "linear", grads, _recipe(rng, steps, float(rng.uniform(0.5, 2.0))))

    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if outcome.error is None and len(outcome.value["calls"]) == steps:
            got = _path(outcome.value)
            if got is not None and not _same_path(got, _path(train(case))):
                hint = _named_slip(case, got) or _decay_symptom(case, got)
                if hint is not None:
                    raise CheckFailed(hint)
        _judge_run(
            case,
            outcome,
            "the weights did not move as AdamW's steps with weight decay move them: which weights "
            "does it shrink, and by what fraction of themselves per step?",
        )

    return Check(
        "weight decay on the tensors that mix features only (constant gradients, each tensor's "
        "path set by whether it decays)",
        [_call(case)],
        judge,
    )


def _clipped_grads(rng: np.random.Generator, shapes: dict, steps: int, bound: float) -> dict:
    """Gradients of varying length: below `bound` at most steps, two to five times it at 4."""
    grads = {n: rng.normal(size=(steps, *s)) for n, s in shapes.items()}
    lengths = np.sqrt(sum((g.reshape(steps, -1) ** 2).sum(1) for g in grads.values()))
    wanted = bound * rng.uniform(0.3, 0.9, steps)  # below the bound ...
    wanted[rng.choice(steps, 4, replace=False)] = bound * rng.uniform(2, 5, 4)  # ... but 4 times
    return {n: g * (wanted / lengths).reshape(-1, *[1] * len(shapes[n])) for n, g in grads.items()}


def _judge_clipping(rng: np.random.Generator) -> Check:
    """Clipping to a bound given (not 1: a bound of 1 whatever max_grad_norm says shows), then to
    the signature's default (the argument left out: a default of no clipping shows)."""
    cases = []
    for bound in (float(rng.uniform(1.3, 1.8)), None):
        steps, spec = int(rng.integers(12, 18)), _spec(rng)
        grads = _clipped_grads(rng, _shapes(spec), steps, bound or DEFAULT_MAX_GRAD_NORM)
        # no weight decay here, nor in the language model's run: the decay has a check of its own
        recipe = _recipe(rng, steps, 0.0)
        cases.append(_case(rng, spec, "linear", grads, recipe, max_grad_norm=bound))

    def judge(outcomes: list[Outcome]) -> None:
        _judge_run(
            cases[0],
            outcomes[0],
            "with gradients of varying length (4 steps longer than max_grad_norm) the weights "
            "left the path of AdamW on the clipped gradients",
        )
        try:
            _judge_run(
                cases[1],
                outcomes[1],
                "the weights left the path of AdamW on gradients clipped to that bound",
            )
        except CheckFailed as failed:
            raise CheckFailed(
                "called without max_grad_norm, with gradients longer than the signature's default "
                f"bound at 4 steps: {failed}"
            ) from None

    return Check(
        "gradients longer than max_grad_norm at 4 of the steps: clipped as one vector, to the "
        "bound given and to the default",
        [_call(case) for case in cases],
        judge,
    )


def _judge_language_model(rng: np.random.Generator) -> Check:
    recipe = _recipe(rng, int(rng.integers(14, 20)), 0.0) | {"learning_rate": 0.05}
    case = _case(rng, _spec(rng), "lm", None, recipe, eval_first=True)
    case["max_grad_norm"] = 0.5

    def judge(outcomes: list[Outcome]) -> None:
        outcome = outcomes[0]
        if outcome.error is None and len(outcome.value["calls"]) == recipe["steps"]:
            for step, (call, want) in enumerate(
                zip(outcome.value["calls"], train(case)["calls"], strict=True)
            ):
                if not (
                    np.array_equal(call["x"], want["x"]) and np.array_equal(call["y"], want["y"])
                ):
                    raise CheckFailed(
                        f"the batch of step {step} is not get_batch's: how many calls of get_batch "
                        "does a step make, and which generator do they draw from?"
                    )
        _judge_run(
            case,
            outcome,
            "a tiny language model trained by your loop took another path than the "
            "specification's (AdamW on two groups, the schedule, clipping, fresh gradients)",
        )
        _judge_returned(outcome.value)

    return Check(
        f"a tiny language model, {recipe['steps']} steps from evaluation mode: the batches, every "
        "update, the losses returned",
        [_call(case)],
        judge,
    )


def train_gpt_checks(rng: np.random.Generator) -> list[Check]:
    """The schedule, the decay groups, the clipping, then a whole run of a tiny language model."""
    return [
        _judge_schedule(rng),
        _judge_decay(rng),
        _judge_clipping(rng),
        _judge_language_model(rng),
    ]
