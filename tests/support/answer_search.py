"""The search for what answers an exercise: every candidate the environment ships, called through adapters on the exercise's check inputs."""

import copy
import functools
import inspect
import signal
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import torch
import torch._dynamo  # an optimizer's first construction imports it: never under _attempt's timer
from conftest import REPO

from autograder.judge.checks.parameter_budget_shared import widest
from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.references import reference_solutions
from autograder.judge.session import build_checks

SEED = 0


CALLS = 3  # check inputs tried per exercise


def _reference(exercise: str):
    chapter = get_exercise(exercise).chapter
    space: dict = {}
    exec(get_exercise(exercise).preamble, space)
    for source in reference_solutions(chapter).values():
        exec(source, space)
    return space[exercise]


def check_inputs(exercise: str) -> list[tuple[tuple, dict, object]]:
    """(args, kwargs, reference answer) for the exercise's plain calls the reference answers."""
    return copy.deepcopy(_check_inputs(exercise))  # a copy: no caller's call changes the next's


@functools.cache
def _check_inputs(exercise: str) -> list[tuple[tuple, dict, object]]:
    fn, found = _reference(exercise), []
    calls = [
        call
        for check in build_checks(get_exercise(exercise), SEED)
        for call in check.calls
        if call.probe is None
    ]
    # exercises checked through probes declare plain calls: their chapter's worked examples
    examples = get_exercise(exercise).worked_examples
    calls += [types.SimpleNamespace(args=args, kwargs={}) for args in examples]
    for call in calls:
        if len(found) >= CALLS:
            break
        try:
            with np.errstate(all="ignore"):
                expected = fn(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))
        except Exception:
            continue
        found.append((call.args, call.kwargs, expected))  # never handed out: check_inputs copies
    return found


def _numpy(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.detach().double().numpy() if value.is_floating_point() else value.numpy()
    if isinstance(value, tuple | list):
        return type(value)(_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    return value


def _close(a: object, b: object) -> bool:
    if isinstance(b, str | bytes):
        return type(a) is type(b) and a == b
    if isinstance(b, tuple | list):
        return (
            isinstance(a, tuple | list)
            and len(a) == len(b)
            and all(_close(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() >= b.keys() and all(_close(a[k], b[k]) for k in b)
    try:
        x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return x.shape == y.shape and x.size > 0 and bool(np.allclose(x, y, rtol=1e-6, atol=1e-9))


def _parts(expected: object) -> list[object]:
    """The answer and each of its parts worth computing (arrays, losses)."""
    parts = [expected]
    if isinstance(expected, tuple | list):
        parts += [p for p in expected if not isinstance(p, int | bool)]
    return parts


def reproduces(output: object, expected: object) -> bool:
    """True when `output` is the answer or one of its parts."""
    output = _numpy(output)
    return any(_close(output, part) for part in _parts(expected))


def _tensor(value: object) -> object:
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.array(value, copy=True))
    return value


SYNONYMS = {  # a candidate's parameter name -> the exercise's argument it stands for
    "input": ("x", "logits", "counts", "probs", "table"),
    "target": ("targets", "Y"),
    "dim": ("axis",),
    "weight": ("gamma",),
    "bias": ("beta",),
    "query": ("q",),
    "key": ("k",),
    "value": ("v",),
    "top_k": ("k",),
    "top_p": ("p",),
}


@functools.cache
def _parameter_names(exercise: str) -> tuple[str, ...]:
    """The reference's parameter names, in order (the reference is built once per exercise)."""
    return tuple(inspect.signature(_reference(exercise)).parameters)


def _named_arguments(exercise: str, args: tuple, kwargs: dict) -> dict:
    return dict(zip(_parameter_names(exercise), args, strict=False)) | kwargs


def _by_signature(candidate, given: dict, convert) -> object:
    """Call `candidate` with the exercise's arguments matched to its parameter names."""
    parameters = inspect.signature(candidate).parameters
    call = {}
    for name, parameter in parameters.items():
        options = (name, *SYNONYMS.get(name, ()))
        match = next((given[o] for o in options if o in given), inspect.Parameter.empty)
        if match is inspect.Parameter.empty:
            if parameter.default is inspect.Parameter.empty and parameter.kind not in (
                inspect.Parameter.VAR_POSITIONAL,
                inspect.Parameter.VAR_KEYWORD,
            ):
                raise TypeError("no argument for " + name)
            continue
        call[name] = convert(match)
    if not call:
        raise TypeError("nothing to pass")
    return candidate(**call)


def _formulas(exercise: str, args: tuple, kwargs: dict, convert) -> list:
    """The contract's one-line formulas around a candidate, as callables of the candidate."""
    g = _named_arguments(exercise, args, kwargs)
    t = convert
    exp = torch.exp if convert is _tensor else np.exp
    out = []
    if exercise == "softmax":
        axis = g.get("axis", -1)
        out += [
            lambda c: c(t(g["logits"]), axis),
            lambda c: exp(c(t(g["logits"]), axis)),
            lambda c: c(t(g["logits"]), dim=axis),
            lambda c: exp(c(t(g["logits"]), dim=axis)),
        ]
    if exercise == "temperature_probs":
        scaled = np.asarray(g["logits"], dtype=np.float64) / g["temperature"]
        out += [
            lambda c: c(t(scaled), -1),
            lambda c: exp(c(t(scaled), -1)),
            lambda c: c(t(scaled)),
            lambda c: exp(c(t(scaled))),
        ]
    if exercise == "cross_entropy":
        logits = np.asarray(g["logits"], dtype=np.float64)
        rows = np.arange(len(g["targets"]))

        def picked(c, *extra):
            return -_numpy(c(t(logits), *extra))[rows, g["targets"]].mean()

        out += [lambda c: picked(c), lambda c: picked(c, -1), lambda c: picked(c, 1)]
        out += [lambda c: c(t(logits), t(np.asarray(g["targets"], dtype=np.int64)))]
    if exercise == "perplexity":
        out += [lambda c: c(float(-np.mean(np.log(g["token_probs"]))))]
    if exercise == "bigram_loss_and_grad":
        table, previous, targets = g["table"], g["previous"], g["targets"]
        onehot = np.eye(len(table))[previous]

        def scattered(c):
            grad = np.zeros(table.shape)
            np.add.at(grad, previous, _numpy(c(t(table[previous]), t(targets))))
            return grad

        out += [
            lambda c: (lambda r: (r[0], r[1]["W"]))(
                c({"W": table, "b": np.zeros(len(table))}, onehot, targets)
            ),
            scattered,
        ]
    if exercise == "linear_loss_and_grad":
        W, b, inputs, targets = g["weights"], g["bias"], g["inputs"], g["targets"]

        def from_logit_grad(c):
            dz = _numpy(c(t(inputs @ W + b), t(targets)))
            return (None, inputs.T @ dz, dz.sum(axis=0))

        out += [
            lambda c: (lambda r: (r[0], r[1]["W"], r[1]["b"]))(
                c({"W": W, "b": b}, inputs, targets)
            ),
            lambda c: from_logit_grad(c)[1],
        ]
    if exercise in ("nplm_loss", "nplm_grads"):
        out += [lambda c: c(g["P"], g["X"]), lambda c: c(g["P"], g["X"], g["Y"])]
    if exercise == "nplm_params":
        V, d, n, direct = g["V"], g["d"], g["n"], g.get("direct", False)

        def sizes(
            c, dh: int
        ) -> int:  # the initialiser's arrays, and the direct weights it never makes
            P = c(V, d, n - 1, dh, np.random.default_rng(0))
            return sum(np.size(v) for v in P.values() if v is not None) + V * (n - 1) * d * direct

        out += [lambda c: fitted_widest(lambda dh: sizes(c, dh), g["budget"], 1)]
    if exercise == "layer_norm":
        x = np.asarray(g["x"], dtype=np.float64)
        C = x.shape[-1]
        eps = g.get("eps", 1e-5)
        out += [
            lambda c: c(t(x), (C,), t(g["gamma"]), t(g["beta"]), eps),
            lambda c: _numpy(c(t(x.reshape(-1, C)), 1, t(g["gamma"]), t(g["beta"]), eps)).reshape(
                x.shape
            ),
        ]
    if exercise == "batchnorm_forward":
        out += [
            lambda c: c(
                t(g["x"]),
                t(g["running_mean"]),
                t(g["running_var"]),
                t(g["gamma"]),
                t(g["beta"]),
                g.get("training", True),
                g.get("momentum", 0.1),
                g.get("eps", 1e-5),
            )
        ]
    if exercise == "causal_attention":
        out += [lambda c: c(t(g["q"]), t(g["k"]), t(g["v"]), is_causal=True)]
    return out


def adapted_calls(exercise: str, candidate, is_torch: bool, args: tuple, kwargs: dict) -> list:
    """Zero-argument callables: `candidate` called on the inputs in every adapted way."""
    convert = _tensor if is_torch else (lambda v: v)
    given = _named_arguments(exercise, args, kwargs)
    calls = [
        lambda: candidate(*map(convert, copy.deepcopy(args)), **copy.deepcopy(kwargs)),
        lambda: _by_signature(candidate, copy.deepcopy(given), convert),
    ]
    formulas = _formulas(exercise, copy.deepcopy(args), copy.deepcopy(kwargs), convert)
    calls += [lambda f=f: f(candidate) for f in formulas]
    return calls


# The library's classes, built into what could answer an exercise; a class not here needs a reason.
def _context_mlp(g: dict, direct: bool | None = None) -> torch.nn.Module:
    from proof_lm.baselines import TorchContextMLP

    P = g["P"]
    model = TorchContextMLP(
        P["E"].shape[0], g["X"].shape[1], P["E"].shape[1], P["W1"].shape[1], P.get("W3") is not None
    ).double()
    with torch.no_grad():
        model.embedding.weight.copy_(torch.from_numpy(P["E"]))
        model.hidden.weight.copy_(torch.from_numpy(P["W1"].T))
        model.hidden.bias.copy_(torch.from_numpy(P["b1"]))
        model.output.weight.copy_(torch.from_numpy(P["W2"].T))
        model.output.bias.copy_(torch.from_numpy(P["b2"]))
        if P.get("W3") is not None:
            model.direct.weight.copy_(torch.from_numpy(P["W3"].T))
    return model


def _count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def fitted_widest(count, budget: int, step: int) -> int | None:
    """The widest multiple of `step` within `budget` for a count of degree two at most in the
    width, read at three widths (Newton's differences: exact in integers) and inverted: what a
    model class of the right shape answers for a parameter budget, though no width so large can
    be built."""
    y = [count(k * step) for k in (1, 2, 3)]

    def fitted(C: int) -> int:
        k = C // step
        return y[0] + (k - 1) * (y[1] - y[0]) + (k - 1) * (k - 2) // 2 * (y[2] - 2 * y[1] + y[0])

    return widest(fitted, budget, step)


CLASS_ADAPTERS = {
    "baselines:TorchContextMLP": {
        "nplm_params": lambda cls, g: fitted_widest(
            lambda dh: _count(cls(g["V"], g["n"] - 1, g["d"], dh, g.get("direct", False))),
            g["budget"],
            1,
        ),
        "nplm_loss": lambda cls, g: _context_mlp(g)(
            torch.from_numpy(np.asarray(g["X"], dtype=np.int64))
        ),
    },
    "gpt:TinyGPT": {
        "gpt_params": lambda cls, g: fitted_widest(
            lambda C: _count(cls(g["V"], g["T"], C, g["n_layers"], g["n_heads"])),
            g["budget"],
            g["n_heads"],
        ),
    },
    "gpt2:CausalSelfAttention": {"multi_head_attention": "_fused_mha"},
}


def _fused_mha(cls, g: dict) -> object:
    """Chapter 08's attention (one fused qkv layer, biases at 0) with the exercise's weights."""
    x = torch.from_numpy(np.asarray(g["x"], dtype=np.float64))
    C = x.shape[-1]
    module = cls(C, g["n_heads"], x.shape[-2]).double()
    W = [torch.from_numpy(np.asarray(g[k], dtype=np.float64)) for k in ("Wq", "Wk", "Wv", "Wo")]
    with torch.no_grad():
        module.qkv.weight.copy_(torch.cat(W[:3], dim=1).T)
        module.qkv.bias.zero_()
        module.proj.weight.copy_(W[3].T)
        module.proj.bias.zero_()
    return module.eval()(x)


class _Timeout(Exception):
    pass


def _attempt(call) -> object:
    """The result of one adapted call, or None when it raised or took over a second.

    The timer interrupts whatever runs: a module imported for the first time within the call would
    be left half-imported for the rest of the process (hence torch._dynamo imported above).
    """

    def stop(*_):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), torch.no_grad():
            warnings.simplefilter("ignore")
            return call()
    except Exception:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _class_calls(key: str, cls, exercise: str, args: tuple, kwargs: dict) -> list:
    adapter = CLASS_ADAPTERS.get(key, {}).get(exercise)
    if adapter is None:
        return []
    adapter = (
        {"_fused_mha": _fused_mha}.get(adapter, adapter) if isinstance(adapter, str) else adapter
    )
    given = _named_arguments(exercise, args, kwargs)
    return [lambda: adapter(cls, copy.deepcopy(given))]


def _torch_module_calls(cls, exercise: str, args: tuple, kwargs: dict) -> list:
    """nn.Softmax-like classes: built with the exercise's axis, then called like functions."""
    given = _named_arguments(exercise, args, kwargs)
    axis = given.get("axis", -1)
    instances = []
    for build in (lambda: cls(dim=axis), lambda: cls()):
        try:
            instances.append(build())
        except Exception:
            continue
    calls = []
    for instance in instances:
        calls += adapted_calls(exercise, instance, True, args, kwargs)
    return calls


def search(
    exercise: str, candidates: dict, is_torch: bool, tensors: bool = False
) -> dict[str, list[int]]:
    """The candidates that reproduce the answer on most inputs (two at least): {name: [adapter used]}.

    `tensors`: each function is called with the arguments as given and again as tensors (a routine
    written in PyTorch answers a NumPy exercise as well, one translation away).
    """
    found, count = {}, len(_check_inputs(exercise))
    for key, candidate in candidates.items():
        hits = []  # each candidate on fresh inputs: one may write into what it is handed
        for args, kwargs, expected in check_inputs(exercise):
            if inspect.isclass(candidate):
                calls = (
                    _torch_module_calls(candidate, exercise, args, kwargs)
                    if is_torch
                    else _class_calls(key, candidate, exercise, args, kwargs)
                )
            else:
                calls = adapted_calls(exercise, candidate, is_torch, args, kwargs)
                if tensors and not is_torch:
                    calls += adapted_calls(exercise, candidate, True, args, kwargs)
            for index, call in enumerate(calls):
                result = _attempt(call)
                if result is not None and reproduces(result, expected):
                    hits.append(index)
                    break
        if len(hits) >= 2 and 2 * len(hits) > count:  # most inputs: no edge-case coincidence
            found[key] = hits
    return found


GRADED = sorted(name for name in EXERCISES if name not in ("sample_next", "sgd_train"))


GUARDED = """
import contextlib, gc, importlib, sys
import torch
import torch.nn.functional as F
from torch import nn
from autograder.sandbox.guest import answer_guard

answer_guard.install("CausalSelfAttention")
q = k = v = torch.randn(1, 2, 4, 4)
{attempt}
"""

# One process installs the guard (importing what optimizers load: 1.5 s), then runs each attempt
# in a copy of itself, forked as the grading process forks its copies: each attempt alone, from
# its file (TorchScript reads its source), its output in files beside it; prints each exit status.
GUARDED_COPIES = """
import os, sys, traceback
import torch
from autograder.sandbox.guest import answer_guard

torch.set_num_threads(1)
answer_guard.install("CausalSelfAttention")
for path in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        for fd, suffix in ((1, ".out"), (2, ".err")):
            os.dup2(os.open(path + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
        status = 0
        try:
            exec(compile(open(path).read(), path, "exec"), {"__name__": "__main__"})
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


def run_guarded(attempts: dict[str, str], folder: Path) -> dict[str, subprocess.CompletedProcess]:
    """Run each of `attempts` after the guard is installed, each in a copy of one process that
    installed it (GUARDED_COPIES): what each printed, what it wrote to stderr, its exit status."""
    paths = []
    for index, attempt in enumerate(attempts.values()):
        paths.append(folder / f"attempt_{index}.py")
        body = GUARDED.replace('answer_guard.install("CausalSelfAttention")\n', "")
        paths[-1].write_text(body.format(attempt=attempt))
    (folder / "copies.py").write_text(GUARDED_COPIES)
    done = subprocess.run(
        [sys.executable, str(folder / "copies.py"), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(REPO),
    )
    statuses = done.stdout.split()
    assert len(statuses) == len(paths), done.stderr[-800:]
    return {
        name: subprocess.CompletedProcess(
            [str(path)],
            int(status),
            Path(f"{path}.out").read_text(),
            Path(f"{path}.err").read_text(),
        )
        for name, path, status in zip(attempts, paths, statuses, strict=True)
    }


def _run_guarded(attempt: str, folder: Path) -> subprocess.CompletedProcess:
    """Run `attempt` after the guard is installed (`run_guarded`, one attempt)."""
    return run_guarded({"attempt": attempt}, folder)["attempt"]
