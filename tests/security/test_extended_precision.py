"""Arbitrary-precision arithmetic is not in a NumPy exercise's sandbox: every copy refuses to load.

A softmax written as the definition in 50-digit decimals never overflows and a difference of two
row losses in them keeps every digit: `decimal`, `mpmath` and `sympy` would pass a derive exercise
without its derivation. The attack reaches for each copy the sandbox could see: by import, by path
(the Python's own source, compiled and extension files, and those of every other Python in the
system's folders), the native libraries through ctypes (a red team's 20-line MPFR float passed
softmax, cross_entropy, temperature_probs and loss_floor_and_gaps), and the base Python's own
site-packages one `sys.path.append` away (its SciPy's `special.softmax` passed softmax); and
`fractions` and `statistics`, which import `decimal`'s name, still work.
"""

import ctypes.util
import json
import platform
import sys
from pathlib import Path

import pytest

from autograder.judge import mounted
from autograder.judge.exercises import get_exercise
from autograder.judge.runner import check_source

ATTACK = """
import importlib, importlib.machinery, importlib.util

def load(path):
    if path.endswith(".pyc"):
        loader = importlib.machinery.SourcelessFileLoader("copy", path)
    elif path.endswith(".so"):
        loader = importlib.machinery.ExtensionFileLoader("_decimal", path)
    elif path.endswith(".py"):
        loader = importlib.machinery.SourceFileLoader("copy", path)
    else:  # a package folder
        loader = importlib.machinery.SourceFileLoader("copy", path + "/__init__.py")
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module

LOADED = []
for path in {paths!r}:
    try:  # what loads must compute: the stand-in itself loads, and refuses
        module = load(path)
        (getattr(module, "mpf", None) or getattr(module, "Decimal", None) or module.Symbol)(2)
        LOADED.append(path)
    except BaseException:
        pass
for name in ("decimal", "_decimal", "_pydecimal", "mpmath", "sympy"):
    try:
        module = importlib.import_module(name)
        (getattr(module, "mpf", None) or getattr(module, "Decimal", None) or module.Symbol)(2)
        LOADED.append(name)
    except BaseException:
        pass
import ctypes, os, sys
libraries = [p for p in {paths!r} if "/lib" in p and ".so" in p.rsplit("/", 1)[-1]]
for library in ("libmpfr.so.6", "libgmp.so.10", "libmpc.so.3", "libmpdec.so.3", *libraries):
    try:  # another Python's libpython, loaded apart, would run its own _decimal
        ctypes.CDLL(library, mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
        LOADED.append(library)
    except OSError:
        pass
sys.path.append({base!r})
try:
    import scipy.special
    LOADED.append("scipy")
except ImportError:
    pass
import fractions, statistics
WORKS = str(fractions.Fraction(1, 3) + 1) + " " + str(statistics.mean([1, 2]))

def softmax(logits, axis=-1):
    raise ValueError("loaded " + repr(LOADED) + "; works " + WORKS)
"""


def test_no_copy_of_arbitrary_precision_loads_in_a_numpy_sandbox():
    files, folders = mounted.precision_copies()
    own = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    assert str((own / "_pydecimal.py").resolve()) in files
    assert any(Path(f).name.startswith("_decimal.") and f.endswith(".so") for f in files)
    assert any(Path(f).name == "mpmath" for f in folders)
    assert any(Path(f).name.startswith("libmpfr.so") for f in files)
    # a JVM's BigDecimal, reached through libjvm.so (a red team's route), where a JVM is installed
    jvms = {str(p.resolve()) for p in Path("/usr/lib/jvm").glob("*/lib/server/libjvm.so")}
    assert jvms <= set(files), jvms - set(files)
    base = mounted.base_packages()
    attack = ATTACK.format(paths=files + folders, base=base or "/nowhere")
    report = check_source(get_exercise("softmax"), [attack], seed=1)
    hint = report.results[0].hint
    assert "loaded []; works 4/3 1.5" in hint, hint


def test_a_softmax_in_decimals_earns_nothing_and_says_why():
    source = (
        "from decimal import Decimal, getcontext\n"
        "import numpy as np\n"
        "getcontext().prec = 50\n"
        "def softmax(logits, axis=-1):\n"
        "    x = np.moveaxis(np.asarray(logits, dtype=float), axis, -1)\n"
        "    e = [[Decimal(float(v)).exp() for v in row] for row in x.reshape(-1, x.shape[-1])]\n"
        "    p = np.array([[float(v / sum(row)) for v in row] for row in e]).reshape(x.shape)\n"
        "    return np.moveaxis(p, -1, axis)\n"
    )
    report = check_source(get_exercise("softmax"), [source], seed=1)
    assert report.earned == 0
    assert any("arbitrary-precision arithmetic" in note for note in report.notes), report.notes
    assert "graded without arbitrary-precision arithmetic" in report.results[0].hint


def test_pytorch_exercises_keep_sympy():
    # PyTorch imports sympy for its compiler: only a NumPy exercise's binds cover it; the base
    # Python's site-packages, off every path the environment uses, is covered for both
    _, folders = mounted.precision_copies()
    assert all(inside not in folders for _, inside in mounted.mounts("GPT"))
    assert {inside for _, inside in mounted.mounts("softmax")} >= set(folders)
    if mounted.base_packages() is not None:
        assert mounted.base_packages() in [inside for _, inside in mounted.mounts("softmax")]
        assert mounted.base_packages() in [inside for _, inside in mounted.mounts("GPT")]


# Every way a submission might start another program (where another interpreter, `bc` or `perl`
# would compute in arbitrary precision, or a fresh Python run without a refusal), and what came of it
PROGRAMS = """
import ctypes, json, mmap, os, platform, subprocess, sys
def _started():
    seen = {}
    try:
        done = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True)
        seen["subprocess"] = done.stdout.strip() or done.returncode
    except OSError as error:
        seen["subprocess"] = type(error).__name__
    seen["system"] = os.waitstatus_to_exitcode(os.system("true"))
    ways = {"execv": lambda: os.execv(sys.executable, [sys.executable, "-c", "pass"])}
    if platform.machine() == "x86_64":  # the system call itself, on each ABI (7: it returned)
        libc = ctypes.CDLL(None, use_errno=True)
        ways["execve"] = lambda: libc.syscall(59, b"/bin/true", None, None)
        ways["execveat"] = lambda: libc.syscall(322, -100, b"/bin/true", None, None, 0)
        ways["x32 execve"] = lambda: libc.syscall(0x40000000 | 520, b"/bin/true", None, None)

        def i386(number):  # mov eax, number; int 0x80; ret
            code = bytes([0xB8]) + number.to_bytes(4, "little") + bytes([0xCD, 0x80, 0xC3])
            page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(code)
            address = ctypes.addressof(ctypes.c_char.from_buffer(page))
            return ctypes.CFUNCTYPE(ctypes.c_int)(address)()

        ways["i386 execve"] = lambda: i386(11)
    for name, way in ways.items():
        pid = os.fork()
        if pid == 0:
            try:
                way()
            finally:
                os._exit(7)
        seen[name] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "started " + json.dumps(seen, sort_keys=True)
"""


def _started(exercise: str) -> dict:
    """What each way of starting a program came to, as grading `exercise` reports it."""
    source = PROGRAMS + f"def {exercise}(*args, **kwargs):\n    raise ValueError(_started())\n"
    report = check_source(get_exercise(exercise), [source], seed=1)
    hint = report.results[0].hint
    return (
        json.loads(hint.split("started ", 1)[1].split("}", 1)[0] + "}")
        if "started " in hint
        else {}
    )


def _assert_killed(seen: dict) -> None:
    """Every way was tried, and seccomp killed each (SIGSYS)."""
    assert seen and set(seen.values()) == {-31}, seen
    assert "execv" in seen and (platform.machine() != "x86_64" or "i386 execve" in seen), seen


def test_execve_kills_its_caller_where_an_exercise_refuses_something():
    # a NumPy exercise (a red team's softmax through another Python's _decimal earned 2/2 before)
    # and the PyTorch environment that refuses attention and schedules: the process that tries is
    # killed, so a forked copy never runs on; the free PyTorch environment may start programs.
    # A program loaded by hand, with no execve, is not covered (docs/security.md: open)
    _assert_killed(_started("softmax"))
    _assert_killed(_started("train_gpt"))
    free = _started("get_batch")
    assert free["execv"] == 0 and free["subprocess"] == "ran" and free["system"] == 0, free
    assert -31 not in free.values() and free.get("execve", 0) == 0, free  # the kill is the filter's


def test_a_venv_on_the_systems_python_exempts_its_own_libpython_alone(monkeypatch):
    # with a virtual environment on /usr/bin/python3 the base prefix is /usr, which also holds
    # libperl, a JVM's libjvm and other Pythons' libpython: none of them is the grader's own
    mounted.base_packages()  # cached first, from the real prefix, for this process's later tests
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    mounted.precision_copies.cache_clear()
    try:
        files = set(mounted.precision_copies()[0])
    finally:
        monkeypatch.undo()
        mounted.precision_copies.cache_clear()
    runtimes = {
        str(p.resolve())
        for pattern in ("lib/x86_64-linux-gnu/libperl.so*", "lib/jvm/*/lib/server/libjvm.so")
        for p in Path("/usr").glob(pattern)
        if not p.is_symlink()
    } | {str(p.resolve()) for p in Path("/usr/lib").rglob("libpython*.so*") if not p.is_symlink()}
    runtimes -= mounted.own_runtime()
    if not runtimes:
        pytest.skip("no other runtime under /usr to test with")
    assert runtimes <= files, runtimes - files
    assert not files & mounted.own_runtime(), "the grading Python's own libpython is covered"


# A red team's softmax: the definition, exp(x) / sum(exp(x)), in Z3's 240-bit floating point
# (libz3 through ctypes; Z3 links no GMP, so the GMP stand-in did not stop it): 2/2 before
Z3_SOFTMAX = """
import ctypes
from fractions import Fraction
import numpy as np

_z = ctypes.CDLL("libz3.so.4")
P = ctypes.c_void_p
for name, res, args in [
    ("Z3_mk_config", P, []), ("Z3_mk_context", P, [P]),
    ("Z3_mk_fpa_sort", P, [P, ctypes.c_uint, ctypes.c_uint]), ("Z3_mk_fpa_rne", P, [P]),
    ("Z3_mk_fpa_numeral_double", P, [P, ctypes.c_double, P]),
    ("Z3_mk_fpa_add", P, [P, P, P, P]), ("Z3_mk_fpa_mul", P, [P, P, P, P]), ("Z3_mk_fpa_div", P, [P, P, P, P]),
    ("Z3_mk_fpa_to_fp_float", P, [P, P, P, P]), ("Z3_mk_fpa_to_real", P, [P, P]),
    ("Z3_simplify", P, [P, P]), ("Z3_get_numeral_string", ctypes.c_char_p, [P, P]),
    ("Z3_inc_ref", None, [P, P]),
]:
    f = getattr(_z, name); f.restype = res; f.argtypes = args
C = _z.Z3_mk_context(_z.Z3_mk_config())
BIG = _z.Z3_mk_fpa_sort(C, 32, 240)      # 240-bit significand, 32-bit exponent: ~72 digits, range 2**(+-2**31)
F64 = _z.Z3_mk_fpa_sort(C, 11, 53)
RM = _z.Z3_mk_fpa_rne(C)

def _s(a):
    a = _z.Z3_simplify(C, a); _z.Z3_inc_ref(C, a); return a
def num(x): return _s(_z.Z3_mk_fpa_numeral_double(C, float(x), BIG))
def add(a, b): return _s(_z.Z3_mk_fpa_add(C, RM, a, b))
def mul(a, b): return _s(_z.Z3_mk_fpa_mul(C, RM, a, b))
def div(a, b): return _s(_z.Z3_mk_fpa_div(C, RM, a, b))
def to_float(a):
    r = _s(_z.Z3_mk_fpa_to_real(C, _s(_z.Z3_mk_fpa_to_fp_float(C, RM, a, F64))))
    return float(Fraction(_z.Z3_get_numeral_string(C, r).decode()))

def exp(x):
    k = 0
    while abs(x) / 2.0 ** k > 2.0 ** -8:
        k += 1
    y = num(x / 2.0 ** k)                       # exact: a power of two
    term, total = num(1.0), num(1.0)
    for n in range(1, 40):                      # Taylor series at |y| < 2**-8
        term = div(mul(term, y), num(n))
        total = add(total, term)
    for _ in range(k):                          # exp(x) = exp(x / 2**k) ** (2**k)
        total = mul(total, total)
    return total

def softmax(logits, axis=-1):
    given = np.asarray(logits)
    dtype = given.dtype if np.issubdtype(given.dtype, np.floating) else np.float64
    x = np.moveaxis(given.astype(np.float64), axis, -1)
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    out = []
    for row in rows:
        e = [exp(v) for v in row]
        s = e[0]
        for v in e[1:]:
            s = add(s, v)
        out.append([to_float(div(v, s)) for v in e])
    p = np.array(out).reshape(x.shape)
    return np.moveaxis(p, -1, axis).astype(dtype)
"""


@pytest.mark.skipif(ctypes.util.find_library("z3") is None, reason="no libz3 on this machine")
def test_a_softmax_in_z3s_floats_earns_nothing():
    exercise = get_exercise("softmax")
    control = check_source(exercise, [Z3_SOFTMAX], seed=1, sandboxed=False)
    assert control.earned == exercise.points, "the control: outside the sandbox it is an answer"
    assert check_source(exercise, [Z3_SOFTMAX], seed=1).earned == 0


@pytest.mark.skipif(
    not Path("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1").exists(), reason="no LLVM 14"
)
def test_llvm_beside_a_stand_in_of_the_students_writing_computes_nothing():
    source = (
        Path(__file__).parent / "attacks" / "llvm_fp128_beside_a_written_libz3.py"
    ).read_text()
    exercise = get_exercise("softmax")
    control = check_source(exercise, [source], seed=1, sandboxed=False).results[0].hint
    assert "quad: 7.88860905221" in control, control  # 2**-100: the route computes in binary128
    hint = check_source(exercise, [source], seed=1).results[0].hint
    assert "LLVM refused" in hint and "quad:" not in hint, hint
