"""The grading process: load the student's code into a fresh interpreter, make the calls, write plain answers.

Run by `autograder.runner` as `python -I -B -m autograder.child REQUEST FD` (or forked from a
template that has imported NumPy and IPython, see `autograder.forkserver`) in an empty working
directory, with no right to write files; the answers go to the parent through the pipe FD. Everything
it sends is untrusted: the parent decodes it with allow_pickle=False and judges it against
references it computed itself.
"""

import ast
import io
import os
import pickle
import resource
import sys
import traceback

import numpy as np

from autograder.harness import Outcome, run_call
from autograder.plain import dumps

MEMORY_LIMIT_BYTES = 3 * 1024**3


def apply_limits() -> None:
    """Capped memory and no file growth, for this process and anything it starts."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


class _NullShell:
    """Stands in for get_ipython() so that magics in a solution cell do nothing."""

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: None


WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
FORBIDDEN = {
    "os.remove",
    "os.unlink",
    "os.rename",
    "os.replace",
    "os.rmdir",
    "os.mkdir",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.utime",
    "shutil.rmtree",
    "shutil.move",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "subprocess.Popen",
    "pty.spawn",
    "socket.connect",
    "socket.bind",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "ctypes.cdata",
    "ctypes.addressof",
    "sys.addaudithook",
    "sys.setprofile",
    "sys.settrace",
}


def guard(event: str, args: tuple) -> None:
    """Audit hook: from here on no file may be opened for writing, and nothing may leave the process."""
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS
        ):
            raise PermissionError(f"grading forbids writing files ({path!r})")
    elif event in FORBIDDEN:
        raise PermissionError(f"grading forbids {event}")


def load_student_code(preamble: str, sources: list[str]) -> tuple[dict, list[str]]:
    """Execute the preamble, then each top-level statement of each cell; collect what failed."""
    from IPython.core.inputtransformer2 import TransformerManager

    namespace: dict = {"__name__": "__student__", "get_ipython": _NullShell}
    exec(compile(preamble, "<preamble>", "exec"), namespace)
    transformer, problems = TransformerManager(), []
    for number, source in enumerate(sources, start=1):
        try:
            tree = ast.parse(transformer.transform_cell(source), f"<cell {number}>")
        except SyntaxError as error:
            problems.append(f"cell {number} has a syntax error: {error.msg} (line {error.lineno})")
            continue
        for statement in tree.body:
            try:
                module = ast.Module(body=[statement], type_ignores=[])
                exec(compile(module, f"<cell {number}>", "exec"), namespace)
            except BaseException as error:  # a top-level failure is reported, not fatal
                problems.append(
                    f"cell {number}, line {statement.lineno}: {type(error).__name__}: {error}"
                )
    return namespace, problems


def main() -> None:
    """Read the request, run the calls, write the answers."""
    request_path, result_fd = sys.argv[1], int(sys.argv[2])
    with open(request_path, "rb") as handle:
        request = pickle.load(handle)  # written by the trusted parent
    from IPython.core.inputtransformer2 import TransformerManager  # noqa: F401 - imported before the guard

    result_pipe = os.fdopen(result_fd, "wb")  # opened before the guard, which forbids writes
    sys.addaudithook(guard)  # cannot be removed: everything after this runs under it
    namespace, problems = load_student_code(request["preamble"], request["sources"])
    fn = namespace.get(request["function"])
    outcomes: list[Outcome] = []
    if callable(fn):
        for call in request["calls"]:
            try:
                outcomes.append(run_call(fn, call))
            except BaseException:  # e.g. SystemExit from the student's function
                outcomes.append(
                    Outcome(
                        error="BaseException",
                        error_bases=("BaseException",),
                        message=traceback.format_exc(limit=0)[-300:],
                    )
                )
    summary = {
        "found": callable(fn),
        "problems": problems,
        "outcomes": [vars(outcome) for outcome in outcomes],
    }
    text, arrays = dumps(summary)
    arrays["__json__"] = np.frombuffer(text.encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    with result_pipe:  # a pipe to the parent: no file is written
        result_pipe.write(buffer.getvalue())


def preload() -> None:
    """For a fork server of grading processes: import what every one needs before student code."""
    from IPython.core.inputtransformer2 import TransformerManager  # noqa: F401


def run_forked(request: dict) -> None:
    """In a process forked by `autograder.forkserver` (already its own session): limit, then grade."""
    apply_limits()
    main()


if __name__ == "__main__":
    main()
