"""Hidden checks, one module per chapter, one `<exercise>_checks(rng)` builder per exercise.

Every random case is drawn from `rng`, which the grader seeds anew for each grading run (the seed is
recorded in the report, so a run can be replayed); fixed edge cases need no generator.
"""
