"""Answer keys by rule: whatever the environment ships that reproduces an exercise's answer is refused.

The search calls every public function and class of the library (with the arguments as given and
again as tensors: PyTorch code answers a NumPy exercise one translation away), every function of the grader's
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
from pathlib import Path

import pytest
import torch
import torch._dynamo  # an optimizer's first construction imports it: never under _attempt's timer
from conftest import REPO
from support.answer_search import (
    CLASS_ADAPTERS,
    GRADED,
    GUARDED,
    run_guarded,
    search,
)

import proof_lm
from autograder.judge import answer_key, mounted
from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.runner import check_source

VOCABULARY = re.compile(r"softmax|softmin|norm|entropy|nll|attention|logsumexp|sdp")


# ---------------------------------------------------------------- comparing


# ---------------------------------------------------------------- adapters


# ---------------------------------------------------------------- candidates


CLASSES_WITHOUT_ANSWERS = {
    "backoff:BackoffLM": "a back-off n-gram model over dicts: no exercise's answer",
    "baselines:TorchBigramLM": "a table lookup: the logits of bigram_loss_and_grad, no loss or gradient",
    "explorer:SamplingExplorer": "its distribution and names are the draws of the sample_next it is "
    "given (the student's)",
    "gpt2:Block": "chapter 08's block (refused while Block is graded); builds gpt2's attention",
    "gpt2:GPT": "chapter 08's model (refused while GPT is graded); biased attention and a tied head: "
    "counted at small widths, gpt_params' count with both options, one of the four kinds its "
    "checks ask for",
    "training:Recipe": "a record of settings",
    "training:History": "a record of losses",
}


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
    package = mounted.grading_package(exercise)
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
    assert "gpt2:CausalSelfAttention" in search("multi_head_attention", library, False)
    assert "nplm:init_nplm" in search("nplm_params", library, False)


@pytest.mark.parametrize("exercise", GRADED)
def test_no_library_or_grader_answer_key_gets_through(exercise):
    library = search(exercise, library_candidates(), False, tensors=True)
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
    folders = mounted.torch_folders()
    assert any(Path(folder).name == "torch" for folder in folders)
    binds = mounted.mounts("softmax")
    assert [inside for _, inside in binds[-len(folders) :]] == list(folders)
    assert all(inside not in folders for _, inside in mounted.mounts("GPT"))


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
        [sys.executable, "-I", "-c", code], readonly=mounted.mounts("softmax")
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


# torch._inductor's fused-attention pattern 18 (a GPT-2 attention in building blocks: scores, scale,
# causal mask, softmax; nothing in its name says attention), reached with stubs put in sys.modules
# for what its module imports, so that only its own file runs
SFDP_PATTERN = """
import collections, os, sys, types

def _stub(name, path=None, **attributes):
    module = types.ModuleType(name)
    if path is not None:
        module.__path__ = [path]
    module.__dict__.update(attributes)
    sys.modules[name] = module

_root = os.path.dirname(torch.__file__)
_stub("torch._inductor", os.path.join(_root, "_inductor"))
_stub("torch._inductor.fx_passes", os.path.join(_root, "_inductor", "fx_passes"))
_stub(
    "torch._inductor.pattern_matcher",
    **dict.fromkeys(("filter_nodes", "fwd_only", "gen_register_replacement", "joint_fwd_bwd"), None),
)
if "torch._dynamo" not in sys.modules:
    _stub("torch._dynamo", os.path.join(_root, "_dynamo"))
    _stub("torch._dynamo.utils", counters=collections.defaultdict(collections.Counter))
from torch._inductor.fx_passes.fuse_attention import _sfdp_pattern_18
"""
SFDP_CALL = (  # queries, keys and values (B, T, H, D), the mask True where j <= t
    "x = torch.randn(1, 4, 2, 8)\n"
    "print(_sfdp_pattern_18(x, x, x, torch.ones(4, 4, dtype=torch.bool).tril(), 2.0, 0.0)[0])"
)
# the attack as a submission: chapter 08's CausalSelfAttention with its attention computed by it
SFDP_ATTENTION = """
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.register_buffer("allowed", torch.ones(block_size, block_size, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head) for t in self.qkv(x).split(C, dim=2))
        p = self.attn_dropout.p if self.training else 0.0
        y = _sfdp_pattern_18(q, k, v, self.allowed[:T, :T], math.sqrt(C // self.n_head), p)[0]
        return self.resid_dropout(self.proj(y.transpose(1, 2).reshape(B, T, C)))
"""

# each must end in AnswerKeyError (or a PyTorch error quoting it); none may print an answer
GUARD_ATTEMPTS = {
    "sfdp_pattern_18": SFDP_PATTERN + SFDP_CALL,
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
    "onnx_op": (  # loaded with what optimizers load: a custom op, whose Python function is refused
        "import torch.onnx.ops\nprint(torch.ops.onnx.Attention.opset23(q, k, v, is_causal=True)[0])"
    ),
    "gc_for_the_seal": "print(len(gc.get_objects()))",
    "gc_referents": "print(gc.get_referents(sys))",
    "settrace": "sys.settrace(lambda *a: None)\nprint('traced')",
}


@pytest.fixture(scope="module")
def guarded_attempts(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every attempt of GUARD_ATTEMPTS and what the guard leaves free (below), each in a copy of one
    process that installed the guard."""
    free = {"building blocks": BUILDING_BLOCKS, "refused packages": PACKAGES_ATTEMPT}
    return run_guarded({**GUARD_ATTEMPTS, **free}, tmp_path_factory.mktemp("guarded"))


@pytest.mark.parametrize("attempt", sorted(GUARD_ATTEMPTS))
def test_the_attention_guard_refuses_every_way_in(attempt, guarded_attempts):
    done = guarded_attempts[attempt]
    assert done.returncode != 0 and done.stdout == "", (done.stdout, done.stderr[-800:])
    assert "AnswerKeyError" in done.stderr or "finished attention" in done.stderr, done.stderr[
        -800:
    ]


def test_the_fused_attention_pattern_answers_without_the_guard(tmp_path):
    # the control of the attempt above: the same stubs and import, no guard, and it is an attention
    script = tmp_path / "unguarded.py"
    script.write_text(
        GUARDED.replace('answer_guard.install("CausalSelfAttention")', "").format(
            attempt=SFDP_PATTERN + SFDP_CALL
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=str(REPO)
    )
    assert done.returncode == 0 and "tensor(" in done.stdout, done.stderr[-800:]


def test_a_compiled_form_of_attention_earns_nothing():
    # refused by package in the real grading process, its note naming the rule and PyTorch's file
    # by its place in PyTorch, never by a path of the grading machine
    report = check_source(
        get_exercise("CausalSelfAttention"), [SFDP_PATTERN, SFDP_ATTENTION], seed=1
    )
    notes = " ".join([*report.loading, *report.notes])
    assert report.earned == 0
    assert "torch/_inductor/fx_passes/fuse_attention.py is in torch/_inductor" in notes, notes
    assert "the course's rule" in notes and str(REPO) not in notes and sys.prefix not in notes


# what the guard leaves free, run beside GUARD_ATTEMPTS (`guarded_attempts`): building blocks and
# what training is built from, optimizers (which load torch._dynamo, modules of torch._inductor and
# torch.distributed.tensor's _matrix_ops), schedulers, FLOP counting; torch.compile leaves what it
# is given as it is (a no-op: no compiler may start here)
BUILDING_BLOCKS = (
    "x = torch.randn(2, 5, 8)\n"
    "mask = torch.ones(4, 4, dtype=torch.bool).triu(1)\n"
    "w = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(mask, float('-inf')), -1)\n"
    "y = nn.Dropout(0.1)(nn.LayerNorm(8)(nn.Linear(8, 8)(x)))\n"
    "print(F.gelu(y).shape, torch.bmm(x, x.transpose(1, 2)).shape, w.shape)\n"
    "model = nn.Linear(8, 8)\n"
    "assert torch.compile(model) is model and torch.compile(mode='max-autotune')(F.gelu) is F.gelu\n"
    "model.compile()\n"
    "with torch.utils.flop_counter.FlopCounterMode(display=False) as counter:\n"
    "    model(x)\n"
    "assert counter.get_total_flops() > 0\n"
    "for Optimizer in (torch.optim.AdamW, torch.optim.SGD):\n"
    "    optimizer = Optimizer(model.parameters(), lr=1e-3)\n"
    "    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5)\n"
    "    model(x).sum().backward()\n"
    "    optimizer.step()\n"
    "    schedule.step()\n"
    "print('trained')"
)
# each refused package loads nothing more: the first of its modules not loaded, imported
PACKAGES_ATTEMPT = (
    "import pkgutil\n"
    "for package in answer_guard.REFUSED_PACKAGES:\n"
    "    name = 'torch.' + package.replace('/', '.')\n"
    "    found = pkgutil.iter_modules(importlib.import_module(name).__path__, name + '.')\n"
    "    module = next(info.name for info in found if info.name not in sys.modules)\n"
    "    try:\n"
    "        importlib.import_module(module)\n"
    "        print(module, 'loaded')\n"
    "    except answer_guard.AnswerKeyError as error:\n"
    "        print(module, 'refused' if f'is in torch/{package},' in str(error) else error)\n"
)


def test_the_attention_guard_leaves_building_blocks_alone(guarded_attempts):
    done = guarded_attempts["building blocks"]
    assert done.returncode == 0 and "trained" in done.stdout, done.stderr[-800:]


def test_the_refused_packages_load_nothing_more(guarded_attempts):
    # torch._inductor, torch.onnx, torch.export, torch._export, torch.testing._internal: refused
    # whole, by package (what optimizers load of them was loaded before the refusal)
    done = guarded_attempts["refused packages"]
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 5, (done.stdout, done.stderr[-800:])
    assert all(line.endswith(" refused") for line in lines), done.stdout


def _sent_references(exercise: str) -> dict[str, object]:
    """The reference functions the grading process of `exercise` builds, from the code it is sent."""
    from autograder.judge.session import compiled_references
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
