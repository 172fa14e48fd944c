"""A grading thread's fork cannot hang another thread's BLAS call in the grader's process."""

import subprocess
import textwrap

from conftest import PYTHON, REPO

# Another thread keeps multiplying matrices large enough for a multithreaded BLAS while this one
# forks, as grading threads do when each starts its sandbox (subprocess with preexec_fn). With
# OpenBLAS's thread pool, the fork shuts the pool down under the running call, which then waits for
# ever (measured: it hangs within a few hundred forks). The grader's package sets one BLAS thread.
RACE = textwrap.dedent(
    """
    import os, threading
    import autograder
    import numpy as np

    a, b = np.random.default_rng(0).random((22000, 30)), np.random.default_rng(1).random((30, 200))
    stop = False

    def multiply():
        while not stop:
            a @ b

    worker = threading.Thread(target=multiply)
    worker.start()
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    stop = True
    worker.join(30)
    print("hung" if worker.is_alive() else "finished")
    os._exit(0)
    """
)


def test_forking_beside_a_blas_call_does_not_hang_it():
    done = subprocess.run(
        [PYTHON, "-c", RACE], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "finished", (done.stdout, done.stderr[-2000:])
