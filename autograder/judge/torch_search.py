"""PyTorch's finished attention and transformer layers, found by searching its module tree.

While chapter 08's attention exercises are graded (`answer_key.ATTENTION_EXERCISES`) the grading
process refuses what this search finds (`autograder.sandbox.guest.answer_guard`): every `nn.Module` class
that subclasses `nn.MultiheadAttention` or a transformer layer, or whose name says attention or
transformer, anywhere in PyTorch (`torch.ao.nn` included); every Python function whose name says
attention (`F.multi_head_attention_forward`, flex attention's eager path, the decompositions of
scaled-dot-product attention); every aten operator whose name says attention or transformer (the
C++ kernels behind `F.scaled_dot_product_attention`). The result is the table
`autograder/sandbox/guest/torch_refused.json`, written by `python -m autograder.judge.torch_search` and
compared with a fresh search by `tests/security/test_answer_keys.py`, so a PyTorch upgrade that brings a
new one fails that test until the table is written again.
"""

import contextlib
import importlib
import io
import json
import pkgutil
import re
import sys
import types
import warnings
from pathlib import Path

from autograder.paths import GUEST
from autograder.sandbox.guest.answer_guard import innermost

TABLE = GUEST / "torch_refused.json"
NAMES = re.compile(r"attention|attn|transformer", re.IGNORECASE)


def search() -> dict:
    """Import every module of PyTorch and return the table: its version, and per module (by its
    file, relative to PyTorch's folder) the refused classes and functions; the refused aten ops."""
    import torch
    from torch import nn

    warnings.simplefilter("ignore")
    root = Path(torch.__file__).resolve().parent
    for info in pkgutil.walk_packages(torch.__path__, "torch.", onerror=lambda name: None):
        with (
            contextlib.suppress(BaseException),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            importlib.import_module(info.name)
    layers = (nn.MultiheadAttention, nn.Transformer, nn.TransformerEncoder, nn.TransformerDecoder)
    layers += (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)
    found: dict[str, dict[str, set[str]]] = {}

    def add(obj: object, kind: str) -> None:
        module = sys.modules.get(getattr(obj, "__module__", None) or "")
        origin = getattr(module, "__file__", None)
        if origin is None or not Path(origin).resolve().is_relative_to(root):
            return
        if "<locals>" in obj.__qualname__:
            return
        entry = found.setdefault(module.__name__, {"classes": set(), "functions": set()})
        entry["file"] = str(Path(origin).resolve().relative_to(root))
        entry[kind].add(obj.__qualname__)

    for name, module in list(sys.modules.items()):
        if not (name == "torch" or name.startswith("torch.")) or module is None:
            continue
        for value in list(vars(module).values()):
            with contextlib.suppress(Exception):
                if isinstance(value, type) and issubclass(value, nn.Module):
                    if issubclass(value, layers) or NAMES.search(value.__name__):
                        add(value, "classes")
                    continue
                inner = innermost(value)
                if isinstance(inner, types.FunctionType) and NAMES.search(inner.__name__):
                    add(inner, "functions")
    aten = {
        op.split("::")[1].split(".")[0]
        for op in torch._C._dispatch_get_all_op_names()
        if op.startswith("aten::") and NAMES.search(op)
    }
    return {
        "torch": torch.__version__,
        "modules": {
            name: {
                "file": entry["file"],
                "classes": sorted(entry["classes"]),
                "functions": sorted(entry["functions"]),
            }
            for name, entry in sorted(found.items())
        },
        "aten": sorted(aten),
    }


def main() -> None:
    """Write the table (a fresh interpreter: the search imports all of PyTorch)."""
    TABLE.write_text(json.dumps(search(), indent=1) + "\n")
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
