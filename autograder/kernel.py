"""What hidden-test cells call inside the notebook's kernel."""

import os
from collections.abc import Callable

HIDDEN_CHECKS = (
    "PROOF_LM_HIDDEN_CHECKS"  # "trusted": class grading runs the checks outside the kernel
)
DEFERRED = (
    "{name}: the hidden checks run after this notebook, in the trusted grader's sandbox; "
    "their report takes the place of this cell's output."
)


def run_checks(name: str, fn: Callable) -> None:
    """Run every hidden check of exercise `name` on `fn`; print the report; AssertionError with hints if any fail.

    In class grading (HIDDEN_CHECKS set to "trusted") nothing is checked here — code in the notebook
    could change the outcome — and the trusted grader's report replaces this cell's output.
    """
    if os.environ.get(HIDDEN_CHECKS) == "trusted":
        print(DEFERRED.format(name=name))
        return
    from autograder.exercises import get_exercise
    from autograder.report import text_report
    from autograder.runner import check_function

    report = check_function(get_exercise(name), fn)
    print(text_report(report))
    if not report.passed:
        hints = "; ".join(f"{r.name}: {r.hint}" for r in report.results if not r.passed)
        raise AssertionError(
            f"{name} failed {sum(not r.passed for r in report.results)} hidden checks. {hints}"
        )
