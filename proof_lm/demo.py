"""One switch for the size of the chapters' demonstrations.

Demonstrations carry no points. When nbgrader grades a notebook (it sets NBGRADER_EXECUTION to
"autograde" in the kernel) or when PROOF_LM_DEMO=small is set, training loops and sample counts in
the chapters run at a reduced size, the count heatmap leaves out its 1,458 labels (seconds of
drawing), and the figures the text quotes — which hold for the full size — are asserted only at
full size. Exercises and their tests are never affected. The environment is read at each call,
never when the module is imported.
"""

import os


def full_size() -> bool:
    """False while nbgrader autogrades or with PROOF_LM_DEMO=small, else True."""
    return not (
        os.environ.get("PROOF_LM_DEMO", "full") == "small"
        or os.environ.get("NBGRADER_EXECUTION") == "autograde"
    )


def size(full: int, small: int) -> int:
    """`full` normally, `small` when demonstrations run at a reduced size."""
    return full if full_size() else small
