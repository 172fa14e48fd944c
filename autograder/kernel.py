"""What hidden-test cells call inside the notebook's kernel."""

from collections.abc import Callable


def run_checks(name: str, fn: Callable) -> None:
    """Run every hidden check of exercise `name` on `fn`; print the report; AssertionError with hints if any fail.

    Only the instructor's own runs of the source notebooks get here: class grading never executes
    a notebook (the trusted grader checks each exercise outside the student's code).
    """
    from autograder.judge.exercises import get_exercise
    from autograder.judge.report import hints_line, text_report
    from autograder.judge.runner import check_function

    report = check_function(get_exercise(name), fn)
    print(text_report(report))
    if not report.passed:
        raise AssertionError(
            f"{name} failed {sum(not r.passed for r in report.results)} hidden checks. "
            + hints_line(report.results)
        )
