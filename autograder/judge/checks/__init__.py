"""Hidden checks, one module per exercise, named after it in snake case (`GPT`: `gpt.py`): the
exercise's one home, declaring it at its top (`EXERCISE = Exercise(...)`,
`autograder.judge.declaration`) and holding its `<exercise>_checks(rng)` builder (and
`<exercise>_timed(rng)` for a timed one); what several of a chapter's exercises share is in a
`<topic>_shared.py` beside them, which declares nothing. See docs/authoring.md.

Every random case is drawn from `rng`, which the grader seeds anew for each grading run (the seed is
recorded in the report, so a run can be replayed); fixed edge cases need no generator.
"""
