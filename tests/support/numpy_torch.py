"""A NumPy stand-in for the PyTorch tensor operations the kit's library calls: the translation attack's tool.

Pasted as the source of a module named `torch` into a NumPy exercise's submission (see
`tests/support/translation_attack.py`), it registers `torch.nn` and `torch.nn.functional` too, so the
kit's `proof_lm` modules, pasted unchanged after it, run where PyTorch is absent. Imported under its
own name (to check every operation against PyTorch, `tests/course/test_kit_stages.py`) it
registers nothing. Tensors are an `ndarray` subclass with PyTorch's method names and its default
dtypes; no autograd (what the library computes by autograd is PyTorch's, not the kit's, text).
"""

import builtins
import collections
import math
import sys
import types

import numpy as np

int64 = long = np.int64
float64 = double = np.float64
float32 = np.float32
uint8 = np.uint8
bool = np.bool_  # torch.bool
_Reduced = collections.namedtuple("_Reduced", ["values", "indices"])  # (values, indices)


def _t(value: object) -> "Tensor":
    """Any array-like as a Tensor (0-d included)."""
    return np.asarray(value).view(Tensor)


def _dim(dim: object, axis: object) -> object:
    return axis if dim is None else dim


class Tensor(np.ndarray):
    """An ndarray with PyTorch's method names where they differ from NumPy's."""

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return np.asarray(array).view(Tensor)

    device = "cpu"

    def numpy(self) -> np.ndarray:
        return np.asarray(self)

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return int(np.asarray(self).size)

    def sum(self, dim=None, keepdim=False, *, axis=None, keepdims=None, dtype=None, out=None):
        keep = keepdim if keepdims is None else keepdims
        return _t(np.asarray(self).sum(axis=_dim(dim, axis), keepdims=keep, dtype=dtype))

    def mean(self, dim=None, keepdim=False, *, axis=None, keepdims=None, dtype=None, out=None):
        keep = keepdim if keepdims is None else keepdims
        return _t(np.asarray(self).mean(axis=_dim(dim, axis), keepdims=keep, dtype=dtype))

    def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        if axis is not None or keepdims is not None or dim is None:
            return _t(np.asarray(self).max(axis=_dim(dim, axis), keepdims=builtins.bool(keepdims)))
        values = np.asarray(self).max(axis=dim, keepdims=keepdim)
        indices = np.asarray(self).argmax(axis=dim, keepdims=keepdim)
        return _Reduced(_t(values), _t(indices))

    def cumsum(self, dim=None, *, axis=None, dtype=None, out=None):
        return _t(np.cumsum(np.asarray(self), axis=_dim(dim, axis), dtype=dtype))

    def exp(self):
        return _t(np.exp(np.asarray(self)))

    def log(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            return _t(np.log(np.asarray(self)))

    def clamp(self, min=None, max=None):
        return _t(np.clip(np.asarray(self), min, max))

    def contiguous(self):
        return _t(np.ascontiguousarray(self))

    def clone(self):
        return _t(np.array(self, copy=True))

    def flatten(self, start_dim=0, end_dim=-1, *, order=None):
        if not isinstance(start_dim, int):  # NumPy's flatten(order)
            return _t(np.asarray(self).flatten(start_dim))
        shape = self.shape
        end = end_dim % len(shape) if shape else 0
        return _t(np.asarray(self).reshape(*shape[:start_dim], -1, *shape[end + 1 :]))

    def view(self, *shape, **kwargs):
        if kwargs or not shape or not all(isinstance(s, int) for s in shape):
            return super().view(*shape, **kwargs)  # NumPy's view(dtype, type)
        return _t(np.asarray(self).reshape(shape))

    def transpose(self, *axes):
        if len(axes) == 2 and all(isinstance(a, int) for a in axes):
            return _t(np.swapaxes(np.asarray(self), *axes))
        return super().transpose(*axes)

    def long(self):
        return _t(np.asarray(self).astype(np.int64))

    def double(self):
        return _t(np.asarray(self).astype(np.float64))

    def float(self):
        return _t(np.asarray(self).astype(np.float32))

    def to(self, dtype=None, *args, **kwargs):
        if isinstance(dtype, str) or dtype is None:
            return self
        return _t(np.asarray(self).astype(dtype))

    def cpu(self):
        return self

    def copy_(self, src):
        self[...] = np.asarray(src)
        return self

    def detach(self):
        return self

    def new_zeros(self, *shape):
        return _t(np.zeros(shape[0] if len(shape) == 1 else shape, dtype=self.dtype))

    def triu(self, diagonal=0):
        return _t(np.triu(np.asarray(self), diagonal))

    def masked_fill(self, mask, value):
        return _t(np.where(np.asarray(mask), np.asarray(value, dtype=self.dtype), np.asarray(self)))

    def softmax(self, dim):
        return softmax(self, dim)

    def split(self, size, dim=0):
        a = np.asarray(self)
        return tuple(_t(part) for part in np.split(a, range(size, a.shape[dim], size), axis=dim))

    def scatter(self, dim, index, src):
        out = np.array(self, copy=True)
        np.put_along_axis(out, np.asarray(index), np.asarray(src), axis=dim)
        return _t(out)


class Generator:
    """torch.Generator: a type the library tells from NumPy's generators, never drawn from here."""


class no_grad:  # noqa: N801 - PyTorch's name
    """Context manager and decorator; there is no autograd to switch off."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


def tensor(data, dtype=None, device=None, requires_grad=False):
    array = np.array(data, dtype=dtype)
    if dtype is None and not isinstance(data, np.ndarray) and array.dtype == np.float64:
        array = array.astype(np.float32)  # PyTorch's default dtype
    return _t(array)


def as_tensor(data, dtype=None, device=None):
    return _t(np.asarray(data, dtype=dtype))


def from_numpy(array):
    return _t(array)


def frombuffer(buffer, dtype):
    return _t(np.frombuffer(buffer, dtype=dtype).copy())


def _shape(shape):
    return tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape


def zeros(*shape, dtype=None, device=None):
    return _t(np.zeros(_shape(shape), dtype=dtype or np.float32))


def ones(*shape, dtype=None, device=None):
    return _t(np.ones(_shape(shape), dtype=dtype or np.float32))


def full(shape, fill_value, dtype=None, device=None):
    if dtype is None:
        dtype = np.int64 if isinstance(fill_value, int) else np.float32
    return _t(np.full(shape, fill_value, dtype=dtype))


def zeros_like(x, dtype=None):
    return _t(np.zeros_like(np.asarray(x), dtype=dtype))


def ones_like(x, dtype=None):
    return _t(np.ones_like(np.asarray(x), dtype=dtype))


def full_like(x, fill_value, dtype=None):
    return _t(np.full_like(np.asarray(x), fill_value, dtype=dtype))


def arange(*args, dtype=None, device=None):
    return _t(np.arange(*args, dtype=dtype or np.int64))


def where(condition, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 and y.ndim > 0:  # a Python number takes the tensor's dtype, as in PyTorch
        x = x.astype(y.dtype)
    if y.ndim == 0 and x.ndim > 0:
        y = y.astype(x.dtype)
    return _t(np.where(np.asarray(condition), x, y))


def bincount(x, minlength=0):
    return _t(np.bincount(np.asarray(x), minlength=minlength))


def argmax(x, dim=None):
    return _t(np.argmax(np.asarray(x), axis=dim))


def cumsum(x, dim):
    return _t(np.cumsum(np.asarray(x), axis=dim))


def cummax(x, dim):
    a = np.moveaxis(np.asarray(x), dim, -1)
    values = np.maximum.accumulate(a, axis=-1)
    index = np.broadcast_to(np.arange(a.shape[-1]), a.shape)
    indices = np.maximum.accumulate(np.where(a == values, index, 0), axis=-1)
    return _Reduced(_t(np.moveaxis(values, -1, dim)), _t(np.moveaxis(indices, -1, dim)))


def topk(x, k, dim=-1):
    values, indices = sort(x, dim, descending=True)
    index = [slice(None)] * values.ndim
    index[dim] = slice(0, k)
    return _Reduced(values[tuple(index)], indices[tuple(index)])


def repeat_interleave(x, repeats):
    return _t(np.repeat(np.asarray(x), np.asarray(repeats)))


def cat(tensors, dim=0):
    return _t(np.concatenate([np.asarray(t) for t in tensors], axis=dim))


def sort(x, dim=-1, descending=False, stable=False):  # always stable
    a = np.asarray(x)
    order = np.argsort(-a if descending else a, axis=dim, kind="stable")
    return _Reduced(_t(np.take_along_axis(a, order, axis=dim)), _t(order))


def softmax(x, dim):
    a = np.asarray(x)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(a - a.max(axis=dim, keepdims=True))
        return _t(e / e.sum(axis=dim, keepdims=True))


def log_softmax(x, dim):
    a = np.asarray(x)
    shifted = a - a.max(axis=dim, keepdims=True)
    return _t(shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True)))


def tanh(x):
    return _t(np.tanh(np.asarray(x)))


def _cross_entropy(logits, target):
    a, y = np.asarray(logits), np.asarray(target)
    top = a.max(axis=1, keepdims=True)
    log_probs = a - top - np.log(np.exp(a - top).sum(axis=1, keepdims=True))
    return _t(-log_probs[np.arange(len(y)), y].mean())


class Parameter(Tensor):
    """nn.Parameter: a tensor a module counts among its parameters."""

    def __new__(cls, data):
        return np.array(data, dtype=np.float32).view(cls)


def _layer(shape, draw):
    """A layer's float32 parameter drawn by `draw()`; past 2**24 entries a read-only one of that
    shape and no memory (PyTorch's meta device: GPT-3's 175 billion are counted, not stored)."""
    if math.prod(shape) <= 2**24:
        return Parameter(draw(shape))
    return np.broadcast_to(np.float32(0), shape).view(Parameter)


class Module:
    """nn.Module: parameters and sub-modules registered by attribute, in order."""

    def __init__(self) -> None:
        object.__setattr__(self, "_members", {})

    def __setattr__(self, name, value):
        if isinstance(value, Parameter | Module):
            self._members[name] = value
        object.__setattr__(self, name, value)

    def named_parameters(self, prefix=""):
        for name, member in self._members.items():
            if isinstance(member, Parameter):
                yield prefix + name, member
            else:
                yield from member.named_parameters(f"{prefix}{name}.")

    def parameters(self):
        return (p for _, p in self.named_parameters())

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = _layer(
            (out_features, in_features), lambda s: np.random.uniform(-bound, bound, s)
        )
        self.bias = _layer((out_features,), np.zeros) if bias else None

    def forward(self, x):
        y = np.asarray(x) @ np.asarray(self.weight).T
        return _t(y if self.bias is None else y + np.asarray(self.bias))


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.weight = _layer((num_embeddings, embedding_dim), lambda s: np.random.normal(size=s))

    def forward(self, ids):
        return _t(np.asarray(self.weight)[np.asarray(ids)])


class LayerNorm(Module):
    def __init__(self, width):
        super().__init__()
        self.weight, self.bias = Parameter(np.ones(width)), Parameter(np.zeros(width))


class GELU(Module):
    pass


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)


class ModuleList(Sequential):
    def __init__(self, modules):
        super().__init__(*modules)

    def __iter__(self):
        return iter(self._members.values())


def normal_(tensor, mean=0.0, std=1.0):
    if tensor.flags.writeable:  # not a meta parameter
        tensor[...] = np.random.normal(mean, std, tensor.shape)
    return tensor


def kaiming_normal_(tensor, nonlinearity="leaky_relu"):
    gain = {"tanh": 5 / 3, "linear": 1.0, "relu": math.sqrt(2)}.get(nonlinearity, math.sqrt(2))
    return normal_(tensor, std=gain / math.sqrt(tensor.shape[1]))


def zeros_(tensor):
    if tensor.flags.writeable:
        tensor[...] = 0
    return tensor


nn = types.ModuleType("torch.nn")
nn.Module, nn.Parameter, nn.Linear, nn.Embedding = Module, Parameter, Linear, Embedding
nn.LayerNorm, nn.GELU, nn.Sequential, nn.ModuleList = LayerNorm, GELU, Sequential, ModuleList
nn.functional = types.ModuleType("torch.nn.functional")
nn.functional.cross_entropy, nn.functional.softmax = _cross_entropy, softmax
nn.init = types.ModuleType("torch.nn.init")
nn.init.normal_, nn.init.zeros_, nn.init.kaiming_normal_ = normal_, zeros_, kaiming_normal_

if __name__ == "torch":  # pasted as PyTorch: `import torch.nn.functional as F` finds these
    sys.modules.update({m.__name__: m for m in (nn, nn.functional, nn.init)})
