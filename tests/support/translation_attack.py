"""The translation attack on the student kit: a NumPy stand-in for PyTorch, the kit's library pasted whole, thin adapters.

A submission is three parts, as a student would paste them into a notebook: the stand-in
(`numpy_torch.py`, served as `torch`: every exercise the kit's own code answers is a NumPy one; its
attention is PyTorch's finished layers, which no translation of the kit carries), every
module of the kit's `proof_lm` as source text (served by a finder put first, in place of the
grader's copy), and the adapters: per exercise, a function that only converts arguments and
results around the library routine named in `CALLED`, importing its module when called (a module
that does not load costs only the exercises that call it).
"""

import ast
from pathlib import Path

from conftest import REPO

STANDIN = Path(__file__).with_name("numpy_torch.py")

# A finder that serves the pasted modules by name before any other, and forgets what was imported
# of them before (the grader's copy of proof_lm, the sandbox's absent PyTorch).
INSTALL = """
import importlib.abc, importlib.machinery, importlib.util, os, sys

_HOME = os.path.dirname(importlib.util.find_spec("proof_lm").origin)  # where the data is found


class _Pasted(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in _PASTED:
            return importlib.machinery.ModuleSpec(name, self, is_package="." not in name)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        module.__file__ = os.path.join(_HOME, name.partition(".")[2] + ".py" if "." in name else "__init__.py")
        exec(compile(_PASTED[name], module.__file__, "exec"), module.__dict__)

for _name in [n for n in sys.modules if n.partition(".")[0] in {r.partition(".")[0] for r in _PASTED}]:
    del sys.modules[_name]
sys.meta_path.insert(0, _Pasted())
"""

NUMPY_ADAPTERS = """
import numpy as np
import torch


def bigram_counts(words, stoi):
    from proof_lm import ngram
    return np.asarray(ngram.bigram_count_table(words, stoi))


def bigram_probs(counts, k=0.0):
    from proof_lm import ngram
    return np.asarray(ngram.add_k_probs(counts, k))


def mean_nll(probs, words, stoi):
    from proof_lm import metrics
    return float(metrics.bigram_mean_nll(probs, words, stoi))


def perplexity(token_probs):
    from proof_lm import metrics
    probs = np.asarray(token_probs, dtype=np.float64).reshape(-1)
    return float(metrics.ppl(metrics._mean_negative_log(probs, np.arange(probs.size))))


def context_windows(words, stoi, block_size):
    from proof_lm import windows
    X, Y = windows.name_windows(words, stoi, block_size)
    return np.asarray(X), np.asarray(Y)


def _widest(count, budget, step):
    # the widest multiple of step within budget, for a count of degree two at most in the width:
    # read at three widths (Newton's differences), then searched in integers, doubling and halving
    y = [count(k * step) for k in (1, 2, 3)]

    def fitted(k):
        return y[0] + (k - 1) * (y[1] - y[0]) + (k - 1) * (k - 2) // 2 * (y[2] - 2 * y[1] + y[0])

    k, jump = 0, 1
    while fitted(k + jump) <= budget:
        jump *= 2
    while jump:
        if fitted(k + jump) <= budget:
            k += jump
        jump //= 2
    return k * step


def nplm_params(V, d, n, budget, direct=False, tied=False):
    from proof_lm import nplm
    if tied:
        raise NotImplementedError("no model of the library ties its output layer")

    def count(dh):
        P = nplm.init_nplm(V, d, n - 1, dh, np.random.default_rng(0))
        return sum(a.size for a in P.values() if a is not None) + (V * (n - 1) * d if direct else 0)

    return _widest(count, budget, 1)


def nplm_loss(P, X, Y):
    from proof_lm import nplm
    return float(nplm.nplm_mean_loss(P, X, Y)), np.asarray(nplm.nplm_logits(P, X))


def temperature_probs(logits, temperature):
    from proof_lm import sampling
    return np.asarray(sampling.filter_probs(logits, temperature))


def top_k_probs(logits, k, temperature=1.0):
    from proof_lm import sampling
    return np.asarray(sampling.filter_probs(logits, temperature, top_k=k))


def top_p_probs(logits, p, temperature=1.0):
    from proof_lm import sampling
    return np.asarray(sampling.filter_probs(logits, temperature, top_p=p))


def min_p_probs(logits, p_base, temperature=1.0):
    from proof_lm import sampling
    if not 0 <= p_base <= 1:  # the contract's argument check
        raise ValueError("p_base must lie in [0, 1]")
    probs = sampling.filter_probs(logits, temperature)
    kept = int((probs >= p_base * probs.max(axis=-1, keepdims=True)).sum())
    return np.asarray(sampling.filter_probs(logits, temperature, top_k=kept))


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    from proof_lm import sampling
    return int(sampling.draw(sampling.filter_probs(logits, temperature, top_k, top_p), rng))


def gpt_params(V, T, n_layers, n_heads, budget, attention_bias=False, tied=False):
    from proof_lm import gpt
    if attention_bias or tied:
        raise NotImplementedError("TinyGPT builds neither option")

    def count(C):
        return sum(p.numel() for p in gpt.TinyGPT(V, T, C, n_layers, n_heads).parameters())

    return _widest(count, budget, n_heads)


def bpe_train(text, vocab_size):
    from proof_lm import bpe
    return bpe.bpe_train(text, vocab_size)


bpe_train_fast = bpe_train


def bpe_encode(text, merges):
    from proof_lm import bpe
    return bpe.bpe_encode(text, merges)


def bpe_decode(ids, merges):
    from proof_lm import bpe
    return bpe.bpe_decode(ids, merges)
"""

# Exercise -> the library entry ("module:name[.method]") its adapter calls for the answer.
CALLED = {
    "bigram_counts": "ngram:bigram_count_table",
    "bigram_probs": "ngram:add_k_probs",
    "mean_nll": "metrics:bigram_mean_nll",
    "perplexity": "metrics:ppl",
    "context_windows": "windows:name_windows",
    "nplm_params": "nplm:init_nplm",
    "nplm_loss": "nplm:nplm_mean_loss",
    "temperature_probs": "sampling:filter_probs",
    "top_k_probs": "sampling:filter_probs",
    "top_p_probs": "sampling:filter_probs",
    "min_p_probs": "sampling:filter_probs",
    "sample_next": "sampling:draw",
    "gpt_params": "gpt:TinyGPT",
    "bpe_train": "bpe:bpe_train",
    "bpe_train_fast": "bpe:bpe_train",
    "bpe_encode": "bpe:bpe_encode",
    "bpe_decode": "bpe:bpe_decode",
}
ATTACKED = sorted(CALLED)


def submission(library: Path) -> list[str]:
    """The attack's cells: the stand-in and `library` (a kit's proof_lm) as pasted source text,
    then the adapters."""
    pasted = {"proof_lm": "", "torch": STANDIN.read_text()}
    pasted |= {f"proof_lm.{p.stem}": p.read_text() for p in sorted(library.glob("*.py"))}
    return [f"_PASTED = {pasted!r}\n" + INSTALL, NUMPY_ADAPTERS]


def _definition(entry: str) -> ast.AST | None:
    """The AST of a library entry ("module:name" or "module:Class.method"), None if absent."""
    module, _, name = entry.partition(":")
    node: ast.AST = ast.parse((REPO / "proof_lm" / f"{module}.py").read_text())
    for part in name.split("."):
        node = next(
            (
                n
                for n in getattr(node, "body", [])
                if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
    return node


def _names(module: str) -> tuple[dict[str, str], set[str]]:
    """What proof_lm/`module`.py binds at its top: {local name: "module"} for its own definitions and
    what it imports of the library, and the names of the other modules it imports (NumPy, math)."""
    tree = ast.parse((REPO / "proof_lm" / f"{module}.py").read_text())
    library, modules = {}, set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("proof_lm."):
            library |= {a.asname or a.name: node.module.partition(".")[2] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            library[node.name] = module
        elif isinstance(node, ast.Import):
            modules |= {(a.asname or a.name).partition(".")[0] for a in node.names}
    return library, modules - {"torch"}


PREFIXES = {"torch": "", "F": "nn.functional.", "nn": "nn."}


def operations(entries: list[str], tensor_methods: frozenset[str]) -> dict[str, set[str]]:
    """{operation: the entries that call it} for `entries` and the library code they call: every
    `torch.x`, `F.x` and `nn.x` ("nn.functional.x" for F), every name imported from a PyTorch
    module, and every attribute named as one of `torch.Tensor`'s ("Tensor.x"; a NumPy array's
    attribute or a method of the library's of the same name is counted too)."""
    found: dict[str, set[str]] = {}
    todo, seen = list(entries), set()
    while todo:
        entry = todo.pop()
        node = _definition(entry)
        if entry in seen or node is None:
            continue
        seen.add(entry)
        library, modules = _names(entry.partition(":")[0])
        inside = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in library:
                todo.append(f"{library[inner.id]}:{inner.id}")
            if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("torch."):
                for alias in inner.names:
                    name = f"{inner.module.partition('.')[2]}.{alias.name}"
                    found.setdefault(name, set()).add(entry)
            if not isinstance(inner, ast.Attribute):
                continue
            chain, root = [inner.attr], inner.value
            while isinstance(root, ast.Attribute):
                chain.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in PREFIXES:
                if id(inner) not in inside:  # the whole name, torch.nn.init.normal_
                    operation = PREFIXES[root.id] + ".".join(reversed(chain))
                    found.setdefault(operation, set()).add(entry)
            elif isinstance(root, ast.Name) and root.id in modules and len(chain) == 1:
                continue  # np.minimum, math.sqrt
            elif inner.attr in tensor_methods:
                found.setdefault(f"Tensor.{inner.attr}", set()).add(entry)
    return found


def library_definitions() -> list[str]:
    """Every top-level function and class of the library, "module:name"."""
    return [
        f"{path.stem}:{node.name}"
        for path in sorted((REPO / "proof_lm").glob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    ]
