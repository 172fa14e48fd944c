"""What the checks of `nplm_params` and `gpt_params` share: the widest model within a parameter budget.

Both exercises ask for the largest width (a multiple of `step`) whose model has at most `budget`
parameters. The reference is a bisection over an exact integer count, so it holds at any budget;
an answer is told by its symptom (too wide: its model's count; too narrow: the next width's), and
the known miscounts that give it, when it is more than one width off, are named.
"""

from collections.abc import Callable

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.expect import expect_raises, value_of
from autograder.sandbox.guest.protocol import Call, Outcome

Count = Callable[[int], int]  # a model's number of parameters, as a function of its width

# Past this, float64 no longer holds every integer.
FLOAT_EXACT = 2**53


def widest(count: Count, budget: int, step: int) -> int | None:
    """The largest multiple of `step` whose count is at most `budget` (None if not even `step`),
    for a count that grows with the width: exact, by doubling and bisection in integers."""
    if count(step) > budget:
        return None
    low, high = 1, 2  # in steps: count(low * step) fits
    while count(high * step) <= budget:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if count(middle * step) <= budget:
            low = middle
        else:
            high = middle
    return low * step


def _width(outcome: Outcome) -> int:
    """The answer as a Python integer: a Python or NumPy integer."""
    value = value_of(outcome)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise CheckFailed(f"returned {type(value).__name__} {value!r}; a width is an integer")
    return int(value)


def budget_check(
    what: str,
    call: Call,
    count: Count,
    budget: int,
    step: int,
    miscounts: list[tuple[str, Count]],
) -> Check:
    """A check that `call` answers the widest width within `budget`, naming a miscount by its width.

    `miscounts`: (a count that gets something wrong, named; that count as a function of the
    width).
    """
    expected = widest(count, budget, step)
    narrowest = (
        f"the narrowest model, of width {step:,}, has {count(step):,} parameters, "
        f"against a budget of {budget:,}"
    )
    if expected is None:

        def too_small(outcomes: list[Outcome]) -> None:
            expect_raises(outcomes[0], "ValueError", f"{narrowest}: no width fits")

        return Check(what, [call], too_small)
    wrong = [(hint, widest(miscount, budget, step)) for hint, miscount in miscounts]
    wrong = [(hint, width) for hint, width in wrong if width != expected]
    # past 2**53 a float's rounding moves an answer by one width
    note = (
        f" (the budget is past 2**53 = {FLOAT_EXACT:,}: which integers does a float64 hold?)"
        if budget > FLOAT_EXACT
        else ""
    )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        width = None if outcome.raised("ValueError") else _width(outcome)
        if width == expected:
            return
        known = list(dict.fromkeys(hint for hint, other in wrong if other == width))
        if width is None:
            symptom = f"raised ValueError, yet {narrowest}: it fits"
        elif width < step or width % step:
            symptom = f"width {width:,} is no model's: a width is a multiple of {step}"
        elif width > expected:
            one = "one width too wide" if width == expected + step else "too wide"
            symptom = (
                f"width {width:,} is {one}: its model has {count(width):,} parameters, over the "
                f"budget of {budget:,}{note}"
            )
        else:
            one = "one width too narrow" if width == expected - step else "too narrow"
            symptom = (
                f"width {width:,} is {one}: the next width, {width + step:,}, has "
                f"{count(width + step):,} parameters, within the budget of {budget:,}{note}"
            )
        # a miscount that gives the answer is named when the answer is more than one width off:
        # a width one off is what many slips give (a bias, a comparison, a float's rounding)
        if known and (width is None or abs(width - expected) != step):
            raise CheckFailed(f"{symptom}; it is the widest under " + ", or under ".join(known))
        raise CheckFailed(symptom)

    return Check(what, [call], judge)


def bad_input_check(what: str, call: Call, hint: str) -> Check:
    """A check that `call`, whose arguments describe no model, raises ValueError."""

    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [call], judge)
