"""The read-only copies a grading sandbox mounts, built once per set of exercises, and where they go.

`autograder` holds only `autograder.sandbox.guest`, whole, what of it answers the exercises refusing
(GRADER_ANSWERS); `proof_lm` has what answers them cut out (LIBRARY_ANSWERS); for a NumPy exercise
PyTorch's folders are covered by the guest's stand-in (`autograder/sandbox/guest/no_torch/`), whose
every use raises `NoPyTorch`, and arbitrary-precision arithmetic (`decimal`, `mpmath`, `sympy`) by
`autograder/sandbox/guest/no_precision/`, whose every use raises `NoExtendedPrecision`; for an
exercise that derives its learning-rate schedule, PyTorch's shaped schedules are cut from a copy of
their modules (`schedules_cut`). The real
files are not mounted, so no import trick can reach them."""

import ast
import atexit
import compileall
import functools
import importlib.machinery
import importlib.util
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

from autograder.judge.answer_key import GRADER_ANSWERS, LIBRARY_ANSWERS, SCHEDULE_EXERCISES
from autograder.judge.exercises import EXERCISES
from autograder.judge.source_cut import refusing_stub, without_definitions
from autograder.paths import GUEST, REPO
from autograder.sandbox.host import bwrap

NO_TORCH = GUEST / "no_torch" / "__init__.py"  # the package that stands in for PyTorch
NO_PRECISION = GUEST / "no_precision" / "__init__.py"  # and for decimal, mpmath and sympy
# the standard library's decimals, and the native libraries that compute beyond float64 (GMP, MPFR,
# MPC, mpdecimal, FLINT, Arb, MPFI, MPIR, NTL, PARI, CLN, QD, decimal floating point, Z3, whose
# floating-point sorts take any precision: a red team's softmax in Z3's 240-bit floats earned 2/2,
# and LLVM and Clang, whose constant folding computes in 113-bit floats: a red team loaded LLVM
# beside a stand-in libz3 of its own writing) that ctypes would load, or a compiler link (GCC's cc1
# needs three). Not GCC's libquadmath: NumPy's wheel loads its own copy, and its __float128 takes
# machine code of one's own to call (security.md)
PRECISION_FILE = re.compile(
    r"_?(py)?decimal\b.*\.(py|pyc|so)"
    r"|lib(gmp|gmpxx|mpfr|mpc|mpdec|flint|arb|mpfi|mpir|ntl|pari|cln|qd|dfp|bid|z3|LLVM|clang)\b"
    r"[-.\w]*\.(so[.\d]*|a)"
)
PRECISION_PACKAGES = ("mpmath", "sympy")
# another language's runtime, loaded by ctypes into the grading process, computes in its own
# arbitrary precision (red teams ran another Python's `_decimal`, and a JVM's BigDecimal through
# libjvm's JNI_CreateJavaVM): every copy but the grading Python's own (`own_runtime`)
INTERPRETER_FILE = re.compile(
    r"lib(python[\d.]*m?|perl|jvm|ruby|julia|guile|ecl|mono|php)\b[-.\w]*\.(so[.\d]*|a)"
)

# PyTorch's learning-rate schedules, for an exercise that derives its own (train_gpt): every public
# class built on LRScheduler in these files (PyTorch's package folder) is cut from the sandbox's copy,
# but those that follow a function of the student's own, and ReduceLROnPlateau, which follows a loss
SCHEDULE_FILES = ("optim/lr_scheduler.py", "optim/swa_utils.py")
FREE_SCHEDULES = frozenset(("LRScheduler", "LambdaLR", "MultiplicativeLR", "ReduceLROnPlateau"))

BUILDING = threading.Lock()  # grading threads may ask for the same copy at once


STUB = refusing_stub(
    "AnswerKeyError",
    "Raised by a library (or grader) function that implements the exercise being graded.",
    'f"{__name__}.{name} implements the exercise being graded ({EXERCISE}); "\n'
    '            "the answer-key rule: while an exercise is graded, the environment\'s own "\n'
    "            \"implementations of it (the library's, the grader's, PyTorch's) refuse to run. \"\n"
    '            "Write it yourself"',
)


@functools.cache
def _root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="proof-lm-answer-key-"))
    root.chmod(0o755)
    atexit.register(shutil.rmtree, root, True)
    return root


def _copy_tree(source: Path, target: Path) -> None:
    """Copy the modules of package `source` to `target` (made 0755), each 0644."""
    target.mkdir(mode=0o755, parents=True)
    target.chmod(0o755)
    for path in sorted(source.glob("*.py")):
        shutil.copyfile(path, target / path.name)
        (target / path.name).chmod(0o644)


def _names(exercises: str | tuple[str, ...]) -> tuple[str, ...]:
    """One exercise's name or several, as a tuple."""
    return (exercises,) if isinstance(exercises, str) else tuple(exercises)


def _sandbox_package(target: Path, exercises: tuple[str, ...]) -> Path:
    """At `target`: an `autograder` holding its `__init__` and `autograder.sandbox.guest` whole, in which
    what answers any of `exercises` (GRADER_ANSWERS) raises AnswerKeyError."""
    shutil.rmtree(target, ignore_errors=True)  # what an earlier attempt that failed left
    for folder in (target.parent, target):
        folder.mkdir(mode=0o755, exist_ok=True)
        folder.chmod(0o755)
    guest = target / "sandbox" / "guest"
    shutil.copytree(GUEST, guest, ignore=shutil.ignore_patterns("__pycache__"))
    for init in ("__init__.py", "sandbox/__init__.py"):
        shutil.copyfile(REPO / "autograder" / init, target / init)
    for path in (target / "sandbox", *(target / "sandbox").rglob("*"), target / "__init__.py"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    _cut(guest, GRADER_ANSWERS, exercises)
    # what a grading process sees of `autograder` stays two names
    _compiled(target / "sandbox", REPO / "autograder" / "sandbox")
    return target


def grading_package(exercises: str | tuple[str, ...]) -> Path:
    """The `autograder` the grading process of `exercises` (one or several) sees:
    `autograder.sandbox.guest`, whole, and nothing else (what of it answers them refuses to run)."""
    return _grading_package(_names(exercises))


@functools.cache
def _grading_package(names: tuple[str, ...]) -> Path:
    """`grading_package`, built once per tuple of names."""
    return _sandbox_package(_root() / f"grading-{'+'.join(names)}" / "autograder", names)


def library_without(exercises: str | tuple[str, ...]) -> Path:
    """A copy of `proof_lm` in which every function or class answering any of `exercises` (one or
    several) raises AnswerKeyError."""
    return _library_without(_names(exercises))


@functools.cache
def _library_without(names: tuple[str, ...]) -> Path:
    """`library_without`, built once per tuple of names."""
    target = _root() / f"proof_lm-{'+'.join(names)}"
    shutil.rmtree(target, ignore_errors=True)  # what an earlier attempt that failed left
    _copy_tree(REPO / "proof_lm", target)
    _cut(target, LIBRARY_ANSWERS, names)
    return _compiled(target, REPO / "proof_lm")


def _compiled(package: Path, mounted_at: Path) -> Path:
    """`package` with each module's bytecode beside it, compiled from the copy as cut (0755 folders,
    0644 files): the sandbox mounts it read-only, so every grading process would otherwise compile
    every module it imports again. The bytecode names its sources by the paths the sandbox mounts
    them at (`mounted_at`), never by the host's folder of answer-key copies."""
    compileall.compile_dir(package, quiet=1, ddir=mounted_at)
    for folder in package.rglob("__pycache__"):
        folder.chmod(0o755)
        for path in folder.iterdir():
            path.chmod(0o644)
    return package


def _cut(package: Path, answers: dict[str, tuple[str, ...]], exercises: tuple[str, ...]) -> None:
    """Replace each "module:name" that `answers` lists for any of `exercises` in the copied
    `package` by a refusing stand-in."""
    by_module: dict[str, set[str]] = {}
    for exercise in exercises:
        for entry in answers.get(exercise, ()):
            module, name = entry.split(":")
            by_module.setdefault(module, set()).add(name)
    for module, names in by_module.items():
        path = package / f"{module}.py"
        stub = STUB.replace("{EXERCISE}", ", ".join(exercises))
        path.write_text(without_definitions(path.read_text(), names, stub))


@functools.cache
def _stand_in(package: Path) -> Path:
    """A folder holding only `package`, one of the guest's stand-ins (`no_torch`, `no_precision`)."""
    target = _root() / package.parent.name
    target.mkdir(mode=0o755, exist_ok=True)
    shutil.copyfile(package, target / "__init__.py")
    (target / "__init__.py").chmod(0o644)
    return target


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """Where module `name` is installed (found without importing it)."""
    return importlib.util.find_spec(name) if name not in sys.modules else sys.modules[name].__spec__


@functools.cache
def base_packages() -> str | None:
    """The base Python's own site-packages, when grading runs in a virtual environment: mounted
    with the base installation (its standard library is needed), never on the environment's path,
    and one `sys.path.append` away (it may hold SciPy, whose `special.softmax` answers exercises)."""
    if sys.prefix == sys.base_prefix:
        return None
    base = Path(sysconfig.get_path("purelib", vars={"base": sys.base_prefix})).resolve()
    return (
        str(base) if base.is_dir() and not Path(sys.prefix).resolve().is_relative_to(base) else None
    )


@functools.cache
def _empty() -> Path:
    """An empty folder, mounted over what a sandbox must not see."""
    target = _root() / "empty"
    target.mkdir(mode=0o755, exist_ok=True)
    return target


@functools.cache
def _empty_file() -> Path:
    """An empty file, mounted over a compiled copy a sandbox must not read (Python compiles the
    source mounted beside it instead)."""
    target = _root() / "empty.pyc"
    target.touch(mode=0o644)
    return target


def _shaped_schedules(tree: ast.Module) -> set[str]:
    """The public classes of a module that build on LRScheduler, but FREE_SCHEDULES."""
    shaped: set[str] = set()
    for node in tree.body:
        bases = {b.id for b in getattr(node, "bases", ()) if isinstance(b, ast.Name)}
        if (
            isinstance(node, ast.ClassDef)
            and not node.name.startswith("_")
            and node.name not in FREE_SCHEDULES
            and bases & {"LRScheduler", *shaped}
        ):
            shaped.add(node.name)
    return shaped


@functools.cache
def schedules_cut(names: tuple[str, ...]) -> tuple[tuple[Path, str], ...]:
    """Binds for grading `names`: PyTorch's schedule modules with the shaped schedules cut out
    (each a refusing stand-in), and an empty file over each compiled copy of them."""
    target = _root() / f"schedules-{'+'.join(names)}"
    target.mkdir(mode=0o755)
    stub = STUB.replace("{EXERCISE}", ", ".join(names))
    binds = []
    for folder in torch_folders():
        for relative in SCHEDULE_FILES:
            real = Path(folder) / relative
            if not real.is_file():
                continue
            source = real.read_text()
            copy = target / real.name
            copy.write_text(without_definitions(source, _shaped_schedules(ast.parse(source)), stub))
            copy.chmod(0o644)
            binds.append((copy, str(real)))
            compiled = sorted((real.parent / "__pycache__").glob(f"{real.stem}.*.pyc"))
            binds += [(_empty_file(), str(path)) for path in compiled]
    return tuple(binds)


def own_runtime() -> set[str]:
    """The grading Python's own libpython, resolved: the one this interpreter has mapped, and the
    one its build names (sysconfig's LIBDIR/INSTSONAME), when either exists. Nothing else is
    exempt: with a virtual environment on the system's Python the base prefix is /usr, which holds
    other runtimes (libperl, a JVM's libjvm) a student must not load."""
    own = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rstrip("\n").split(None, 5)[-1]
            if path.startswith("/") and INTERPRETER_FILE.fullmatch(os.path.basename(path)):
                own.add(os.path.realpath(path))
    libdir, name = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    if libdir and name and os.path.isfile(os.path.join(libdir, name)):
        own.add(os.path.realpath(os.path.join(libdir, name)))
    return own


@functools.cache
def precision_copies() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every copy of the decimals (`decimal`, `_pydecimal`, `_decimal`: source, compiled or
    extension), of the native multiple-precision libraries and of interpreters' libraries
    (INTERPRETER_FILE, but the grading Python's own: `own_runtime`; files, not their symbolic
    links) and every `mpmath` or `sympy` folder in what a sandbox sees of the host (the system's
    folders and the Python installation: another Python's copy loads by its path too; not
    `base_packages`, covered whole), as files and folders, found once per process."""
    seen = bwrap.view()
    files, folders = [], []
    skipped, own = base_packages(), own_runtime()
    for root in sorted({source for source, _ in seen.system + seen.readonly}):
        for folder, names, filenames in os.walk(root):
            names[:] = [n for n in names if os.path.join(folder, n) != skipped]
            for name in [n for n in names if n in PRECISION_PACKAGES]:
                folders.append(os.path.join(folder, name))
                names.remove(name)
            files += [
                os.path.join(folder, f)
                for f in filenames
                if (PRECISION_FILE.fullmatch(f) or INTERPRETER_FILE.fullmatch(f))
                and not os.path.islink(os.path.join(folder, f))
            ]
    files = [f for f in files if os.path.realpath(f) not in own]
    return tuple(files), tuple(folders)


@functools.cache
def torch_folders() -> tuple[str, ...]:
    """Where PyTorch's packages are installed (found without importing them)."""
    found = []
    for name in ("torch", "functorch", "torchgen"):
        spec = _spec(name)
        if spec is not None and spec.submodule_search_locations:
            found += [str(Path(p).resolve()) for p in spec.submodule_search_locations]
    return tuple(found)


def mounts(exercises: str | tuple[str, ...]) -> list[tuple[Path, str]]:
    """Read-only binds for grading `exercises` (one, or several graded by one process): the two
    packages above and the data folder, and for NumPy exercises the stand-ins over every
    arbitrary-precision module and PyTorch package folder (mounted last: they cover them). Exercises graded together share an environment:
    all PyTorch or all NumPy."""
    names = _names(exercises)
    numpy = {name not in EXERCISES or not EXERCISES[name].torch for name in names}
    if len(numpy) != 1:
        raise ValueError(f"{names} mix NumPy and PyTorch exercises; one environment expected")
    with BUILDING:
        binds = [
            (grading_package(names), str(REPO / "autograder")),
            (library_without(names), str(REPO / "proof_lm")),
            (REPO / "data", str(REPO / "data")),
        ]
        if base_packages() is not None:
            binds.append((_empty(), base_packages()))
        if any(name in SCHEDULE_EXERCISES for name in names):
            binds += schedules_cut(names)
        if numpy == {True}:
            files, folders = precision_copies()
            binds += [(_stand_in(NO_PRECISION) / "__init__.py", file) for file in files]
            binds += [(_stand_in(NO_PRECISION), folder) for folder in folders]
            binds += [(_stand_in(NO_TORCH), folder) for folder in torch_folders()]
        return binds
