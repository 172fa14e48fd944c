"""Judging helpers: turn a plain answer into a verdict with a hint that names the likely mistake."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from autograder.judge.check import CheckFailed, describe_error
from autograder.sandbox.guest.protocol import Outcome


def value_of(outcome: Outcome) -> object:
    """The answer, or a failure saying what the student's code raised."""
    if outcome.error is not None:
        raise CheckFailed(describe_error(outcome))
    return outcome.value


def as_array(value: object, shape: tuple, kinds: str = "f") -> np.ndarray:
    """`value` as an array of the given shape whose dtype kind is one of `kinds`."""
    if not isinstance(value, np.ndarray):
        raise CheckFailed(
            f"returned {type(value).__name__}; expected a NumPy array of shape {shape}"
        )
    if value.shape != shape:
        raise CheckFailed(f"returned shape {value.shape}; expected {shape}")
    if value.dtype.kind not in kinds:
        names = {"f": "floats", "i": "integers", "b": "booleans", "u": "unsigned integers"}
        wanted = " or ".join(names[k] for k in kinds)
        raise CheckFailed(f"returned dtype {value.dtype}; expected {wanted}")
    return value


def array_answer(outcome: Outcome, shape: tuple, kinds: str = "f") -> np.ndarray:
    """The answer of `outcome` as an array of the given shape and dtype kind."""
    return as_array(value_of(outcome), shape, kinds)


def as_number(value: object) -> float:
    """A plain answer as a float: a Python or NumPy number, or a 0-d / one-element array."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, np.floating):  # a longdouble's item is itself
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CheckFailed(f"returned {type(value).__name__}; expected a single number")
    try:
        return float(value)
    except OverflowError:  # an int past float64's range: the sandbox passes ints of any size
        raise CheckFailed("returned an integer too large for a float64") from None


def number_answer(outcome: Outcome) -> float:
    """The answer of `outcome` as a float."""
    return as_number(value_of(outcome))


def tuple_answer(outcome: Outcome, names: list[str]) -> tuple:
    """The answer of `outcome` as a tuple of len(names) parts (a list is accepted too)."""
    value = value_of(outcome)
    if not (isinstance(value, tuple | list) and len(value) == len(names)):
        raise CheckFailed(f"returned {type(value).__name__}; expected a tuple ({', '.join(names)})")
    return tuple(value)


def dict_answer(outcome: Outcome, names: tuple[str, ...]) -> dict:
    """The answer of `outcome` as a dict holding (at least) every key of `names`."""
    value = value_of(outcome)
    if not isinstance(value, dict):
        raise CheckFailed(
            f"returned {type(value).__name__}; expected a dict with keys {', '.join(names)}"
        )
    missing = [name for name in names if name not in value]
    if missing:
        raise CheckFailed(f"the dict lacks {', '.join(missing)}")
    return value


@contextmanager
def labelled(label: str) -> Iterator[None]:
    """Prefix the hint of any failure inside the block with `label: `."""
    try:
        yield
    except CheckFailed as failure:
        raise CheckFailed(f"{label}: {failure}") from None


# How far a correct answer computed in float32 inside (inputs cast to float32, the answer cast
# back) may be from the float64 reference. float32 rounds to 6e-8 relative; measured over 300
# random cases each (tools: inputs of order one, as the checks draw them), the largest error
# relative to the largest entry of the answer was 2.8e-7 (softmax, layer norm), 4.7e-7 (causal
# attention) and 2.2e-6 (tanh of a 30-term matmul), while an entry near 0 can be off by far
# more than 1e-5 of itself (cancellation). So a tight (float64) tolerance is widened to
# FLOAT32_RTOL relative plus FLOAT32_RTOL times the largest finite entry of the expected answer:
# 4x to 35x above the measured error, and still far below the mistakes the checks diagnose
# (their cases are drawn so that each is off by 1e-3 or more there). Checks whose contract
# truly needs float64 (finite differences; a row whose mean is 1e6 times its spread, which
# float32 cannot even hold) pass strict=True and keep their own tolerance.
FLOAT32_RTOL = 1e-5


def tolerance(
    expected: object, rtol: float, atol: float, strict: bool = False, inputs: float = 0.0
) -> tuple[float, float]:
    """(rtol, atol) widened to float32's precision unless `strict` or exact (rtol = atol = 0);
    `inputs`: the size of the values that went through exp (logits, scores), see float32_rtol."""
    if strict or (rtol == 0 and atol == 0):
        return rtol, atol
    expected = np.asarray(expected, dtype=np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    scale = float(finite.max()) if finite.size else 0.0
    floor = float32_rtol(inputs)
    return max(rtol, floor), max(atol, floor * scale)


def float32_rtol(input_scale: float) -> float:
    """The relative tolerance for an answer computed from inputs as large as `input_scale` that
    pass through exp (a softmax): float32 holds them to 6e-8 of their size, an absolute error
    that exp turns into a relative one (measured: 5.4e-5 for logits near 1000; this gives 2.4e-4).
    At most 0.05: larger inputs saturate the softmax (weights of exactly 0 and 1), and a slip
    there (a finite fill, a wrong kept set) is off by far more."""
    return min(max(FLOAT32_RTOL, 4 * 2.0**-24 * input_scale), 0.05)


def matches(
    actual: object,
    expected: object,
    rtol: float,
    atol: float,
    strict: bool = False,
    inputs: float = 0.0,
) -> bool:
    """True when two answers agree elementwise within tolerance (inf must match inf, nan never
    matches); a tight tolerance is widened to float32's precision unless `strict`."""
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        return False
    rtol, atol = tolerance(expected, rtol, atol, strict, inputs)
    return bool(np.all(np.isclose(actual, expected, rtol=rtol, atol=atol)))


def close_entries(
    actual: np.ndarray,
    expected: np.ndarray,
    rtol: float,
    atol: float,
    strict: bool = False,
    inputs: float = 0.0,
) -> np.ndarray:
    """Elementwise `matches` of two arrays of one shape (the same widened tolerance)."""
    rtol, atol = tolerance(expected, rtol, atol, strict, inputs)
    return np.isclose(actual, expected, rtol=rtol, atol=atol)


def precision_hint(actual: object, expected: object, strict: bool) -> str | None:
    """A hint for an answer that misses only by a precision-sized amount, or None."""
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape or not np.isfinite(actual).all():
        return None
    if strict and matches(actual, expected, 1e-5, 1e-8):
        return (
            "right to about 6 digits only, the precision of float32: this check needs float64's "
            "16 digits (where does the computation drop to float32?)"
        )
    if matches(actual, expected, 1e-3, 0):
        scale = float(np.max(np.abs(expected), initial=0.0, where=np.isfinite(expected)))
        miss = float(np.max(np.abs(actual - expected))) / (scale or 1.0)
        return (
            f"off by about {miss:.0e} of the answer's size only: more than float32's rounding "
            f"(1e-5) allows, but small; if you compute in float16 or sum very many terms in "
            "float32 it is a precision problem, otherwise look for a small term of the formula "
            "(an eps, an n - 1 where n belongs, a step count off by one)"
        )
    return None


def expect_close(
    actual: object,
    expected: object,
    rtol: float = 1e-7,
    atol: float = 1e-10,
    diagnoses: list[tuple[str, object]] = (),
    note: str = "",
    strict: bool = False,
    inputs: float = 0.0,
    reveal: bool = True,
) -> None:
    """Pass when `actual` matches `expected` (to float32's precision unless `strict`; `inputs` as
    in `tolerance`); otherwise name every known mistake it matches.

    `note` is added to a failure that matches no known mistake. `reveal=False` keeps the expected
    value out of the report: for a derivation, the value on a small case is the answer.
    """
    if matches(actual, expected, rtol, atol, strict, inputs):
        return
    known = [
        (hint, matches(actual, candidate, rtol, atol, strict=True))
        for hint, candidate in diagnoses
        if candidate is not None and matches(actual, candidate, rtol, atol, strict, inputs)
    ]
    if known:  # a match only to float32's precision may be another slip: add the note
        exact = any(tight for _, tight in known)
        raise CheckFailed(
            "; or ".join(dict.fromkeys(hint for hint, _ in known)) + ("" if exact else note)
        )
    if rtol or atol:
        hint = precision_hint(actual, expected, strict)
        if hint:
            raise CheckFailed(hint + note)
    rtol, atol = tolerance(expected, rtol, atol, strict, inputs)
    actual_arr, expected_arr = (
        np.asarray(actual, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
    )
    if actual_arr.shape == expected_arr.shape and np.any(
        ~np.isfinite(actual_arr) & np.isfinite(expected_arr)
    ):
        raise CheckFailed(
            "got nan or inf where the answer is finite: exp overflows float64 above about 709, and "
            "the log of a probability that rounded to 0 is -inf (which quantity of your "
            "computation leaves float64's range on these inputs?)"
        )
    if actual_arr.ndim == 0:
        expected_text = f", expected {expected_arr.item():.10g}" if reveal else " (wrong)"
        raise CheckFailed(f"got {actual_arr.item():.10g}{expected_text}{note}")
    if np.isnan(actual_arr).any():
        raise CheckFailed(
            f"the answer contains nan at {np.argwhere(np.isnan(actual_arr))[0].tolist()}"
        )
    wrong = ~np.isclose(actual_arr, expected_arr, rtol=rtol, atol=atol)
    where = tuple(np.argwhere(wrong)[0].tolist())
    expected_text = f", expected {expected_arr[where]:.10g}" if reveal else ""
    raise CheckFailed(
        f"{int(wrong.sum())} of {wrong.size} entries differ; first at {where}: "
        f"got {actual_arr[where]:.10g}{expected_text}{note}"
    )


def expect_closed_form(
    labels: tuple[str, ...],
    answers: tuple[object, ...],
    exact: tuple[np.ndarray, ...],
    large_means: bool,
    note: str = "",
) -> None:
    """Each answer agrees with its float64 closed form in `exact` as float64 can: to ~1e-13, or to
    ~1e-9 where the inputs' means are 1e6 times their spreads (`large_means`: the inputs themselves
    hold no more, and float32 is refused)."""
    rtol, atol = (1e-7, 1e-8) if large_means else (1e-8, 1e-10)
    for label, answer, want in zip(labels, answers, exact, strict=True):
        with labelled(label):
            scale = float(np.max(np.abs(want), initial=1.0))
            expect_close(answer, want, rtol, atol * scale, note=note, strict=large_means)


def expect_raises(outcome: Outcome, error: str, hint: str) -> None:
    """Pass when the call raised `error` (or a subclass)."""
    if outcome.raised(error):
        return
    if outcome.error is not None:
        raise CheckFailed(f"{describe_error(outcome)}; expected {error} ({hint})")
    raise CheckFailed(f"returned normally; expected {error} ({hint})")


def same(before: object, after: object) -> bool:
    """Deep equality of plain data: arrays by shape and value (nan equal to nan), containers item by item."""
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        return (
            isinstance(before, np.ndarray)
            and isinstance(after, np.ndarray)
            and before.shape == after.shape
            and np.array_equal(before, after, equal_nan=before.dtype.kind == "f")
        )
    if isinstance(before, dict):
        return (
            isinstance(after, dict)
            and before.keys() == after.keys()
            and all(same(before[k], after[k]) for k in before)
        )
    if isinstance(before, list | tuple):
        return (
            isinstance(after, list | tuple)
            and len(before) == len(after)
            and all(same(b, a) for b, a in zip(before, after, strict=True))
        )
    return type(before) is type(after) and before == after


def expect_unchanged(outcome: Outcome, original_args: tuple) -> None:
    """Pass when every argument is as it was before the call and the answer is a new array."""
    after = outcome.args_after
    for index, (before, now) in enumerate(zip(original_args, after or (), strict=False)):
        if not same(before, now):
            raise CheckFailed(
                f"argument {index + 1} was modified: an operation wrote into the caller's array "
                "(an in-place operator, or a conversion such as np.asarray(x, dtype=float) that "
                "hands back x itself when it is already float64)"
            )
    for where, index in outcome.aliases:
        raise CheckFailed(
            f"{where} is argument {index + 1} or a view of it: the caller would see your answer "
            "change when they change their array"
        )


def exact_count(
    expected: float, diagnoses: list[tuple[str, float]]
) -> Callable[[list[Outcome]], None]:
    """A judge for one call whose answer must be exactly `expected` (a count), naming known miscounts."""

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        known = [(hint, float(count)) for hint, count in diagnoses if count != expected]
        expect_close(number_answer(outcome), expected, rtol=0, atol=0, diagnoses=known)

    return judge


def expect_fresh(outcome: Outcome, names: tuple[str, ...]) -> None:
    """Pass when no array of the answer shares memory with an argument (`names`: the arguments')."""
    for where, index in outcome.aliases:
        name = names[index] if index < len(names) else f"argument {index + 1}"
        raise CheckFailed(
            f"{where} is {name} itself (or a view of it): changing one later would change the other"
        )
