"""The instructor's flag vocabulary: every reason to look at a submission, one kind each, one line shown.

Every flag class grading writes (flags.json, the terminal, grades.csv, the gradebook's flag) is
built here from a `Reason` and its details, so the words of each kind are written once; the
trusted grader's own per-exercise flags are `autograder.judge.verdicts.Flag`, quoted by GRADER.
"""

import string
from enum import StrEnum


class Reason(StrEnum):
    """One kind of flag; its value is the line shown, `{}` standing for each detail given to `say`."""

    BESIDE = "handed in files beside the notebook (not graded): {}"
    CHANGED = "the submitted notebook changed after it was collected"
    STRIPPED = "nbgrader metadata stripped from every cell"
    LOCKED_DELETED = "locked cell {} deleted (or its metadata stripped)"
    LOCKED_EDITED = "locked cell {} edited"
    SUSPICIOUS = "suspicious code in {} (a hint to look; it changes no score)"
    UNSCANNED = "the notebook could not be scanned for tampering: {}"
    UNREADABLE = "the submission is not a readable notebook: {}"
    REFUSED = "handed in but refused at collect, not graded: {}"
    NBGRADER_FAILED = "nbgrader could not record the notebook (its autograde failed)"
    GRADER = "{}: {} in the trusted grader"  # the exercise, then its autograder.judge.verdicts.Flag

    def say(self, *details: object) -> str:
        """This flag's line with `details` in its places; ValueError unless there is one per place."""
        places = sum(1 for _, field, _, _ in string.Formatter().parse(self.value) if field == "")
        if len(details) != places:
            raise ValueError(f"{self.name} takes {places} details, got {len(details)}")
        return self.value.format(*details)
