"""The grading core: the exercises, their checks and references, the runner, verdicts and reports."""
