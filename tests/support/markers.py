"""What no released notebook may hold: nbgrader's solution and hidden-test markers, and the grader's call."""

MARKERS = ["BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "run_checks"]
