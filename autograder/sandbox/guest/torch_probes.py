"""Probes for chapter 08's PyTorch exercises, run in the grading process on the student's class or function.

Each probe builds what the exercise needs (a module from its constructor, weights loaded from plain
NumPy arrays, a trusted toy model for `generate`), calls the student's code in float64 and returns
plain data only. The parent judges it against references it computed itself.
"""

import random
from collections.abc import Callable

import numpy as np

# ---------------------------------------------------------------- helpers


def _global_states() -> tuple:
    """Fingerprints of torch's, NumPy's and Python's global random states."""
    import torch

    return (
        torch.random.get_rng_state().numpy().tobytes(),
        np.random.get_state()[1].tobytes(),
        random.getstate(),
    )


def _seed_globals() -> tuple:
    """Seed every global generator (so a probe is repeatable) and return their fingerprints."""
    import torch

    torch.manual_seed(12345)
    np.random.seed(12345)
    random.seed(12345)
    return _global_states()


def _to_plain(value: object) -> object:
    """Tensors as float64 / int64 arrays (a tuple or list of them item by item); anything else unchanged."""
    import torch

    if isinstance(value, torch.Tensor):
        array = value.detach().cpu()
        kind = torch.float64 if array.is_floating_point() else torch.int64
        return array.to(kind).numpy().copy()
    if isinstance(value, tuple | list):
        return type(value)(_to_plain(item) for item in value)
    return value


def _describe(value: object) -> str:
    """The dtype of a tensor, or the type name of anything else."""
    import torch

    return str(value.dtype) if isinstance(value, torch.Tensor) else type(value).__name__


def module_listing(model: object) -> dict:
    """Parameter names and shapes, the parameter count and the tied head, as plain data."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return {"is_module": False, "type": type(model).__name__}
    parameters = {name: list(p.shape) for name, p in model.named_parameters()}
    listing = {
        "is_module": True,
        "parameters": parameters,
        "count": int(sum(p.numel() for p in model.parameters())),
        "children": {name: type(child).__name__ for name, child in model.named_children()},
    }
    head, tok_emb = getattr(model, "head", None), getattr(model, "tok_emb", None)
    if isinstance(head, torch.nn.Module) and isinstance(tok_emb, torch.nn.Module):
        listing["tied"] = getattr(head, "weight", None) is getattr(tok_emb, "weight", 0)
        listing["head_bias"] = getattr(head, "bias", None) is not None
    listing["block_size"] = getattr(model, "block_size", None)
    listing["dropouts"] = {
        name: float(m.p) for name, m in model.named_modules() if isinstance(m, torch.nn.Dropout)
    }
    return listing


def _load(model: object, weights: dict) -> None:
    """Copy the weights into the model's parameters of the same names (in float64)."""
    import torch

    model.double()
    parameters = dict(model.named_parameters())
    with torch.no_grad():
        for name, array in weights.items():
            parameters[name].copy_(torch.from_numpy(np.asarray(array, dtype=np.float64)))


def _matches(listing: dict, weights: dict) -> bool:
    """True when the model's parameters are exactly the weights' names and shapes."""
    return listing.get("is_module") and listing["parameters"] == {
        name: list(np.shape(w)) for name, w in weights.items()
    }


# ---------------------------------------------------------------- modules


def module_probe(
    cls: Callable,
    init: dict,
    weights: dict,
    inputs: list,
    kinds: list[str],
    modes: tuple[str, ...] = ("eval",),
    hooks: tuple[str, ...] = (),
    targets: np.ndarray | None = None,
    gradient_of: str | None = None,
    then: list | None = None,
) -> dict:
    """Build cls(**init), load `weights`, run forward(*inputs[, targets]) in float64 once per mode.

    `kinds` says per input whether it is "float" (float64) or "ids" (int64); each mode is "eval"
    or "train". Reports the listing, every output, the first input each submodule named in `hooks`
    received in each run, the inputs as they were afterwards, with `gradient_of` the gradient
    of that parameter of the loss (the second output, in train mode), and with `then` (more lists
    of inputs) the eval outputs of the same module called on each in turn (state across calls).
    """
    import torch

    _seed_globals()
    model = cls(**init)
    listing = module_listing(model)
    report = {"listing": listing, "outputs": None, "hooked": None, "inputs_after": None}
    if not _matches(listing, weights):
        return report
    _load(model, weights)
    tensors = [
        torch.tensor(np.asarray(x), dtype=torch.float64 if kind == "float" else torch.int64)
        for x, kind in zip(inputs, kinds, strict=True)
    ]
    if targets is not None:
        tensors.append(torch.tensor(np.asarray(targets), dtype=torch.int64))
    modules = dict(model.named_modules())
    outputs, hooked = [], []
    for mode in modes:
        model.train(mode == "train")
        seen: dict = {name: None for name in hooks}
        handles = [
            modules[name].register_forward_hook(_recorder(seen, name))
            for name in hooks
            if name in modules
        ]
        with torch.no_grad():
            outputs.append(_to_plain(model(*tensors)))
        for handle in handles:
            handle.remove()
        hooked.append(seen)
    report.update(outputs=outputs, hooked=hooked, inputs_after=[_to_plain(t) for t in tensors])
    if then is not None:
        model.eval()
        later = []
        for more in then:
            given = [
                torch.tensor(np.asarray(x), dtype=torch.float64 if kind == "float" else torch.int64)
                for x, kind in zip(more, kinds, strict=True)
            ]
            try:
                with torch.no_grad():
                    later.append(_to_plain(model(*given)))
            except Exception as error:  # the call's failure is the verdict's business
                later.append({"raised": f"{type(error).__name__}: {str(error)[:200]}"})
        report["then"] = later
    if gradient_of is not None:
        model.train()
        out = model(*tensors)
        loss = out[1] if isinstance(out, tuple) and len(out) == 2 else None
        grad = None
        if isinstance(loss, torch.Tensor) and loss.requires_grad:
            loss.backward()
            grad = dict(model.named_parameters())[gradient_of].grad
        report["gradient"] = None if grad is None else _to_plain(grad)
    return report


def _recorder(seen: dict, name: str) -> Callable:
    """A forward hook that keeps the first input of the first call of the module `name`."""

    def hook(module: object, args: tuple, output: object) -> None:
        if seen[name] is None and args:
            seen[name] = _to_plain(args[0])

    return hook


def init_probe(cls: Callable, init: dict, seed: int) -> dict:
    """Build cls(**init) after torch.manual_seed(seed); mean, std, min and max of every parameter."""
    import torch

    _seed_globals()
    torch.manual_seed(seed)
    model = cls(**init)
    listing = module_listing(model)
    stats = {}
    if listing.get("is_module"):
        for name, p in model.named_parameters():
            values = p.detach().double()
            stats[name] = [
                values.mean().item(),
                values.std().item() if values.numel() > 1 else 0.0,
                values.min().item(),
                values.max().item(),
            ]
    return {"listing": listing, "stats": stats}


def constructor_probe(cls: Callable, init: dict) -> dict:
    """Build cls(**init) (to see it raise); the listing of what was built."""
    return module_listing(cls(**init))


# ---------------------------------------------------------------- get_batch


def get_batch_probe(
    fn: Callable, data: np.ndarray, block_size: int, batch_size: int, seeds: list[int]
) -> dict:
    """Call get_batch once per seed, each with a fresh generator seeded so; report what came back."""
    import torch

    before = _seed_globals()
    tensor = torch.tensor(data, dtype=torch.int64)
    runs = []
    for seed in seeds:
        x, y = fn(tensor, block_size, batch_size, torch.Generator().manual_seed(seed))
        runs.append({"x": _to_plain(x), "y": _to_plain(y), "types": [_describe(x), _describe(y)]})
    return {
        "runs": runs,
        "data_after": _to_plain(tensor),
        "global_moved": _global_states() != before,
    }


# ---------------------------------------------------------------- generate


def _toy_model(W: np.ndarray, U: np.ndarray, block_size: int) -> object:
    """A causal toy LM: the logits at position t are W[id_t] + U[id_0] of the context it is given.

    It refuses more than block_size ids and logs every context, its mode and whether grad is on.
    """
    import torch

    log: list[dict] = []  # shared by every copy: a generate that reads a deepcopy is still seen

    class ToyLM(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.block_size = block_size
            self.anchor = torch.nn.Parameter(torch.zeros(1))
            self.drop = torch.nn.Dropout(0.0)  # a child, as a GPT's dropout layers are
            self.W, self.U = torch.tensor(W), torch.tensor(U)
            self.log = log

        def forward(self, idx: torch.Tensor, targets: object = None) -> tuple:
            log.append(
                {
                    "ids": idx.detach().cpu().to(torch.int64).numpy().copy(),
                    "training": any(m.training for m in self.modules()),
                    "grad": torch.is_grad_enabled(),
                }
            )
            if idx.shape[1] > self.block_size:
                raise ValueError(
                    f"the model was given {idx.shape[1]} ids; it reads at most "
                    f"block_size = {self.block_size}"
                )
            return self.W[idx] + self.U[idx[:, :1]], None

    return ToyLM()


def _mode(model: object) -> bool | None:
    """The model's mode, when it and every module it holds agree on it (None when they do not)."""
    modes = {m.training for m in model.modules()}
    return modes.pop() if len(modes) == 1 else None


def generate_probe(
    fn: Callable,
    W: np.ndarray,
    U: np.ndarray,
    block_size: int,
    idx: np.ndarray,
    max_new_tokens: int,
    seeds: list[int],
    train_mode: bool,
) -> dict:
    """Run generate on the toy model once per seed; report outputs, the contexts fed, modes."""
    import torch

    before = _seed_globals()
    runs = []
    for seed in seeds:
        model = _toy_model(W, U, block_size)
        model.train(train_mode)
        start = torch.tensor(idx, dtype=torch.int64)
        out = fn(model, start, max_new_tokens, torch.Generator().manual_seed(seed))
        log = model.log
        runs.append(
            {
                "out": _to_plain(out),
                "type": _describe(out),
                "contexts": [entry["ids"] for entry in log],
                "training": [entry["training"] for entry in log],
                "grad": [entry["grad"] for entry in log],
                "mode_after": _mode(model),
                "idx_after": _to_plain(start),
            }
        )
    return {"runs": runs, "global_moved": _global_states() != before}


# ---------------------------------------------------------------- train_gpt


# the probe's parameters, by role: the layer or box that holds each, and its attribute there ("l1",
# "l2", "l3" are slots of a box, whose names the spec draws: each names a vector in one box and a
# matrix or a stack of matrices in the other)
PROBE_ROLES = {
    "emb.weight": ("emb", "weight"),
    "norm.weight": ("norm", "weight"),
    "norm.bias": ("norm", "bias"),
    "rms.weight": ("rms", "weight"),
    "lin.weight": ("lin", "weight"),
    "lin.bias": ("lin", "bias"),
    "a.gain": ("a", "l1"),
    "a.mix": ("a", "l2"),
    "a.stack4": ("a", "l3"),
    "b.stack3": ("b", "l1"),
    "b.offset": ("b", "l2"),
    "b.shift": ("b", "l3"),
}


def probe_parameters(model: object, spec: dict) -> dict:
    """The probe's parameters by role ("emb.weight", ..., "b.shift"), whatever the spec names them."""
    names = spec["names"]
    found = {}
    for role, (holder, attribute) in PROBE_ROLES.items():
        owner = getattr(model, names[holder])
        found[role] = getattr(owner, names.get(attribute, attribute))
    return found


def training_model(kind: str, spec: dict) -> object:
    """A trusted model for train_gpt's checks, built alike on both sides of the wall (float64).

    It holds an embedding, a LayerNorm, an RMSNorm and a linear layer, and two boxes of raw
    tensors that no PyTorch layer holds: a (C, C) matrix, stacks of matrices (2, C, C) and
    (2, 1, C, C), and three vectors of one number per feature. `spec["names"]` names each layer,
    box and slot (drawn per check; a slot's name is a vector in one box and a matrix in the
    other), the layers and boxes are registered in the order `spec["order"]`, and V and C vary:
    the loop trains any model, so what a tensor is, not its module, its name, its place or its
    size, sets its decay.
    "linear": the loss of the t-th call is sum over parameters of (spec["grads"][role][t] * p), so
    each call's gradient is set by the check (constant, zero or varying); "lm": a tiny language
    model whose logits are lin(h @ mix * gain + the stacks' products + offset + shift) with
    h = rms(norm(emb(idx))), mean cross-entropy, lin's weight tied to emb's (a loop that collects
    a tied tensor twice, walking the modules, steps it twice). `spec["weights"]` sets every parameter, by role.
    model(idx, targets) returns (logits, loss), as a GPT does; each call with gradients enabled (a
    training step's) logs the batch, the mode, the loss and the parameters as they stood.
    """
    import torch
    import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

    V, C, names = spec["vocab"], spec["width"], spec["names"]
    shapes = {role: np.shape(w) for role, w in spec["weights"].items()}
    if kind != "lm":  # each call's gradient, as tensors once
        grads = {
            role: torch.tensor(np.asarray(g, dtype=np.float64)) for role, g in spec["grads"].items()
        }
        steps = len(grads["emb.weight"])

    def box(roles: list[str]) -> torch.nn.Module:
        held = torch.nn.Module()
        for role in roles:
            slot = names[PROBE_ROLES[role][1]]
            setattr(held, slot, torch.nn.Parameter(torch.empty(shapes[role])))
        return held

    makers = {
        "emb": lambda: torch.nn.Embedding(V, C),
        "norm": lambda: torch.nn.LayerNorm(C),
        "rms": lambda: torch.nn.RMSNorm(C),
        "lin": lambda: torch.nn.Linear(C, V),
        "a": lambda: box(["a.gain", "a.mix", "a.stack4"]),
        "b": lambda: box(["b.stack3", "b.offset", "b.shift"]),
    }

    class Probe(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for holder in spec["order"]:
                setattr(self, names[holder], makers[holder]())
            self.double()
            with torch.no_grad():
                for role, p in probe_parameters(self, spec).items():
                    p.copy_(torch.tensor(np.asarray(spec["weights"][role], dtype=np.float64)))
            if kind == "lm":  # tied, as a GPT's head and embedding are: one tensor, one step
                getattr(self, names["lin"]).weight = getattr(self, names["emb"]).weight
            self.log: list[dict] = []

        def flat(self) -> np.ndarray:
            return torch.cat([p.detach().flatten() for p in self.parameters()]).cpu().numpy()

        def forward(self, idx: torch.Tensor, targets: object = None) -> tuple:
            y = targets
            if not isinstance(y, torch.Tensor):
                raise ValueError("this model needs the targets as well: model(idx, targets)")
            p = probe_parameters(self, spec)
            if kind == "lm":
                layer = {holder: getattr(self, names[holder]) for holder in ("emb", "norm", "rms")}
                h = layer["rms"](layer["norm"](layer["emb"](idx)))  # (B, T, C)
                h = (
                    h @ p["a.mix"] * p["a.gain"]
                    + torch.einsum("btc,kcd->btd", h, p["b.stack3"])
                    + torch.einsum("btc,kjcd->btd", h, p["a.stack4"])
                    + p["b.offset"]
                    + p["b.shift"]
                )
                logits = getattr(self, names["lin"])(h)  # (B, T, V)
                loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
            else:  # the loss alone sets the gradients: the logits are not computed
                logits = torch.zeros(*idx.shape, V, dtype=torch.float64)
                t = min(len(self.log), steps - 1)
                loss = sum((grads[role][t] * q).sum() for role, q in p.items())
            if not torch.is_grad_enabled():  # an evaluation of the student's own: not a step
                return logits, loss
            self.log.append(
                {
                    "x": _to_plain(idx),
                    "y": _to_plain(y),
                    "params": self.flat(),
                    "mode": self.training,
                    "loss": float(loss.item()),
                }
            )
            return logits, loss

    return Probe()


def train_probe(
    fn: Callable,
    kind: str,
    spec: dict,
    data: np.ndarray,
    block_size: int,
    recipe: dict,
    seed: int,
    max_grad_norm: float | None,
) -> dict:
    """Train a probe model with the student's loop (`max_grad_norm` None: the argument left out, as
    a caller keeping the default does); report the calls it saw and where it ended."""
    import dataclasses

    import torch

    # the fields of the chapter's Recipe (proof_lm.training), frozen like it: the sandbox's
    # grading code imports nothing of the project outside autograder.sandbox.guest
    Recipe = dataclasses.make_dataclass("Recipe", list(recipe), frozen=True)
    model = training_model(kind, spec)
    if spec.get("eval_first"):
        model.eval()  # as generate leaves a model: the loop must switch it to training mode
    returned = fn(
        model,
        torch.tensor(data, dtype=torch.int64),
        block_size,
        Recipe(**recipe),
        torch.Generator().manual_seed(seed),
        **({} if max_grad_norm is None else {"max_grad_norm": max_grad_norm}),
    )
    numbers = isinstance(returned, list) and all(type(v) in (float, int) for v in returned)
    return {
        "returned": [float(v) for v in returned] if numbers else None,
        "returned_type": _describe(returned)
        + (f" of {sorted({_describe(v) for v in returned})}" if isinstance(returned, list) else ""),
        "calls": model.log,
        "final": model.flat(),
    }
