"""In a notebook, a cell that needs an exercise not yet solved says so in one line, not a traceback.

Two errors mean "not yet": an exercise's stub, which raises NotImplementedError until it is written,
and a function the student kit holds back until its exercise's deadline, which raises `HeldBack`
naming that exercise. Inside an IPython kernel, `import proof_lm` shows either as one line (still an
error: the cell fails, and nbgrader counts it as failed); every other error keeps its traceback.
"""

import sys
import types


def waiting_line(error: BaseException) -> str | None:
    """The one line for an error that means an exercise is not there yet, else None."""
    if type(error).__name__ == "HeldBack":  # the kit's stand-in: its message names the exercise
        return f"HeldBack: {error}"
    if not isinstance(error, NotImplementedError) or error.__traceback__ is None:
        return None
    trace = error.__traceback__
    while trace.tb_next is not None:
        trace = trace.tb_next
    frame = trace.tb_frame
    if frame.f_globals.get("__name__") != "__main__" or frame.f_code.co_name == "<module>":
        return None  # not raised by a function of the notebook: a real error
    name = frame.f_code.co_name
    return (
        f"this cell waits for `{name}`, an exercise not solved yet (it still raises "
        "NotImplementedError): write it above, run its cell, then run this cell again"
    )


def _say_waiting(
    shell: object,
    kind: type,
    error: BaseException,
    trace: types.TracebackType,
    tb_offset: int | None = None,
) -> None:
    """IPython's handler: one line for an exercise not there yet, the usual traceback otherwise."""
    line = waiting_line(error)
    if line is None:
        shell.showtraceback((kind, error, trace), tb_offset=tb_offset)
    else:
        shell._showtraceback(kind, error, [line])  # an error output whose traceback is the line


def install() -> None:
    """Show exercises not there yet in one line, in the IPython kernel this runs in (if any)."""
    if "IPython" not in sys.modules:  # not in a notebook: nothing to do (and IPython not loaded)
        return
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((NotImplementedError, RuntimeError), _say_waiting)
