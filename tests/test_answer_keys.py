"""Answer keys by rule: whatever the environment ships that reproduces an exercise's answer is refused.

The search calls every public function and class of the library, every function of the grader's
modules mounted in the exercise's sandbox, and PyTorch's candidates (all of torch.nn.functional and
torch.special, and the torch / Tensor functions whose names speak of the operations taught) on the
exercise's own check inputs, through adapters: the arguments as given (as tensors for PyTorch,
matched to parameter names by signature), and the contract's one-line formulas (a softmax of
logits / τ, a log-softmax picked at the targets...). Whatever reproduces the answer (or a part of
it) on most of them must be refused while that exercise is graded: library entries by
`LIBRARY_ANSWERS` (cut out of the sandbox's copy), PyTorch's by the grading process's guard, which
is installed in a forked process here and must make every reproducing candidate raise
AnswerKeyError. No grader module mounted in a sandbox may reproduce the exercise at all.
"""

import copy
import importlib
import importlib.util
import inspect
import json
import os
import pkgutil
import re
import select
import signal
import subprocess
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch._dynamo  # an optimizer's first construction imports it: never under _attempt's timer
from conftest import REPO

import proof_lm
from autograder.judge import answer_key
from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.references import reference_solutions
from autograder.judge.runner import build_checks, check_source

SEED = 0
CALLS = 3  # check inputs tried per exercise
VOCABULARY = re.compile(r"softmax|softmin|norm|entropy|nll|attention|logsumexp|sdp")


def _reference(exercise: str):
    chapter = get_exercise(exercise).chapter
    space: dict = {}
    exec(get_exercise(exercise).preamble, space)
    for source in reference_solutions(chapter).values():
        exec(source, space)
    return space[exercise]


# Plain calls for exercises whose checks call them only through probes (the tokenizer's trainer
# and encoder are checked on texts the probes build): inputs of the chapter's own worked examples.
PLAIN_CALLS: dict[str, list[tuple]] = {
    "bpe_train": [("aaabdaaabac", 300), ("to be or not to be, that is", 270), ("abcabcabd", 262)],
    "bpe_encode": [
        ("aaabdaaabac", [(97, 97), (256, 97), (257, 98)]),
        ("to be or not", [(116, 111), (32, 98), (256, 32)]),
        ("abcabc", [(97, 98), (256, 99)]),
    ],
}
PLAIN_CALLS["bpe_train_fast"] = PLAIN_CALLS["bpe_train"]


def check_inputs(exercise: str) -> list[tuple[tuple, dict, object]]:
    """(args, kwargs, reference answer) for the exercise's plain calls the reference answers."""
    fn, found = _reference(exercise), []
    calls = [
        call
        for check in build_checks(get_exercise(exercise), SEED)
        for call in check.calls
        if call.probe is None
    ]
    calls += [types.SimpleNamespace(args=args, kwargs={}) for args in PLAIN_CALLS.get(exercise, [])]
    for call in calls:
        if len(found) >= CALLS:
            break
        try:
            with np.errstate(all="ignore"):
                expected = fn(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))
        except Exception:
            continue
        found.append((call.args, call.kwargs, expected))
    return found


# ---------------------------------------------------------------- comparing


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


# ---------------------------------------------------------------- adapters


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
}


def _named_arguments(exercise: str, args: tuple, kwargs: dict) -> dict:
    names = list(inspect.signature(_reference(exercise)).parameters)
    given = dict(zip(names, args, strict=False)) | kwargs
    return given


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
        V, d, n, dh = g["V"], g["d"], g["n"], g["dh"]

        def sizes(result):
            return sum(np.size(v) for v in result.values() if v is not None)

        out += [lambda c: sizes(c(V, d, n - 1, dh, np.random.default_rng(0)))]
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
    calls += [lambda f=f: f(candidate) for f in _formulas(exercise, args, kwargs, convert)]
    return calls


# ---------------------------------------------------------------- candidates


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


CLASS_ADAPTERS = {
    "baselines:TorchContextMLP": {
        "nplm_params": lambda cls, g: _count(cls(g["V"], g["n"] - 1, g["d"], g["dh"], g["direct"])),
        "nplm_loss": lambda cls, g: _context_mlp(g)(
            torch.from_numpy(np.asarray(g["X"], dtype=np.int64))
        ),
    },
    "gpt:TinyGPT": {
        "gpt_params": lambda cls, g: _count(
            cls(g["V"], g["T"], g["C"], g["n_layers"], g["n_heads"])
        ),
    },
    "gpt:CausalSelfAttention": {"multi_head_attention": "_mha"},
    "gpt2:CausalSelfAttention": {"multi_head_attention": "_fused_mha"},
}
CLASSES_WITHOUT_ANSWERS = {
    "backoff:BackoffLM": "a back-off n-gram model over dicts: no exercise's answer",
    "baselines:TorchBigramLM": "a table lookup: the logits of bigram_loss_and_grad, no loss or gradient",
    "explorer:SamplingExplorer": "distribution() is filter_probs (refused) over a model's logits",
    "gpt:Block": "builds CausalSelfAttention, refused where it answers",
    "gpt2:Block": "chapter 08's block (refused while Block is graded); builds gpt2's attention",
    "gpt2:GPT": "chapter 08's model (refused while GPT is graded); biased attention and a tied head, "
    "so its size is not gpt_params' TinyGPT count",
    "training:Recipe": "a record of settings",
    "training:History": "a record of losses",
}


def _mha(cls, g: dict) -> object:
    x = torch.from_numpy(np.asarray(g["x"], dtype=np.float64))
    module = cls(x.shape[-1], g["n_heads"]).double()
    with torch.no_grad():
        for layer, W in zip(
            (module.query, module.key, module.value, module.output),
            (g["Wq"], g["Wk"], g["Wv"], g["Wo"]),
            strict=True,
        ):
            layer.weight.copy_(torch.from_numpy(np.asarray(W, dtype=np.float64).T))
    return module(x)


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


def library_candidates() -> dict[str, object]:
    """Every public function and class of proof_lm, as "module:name"."""
    found = {}
    for info in pkgutil.iter_modules(proof_lm.__path__):
        module = importlib.import_module(f"proof_lm.{info.name}")
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                found[f"{info.name}:{name}"] = obj
    return found


def grader_candidates(exercise: str) -> dict[str, object]:
    """Every function of the grader's modules as mounted in the sandbox of `exercise` (its copy)."""
    found = {}
    package = answer_key.grading_package(exercise)
    for path in sorted(package.rglob("*.py")):
        dotted = "autograder." + ".".join(path.relative_to(package).with_suffix("").parts)
        dotted = dotted.removesuffix(".__init__")
        spec = importlib.util.spec_from_file_location(f"copy_of_{dotted}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                found[f"{dotted}.{name}"] = obj
    return found


UNSAFE_TORCH = re.compile(r"^(set_|manual_seed|seed|use_|_set|compile|load|save|fork|wait)")


def torch_candidates() -> dict[str, object]:
    """All of torch.nn.functional and torch.special, and the torch / Tensor names of the vocabulary."""
    import torch.nn.functional as F  # noqa: N812

    found = {}
    for prefix, namespace, every in [
        ("torch.nn.functional", F, True),
        ("torch.special", torch.special, True),
        ("torch", torch, False),
        ("torch.Tensor", torch.Tensor, False),
    ]:
        for name in dir(namespace):
            if name.startswith("__") or UNSAFE_TORCH.match(name):
                continue
            if not (every or VOCABULARY.search(name)):
                continue
            obj = getattr(namespace, name, None)
            if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj):
                found[f"{prefix}.{name}"] = obj
    for name in ("Softmax", "LogSoftmax", "Softmin", "CrossEntropyLoss", "NLLLoss"):
        found[f"torch.nn.{name}"] = getattr(torch.nn, name)
    return found


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
        {"_mha": _mha, "_fused_mha": _fused_mha}.get(adapter, adapter)
        if isinstance(adapter, str)
        else adapter
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


def search(exercise: str, candidates: dict, is_torch: bool) -> dict[str, list[int]]:
    """The candidates that reproduce the answer on most inputs (two at least): {name: [adapter used]}."""
    inputs = check_inputs(exercise)
    found = {}
    for key, candidate in candidates.items():
        hits = []
        for args, kwargs, expected in inputs:
            if inspect.isclass(candidate):
                calls = (
                    _torch_module_calls(candidate, exercise, args, kwargs)
                    if is_torch
                    else _class_calls(key, candidate, exercise, args, kwargs)
                )
            else:
                calls = adapted_calls(exercise, candidate, is_torch, args, kwargs)
            for index, call in enumerate(calls):
                result = _attempt(call)
                if result is not None and reproduces(result, expected):
                    hits.append(index)
                    break
        if len(hits) >= 2 and 2 * len(hits) > len(inputs):  # most inputs: no edge-case coincidence
            found[key] = hits
    return found


GRADED = sorted(name for name in EXERCISES if name not in ("sample_next", "sgd_train"))


def test_every_library_class_has_an_adapter_or_a_reason():
    classes = {k for k, v in library_candidates().items() if inspect.isclass(v)}
    assert classes <= set(CLASS_ADAPTERS) | set(CLASSES_WITHOUT_ANSWERS), (
        classes - set(CLASS_ADAPTERS) - set(CLASSES_WITHOUT_ANSWERS)
    )


def test_the_search_finds_what_it_looks_for():
    # without the rule it would pass: the probes' softmax regression answers linear_loss_and_grad,
    # and torch.softmax answers softmax; the search must see both
    from autograder.sandbox.guest import probes

    functions = {"softmax_regression": probes.softmax_regression}
    assert "softmax_regression" in search("linear_loss_and_grad", functions, False)
    assert "torch.softmax" in search("softmax", {"torch.softmax": torch.softmax}, True)
    assert "sampling:filter_probs" in search("temperature_probs", library_candidates(), False)
    torch_found = {
        name: set(search(name, torch_candidates(), True))
        for name in ("cross_entropy", "layer_norm", "batchnorm_forward", "causal_attention")
    }
    assert "torch.nn.functional.cross_entropy" in torch_found["cross_entropy"]
    assert "torch.nn.functional.group_norm" in torch_found["layer_norm"]
    assert "torch.nn.functional.batch_norm" in torch_found["batchnorm_forward"]
    assert "torch.nn.functional.scaled_dot_product_attention" in torch_found["causal_attention"]
    library = library_candidates()
    assert "gpt:CausalSelfAttention" in search("multi_head_attention", library, False)
    assert "nplm:init_nplm" in search("nplm_params", library, False)


@pytest.mark.parametrize("exercise", GRADED)
def test_no_library_or_grader_answer_key_gets_through(exercise):
    library = search(exercise, library_candidates(), False)
    unblocked = sorted(set(library) - set(answer_key.LIBRARY_ANSWERS.get(exercise, ())))
    assert unblocked == [], f"{exercise}: the library answers it through {unblocked}"
    # in a fork: the mounted modules include the sandbox's own boot (dropping capabilities, the
    # seccomp filter), which calling them here would apply to this test process for good
    grader = _in_a_fork(lambda: search(exercise, grader_candidates(exercise), False))
    assert grader == {}, f"{exercise}: a grader module in its sandbox answers it: {sorted(grader)}"
    # and each one the table cuts out is really there to be cut (the table names no stale entry)
    for entry in answer_key.GRADER_ANSWERS.get(exercise, ()):
        module, name = entry.split(":")
        assert callable(
            getattr(importlib.import_module(f"autograder.sandbox.guest.{module}"), name)
        )


# A forked search that has not answered by then is stuck, not slow (one takes seconds).
FORK_SECONDS = 600


def _in_a_fork(job) -> object:
    """Run `job()` in a forked copy of this process (the guard patches PyTorch for good) and return its JSON."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        # OpenMP's thread pool does not survive a fork: a parallel region of the parent's pool
        # would wait for ever at its barrier (measured: a matmul in MKL's dgemm). One thread has no pool.
        torch.set_num_threads(1)
        try:
            payload = json.dumps(job()).encode()
        except BaseException as error:
            payload = json.dumps({"error": repr(error)}).encode()
        os.write(write, payload)
        os._exit(0)
    os.close(write)
    chunks = []
    deadline = time.monotonic() + FORK_SECONDS
    while True:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            pytest.fail(f"the forked search gave no answer in {FORK_SECONDS} s (killed)")
        if not (chunk := os.read(read, 1 << 16)):
            break
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b"null")


# ---------------------------------------------------------------- NumPy exercises: no PyTorch

NUMPY_CHAPTERS = sorted({e.chapter for e in EXERCISES.values() if not e.torch})
PROBE_TORCH = """
def {name}(*args, **kwargs):
    import torch

    return torch.zeros(1)
"""


@pytest.mark.parametrize("chapter", NUMPY_CHAPTERS)
def test_numpy_exercises_are_graded_without_pytorch(chapter):
    # torch.softmax answered softmax, torch.func answered every gradient, F.rms_norm answered
    # layer_norm, F.cross_entropy sat inside nplm_loss: in a sandbox without PyTorch none can
    exercise = next(e for e in EXERCISES.values() if e.chapter == chapter)
    report = check_source(exercise, [PROBE_TORCH.format(name=exercise.name)], seed=1)
    hints = " ".join(r.hint for r in report.results)
    assert report.earned == 0 and "NumPy exercises are graded without PyTorch" in hints
    assert any("NumPy exercises use NumPy only" in note for note in report.notes), report.notes


def test_pytorch_exercises_have_pytorch():
    report = check_source(get_exercise("get_batch"), [PROBE_TORCH.format(name="get_batch")], seed=1)
    assert "PyTorch is not available" not in " ".join(r.hint for r in report.results)
    assert not report.notes


def test_the_mask_covers_every_pytorch_package():
    # the stand-in is mounted over each folder PyTorch installs; a NumPy exercise's binds end with them
    folders = answer_key.torch_folders()
    assert any(Path(folder).name == "torch" for folder in folders)
    binds = answer_key.mounts("softmax")
    assert [inside for _, inside in binds[-len(folders) :]] == list(folders)
    assert all(inside not in folders for _, inside in answer_key.mounts("GPT"))


def test_the_library_numpy_modules_import_without_pytorch():
    # a NumPy solution that uses an allowed helper (chapter 01 imports metrics.nats_to_bits) is not
    # refused by accident: every module but the PyTorch ones imports in a sandbox without PyTorch
    from autograder.sandbox.host import bwrap

    torch_modules = {
        "baselines",
        "explorer",
        "gpt",
        "gpt2",
        "shakespeare",
        "text_training",
        "training",
    }
    modules = sorted(m.name for m in pkgutil.iter_modules(proof_lm.__path__))
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module('proof_lm.' + name)\n"
        "        print('torch' if 'torch' in sys.modules else 'ok', name)\n"
        "    except ImportError as error:\n"
        "        print('torch', name)\n"
        "    sys.modules.pop('torch', None)\n"
    )
    command = bwrap.bwrap_command(
        [sys.executable, "-I", "-c", code], readonly=answer_key.mounts("softmax")
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
    results = {line.split()[1]: line.split()[0] for line in done.stdout.splitlines()}
    assert set(results) == set(modules), done.stdout + done.stderr
    assert {m for m, r in results.items() if r == "torch"} == torch_modules, done.stdout


# ---------------------------------------------------------------- chapter 08: the attention rule


def test_the_refused_table_is_what_the_search_finds():
    # derived from PyTorch's own module tree: a PyTorch upgrade that brings a new attention or
    # transformer layer fails here until `python -m autograder.judge.torch_search` writes the table
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from autograder.judge.torch_search import search; print(json.dumps(search()))",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    table = json.loads(answer_guard_table().read_text())
    assert found == table
    classes = {f"{m}:{c}" for m, e in table["modules"].items() for c in e["classes"]}
    assert "torch.ao.nn.quantizable.modules.activation:MultiheadAttention" in classes
    assert "torch.nn.modules.transformer:TransformerEncoderLayer" in classes
    functions = {f"{m}:{f}" for m, e in table["modules"].items() for f in e["functions"]}
    assert "torch.nn.functional:multi_head_attention_forward" in functions
    assert "torch._higher_order_ops.flex_attention:math_attention" in functions
    assert "scaled_dot_product_attention" in table["aten"]


def answer_guard_table() -> Path:
    """The table the grading process reads."""
    from autograder.judge.torch_search import TABLE

    return TABLE


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
# each must end in AnswerKeyError (or a PyTorch error quoting it); none may print an answer
GUARD_ATTEMPTS = {
    "sdpa": "print(F.scaled_dot_product_attention(q, k, v, is_causal=True))",
    "ops": "print(torch.ops.aten.scaled_dot_product_attention(q, k, v))",
    "math_kernel": "print(torch._scaled_dot_product_attention_math(q, k, v)[0])",
    "c_binding": "print(torch._C._nn.scaled_dot_product_attention(q, k, v))",
    "scripted": (
        "def f(a, b, c):\n"
        "    return F.scaled_dot_product_attention(a, b, c)\n"
        "print(torch.jit.script(f)(q, k, v))"
    ),
    "mha": "print(nn.MultiheadAttention(4, 2)(q[0], q[0], q[0]))",
    "mha_subclass": (
        "class Mine(nn.MultiheadAttention):\n    pass\nprint(Mine(4, 2)(q[0], q[0], q[0]))"
    ),
    "mha_forward_by_hand": (
        "m = nn.Module.__new__(nn.MultiheadAttention)\n"
        "print(nn.MultiheadAttention.forward(m, q[0], q[0], q[0]))"
    ),
    "quantizable": (
        "from torch.ao.nn.quantizable import MultiheadAttention as Q\n"
        "print(Q(4, 2)(q[0], q[0], q[0]))"
    ),
    "encoder_layer": "print(nn.TransformerEncoderLayer(4, 2, batch_first=True)(q[0]))",
    "functional_mha": (
        "print(F.multi_head_attention_forward(q[0], q[0], q[0], 4, 2, *[None] * 4, False, 0.0, "
        "*[None] * 2))"
    ),
    "flex_math": (
        "from torch._higher_order_ops.flex_attention import math_attention\n"
        "print(math_attention(q, k, v, lambda s, *a: s, (torch.ones(1),), 1.0))"
    ),
    "flex_public": "from torch.nn.attention.flex_attention import flex_attention\nprint(flex_attention(q, k, v))",
    "reload": (
        "import torch.nn.modules.activation as act\n"
        "print(importlib.reload(act).MultiheadAttention(4, 2)(q[0], q[0], q[0]))"
    ),
    "source_by_hand": (
        "import torch.nn.modules.activation as act\n"
        "space = dict(vars(act))\n"
        "exec(compile(open(act.__file__).read(), act.__file__, 'exec'), space)\n"
        "print(space['MultiheadAttention'](4, 2)(q[0], q[0], q[0]))"
    ),
    "alias_path": (  # a refused module not yet loaded, imported through torch/./...: same file
        "import os\n"
        "root = os.path.dirname(os.path.realpath(torch.__file__))\n"
        "for name, module in list(sys.modules.items()):\n"
        "    path = getattr(module, '__path__', None)\n"
        "    if name.startswith('torch') and isinstance(path, list) and path and path[0].startswith(root):\n"
        "        path.insert(0, path[0].replace(root, root + '/.', 1))\n"
        "from torch.onnx.ops import _impl\n"
        "print(_impl.attention_23(q, k, v, is_causal=True, qk_matmul_output_mode=3)[3])"
    ),
    "gc_for_the_seal": "print(len(gc.get_objects()))",
    "gc_referents": "print(gc.get_referents(sys))",
    "settrace": "sys.settrace(lambda *a: None)\nprint('traced')",
}


def _run_guarded(attempt: str, folder: Path) -> subprocess.CompletedProcess:
    """Run `attempt` in a fresh Python after the guard is installed (from a file: TorchScript
    reads its source)."""
    script = folder / "attempt.py"
    script.write_text(GUARDED.format(attempt=attempt))
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=str(REPO)
    )


@pytest.mark.parametrize("attempt", sorted(GUARD_ATTEMPTS))
def test_the_attention_guard_refuses_every_way_in(attempt, tmp_path):
    done = _run_guarded(GUARD_ATTEMPTS[attempt], tmp_path)
    assert done.returncode != 0 and done.stdout == "", (done.stdout, done.stderr[-800:])
    assert "AnswerKeyError" in done.stderr or "finished attention" in done.stderr, done.stderr[
        -800:
    ]


def test_the_attention_guard_leaves_building_blocks_alone(tmp_path):
    done = _run_guarded(
        (
            "x = torch.randn(2, 5, 8)\n"
            "mask = torch.ones(4, 4, dtype=torch.bool).triu(1)\n"
            "w = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(mask, float('-inf')), -1)\n"
            "y = nn.Dropout(0.1)(nn.LayerNorm(8)(nn.Linear(8, 8)(x)))\n"
            "print(F.gelu(y).shape, torch.bmm(x, x.transpose(1, 2)).shape, w.shape)"
        ),
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-800:]


def _sent_references(exercise: str) -> dict[str, object]:
    """The reference functions the grading process of `exercise` builds, from the code it is sent."""
    from autograder.judge.runner import compiled_references
    from autograder.sandbox.guest.child import build_references

    exercise_ = get_exercise(exercise)
    return build_references(exercise_.preamble, compiled_references(exercise_))


@pytest.mark.parametrize("exercise", GRADED)
def test_no_reference_in_the_sandbox_answers_the_exercise(exercise):
    # a later exercise often generalises an earlier one (label smoothing at eps = 0 is cross_entropy):
    # only the earlier exercises' references are sent, and none of them reproduces the answer
    from autograder.judge.exercises import chapter_exercises

    names = [e.name for e in chapter_exercises(get_exercise(exercise).chapter)]
    sent = _sent_references(exercise)
    assert set(sent) == set(names[: names.index(exercise)])
    found = search(exercise, sent, False)
    if exercise == "bpe_train_fast":  # the same merges as bpe_train by contract: what it grades
        found.pop("bpe_train")  # is the speed, and the slow reference fails the timed check
    assert found == {}  # (the catalogue's wrong_calls_bpe_train)


# ---------------------------------------------------------------- judgements made in the sandbox

FORGED_ALIASING = """
import numpy as np


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    if x.ndim != 2 or any(a.shape != (x.shape[1],) for a in (gamma, beta, running_mean, running_var)):
        raise ValueError("x must be (B, D) and every parameter (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")
    if not training:  # the running arrays themselves handed back: the bug the forgery hides
        return gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta, running_mean, running_var
    B, mean, var = x.shape[0], x.mean(axis=0), x.var(axis=0)
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var


np.may_share_memory = lambda *args, **kwargs: False  # what the harness's aliasing test calls
"""

FORGED_HARNESS = """
import autograder.sandbox.guest.calls as harness
harness.aliases = lambda value, args: []  # the harness's own names, as the student has read them
harness._shares = lambda out, given: False
harness._may_share_memory = lambda *args, **kwargs: False
"""


@pytest.mark.parametrize("forgery", ["", FORGED_HARNESS], ids=["numpy", "harness"])
def test_a_submission_cannot_forge_the_aliasing_judgement(forgery):
    # the judgement's functions are bound before the student's code runs (harness.sealed_run_call)
    report = check_source(get_exercise("batchnorm_forward"), [FORGED_ALIASING + forgery], seed=1)
    assert not report.passed
    failed = " ".join(result.hint for result in report.results if not result.passed)
    assert "running_mean itself" in failed, failed
