"""What the grading process and the trusted grader agree on: the frames they exchange, the statuses.

Imported by both sides (`autograder.sandbox.guest.child`, `autograder.sandbox.host.grading_process`,
`autograder.judge.runner`); it imports nothing.
"""

import struct

FRAME = struct.Struct(">cQ")  # a frame's header, either way: its kind and the payload's length
OPENING, JOB = b"O", b"J"  # to the process: what to load and how; one exercise to check
LOADED, ANSWERS, STATUS = (
    b"L",
    b"A",
    b"S",
)  # from it: loading is over; a job's answers; or its status
TIMED_OUT = b"timeout"  # a STATUS payload: the copy was still running at its job's deadline
NO_COPY = b"nocopy"  # a STATUS payload: no copy could be started (no process or memory to spare)
RESULT_LIMIT = 64 * 1024**2  # bytes of answers one job may send
# What loading the student's cells printed, shown on the feedback page beside each cell (LOADED's
# payload): at most OUTPUT_CHARS characters per output and NOTEBOOK_CHARS for the whole notebook.
OUTPUT_CHARS = 100_000
NOTEBOOK_CHARS = 4_000_000
OUTPUTS = 2_000  # outputs of the notebook in all (each also costs OUTPUT_COST of NOTEBOOK_CHARS)
OUTPUT_COST = 100
SHOWN_LIMIT = 8 * 1024**2  # bytes of LOADED's payload the trusted side reads; past it, nothing
# What the exit status of a copy that could not answer says happened (by exception name).
EXIT_STATUS = {"MemoryError": 3, "crashed": 4}
