"""Grading kernels forked from a warm template, so that no kernel pays for importing PyTorch again.

nbgrader starts a new kernel for every notebook, and each one spends about 3 s of CPU importing
ipykernel, PyTorch and matplotlib before its first cell. A grading worker instead starts one
`autograder.forkserver` template of this module, which imports them once and then only waits;
every kernel is a fork of it: a new process with its own copy of memory, which no other
submission's code has touched. The template itself never runs a line of a notebook.

jupyter_client manages the fork server's relay in place of the kernel (the kernel command of
`autograder.grading_worker.WarmKernelManager`): interrupts and terminations reach the kernel
through it, and a killed relay takes its kernel along.
"""

import importlib
import os
import sys

SOCKET_VARIABLE = "PROOF_LM_KERNEL_TEMPLATE"  # where a worker's template listens
# What the chapters' set-up cells import, except modules that look at their surroundings when
# imported: proof_lm.demo reads the environment, tqdm.auto asks whether it runs in a kernel (and
# proof_lm.training and proof_lm.table_fit import it). Those are imported by the kernel itself.
PRELOAD = [
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipywidgets",
    "numpy",
    "torch",
    "torch.nn.functional",
    "matplotlib.pyplot",
    "matplotlib_inline.backend_inline",
    "tqdm.notebook",
    "proof_lm.backoff",
    "proof_lm.baselines",
    "proof_lm.data",
    "proof_lm.datasets",
    "proof_lm.embeddings",
    "proof_lm.gradcheck",
    "proof_lm.metrics",
    "proof_lm.ngram",
    "proof_lm.nplm",
    "proof_lm.sampling",
    "proof_lm.vocab",
    "autograder.kernel",
]
NOT_PRELOADED = ("proof_lm.demo", "tqdm.auto", "tqdm.autonotebook")


def preload() -> None:
    """Import what every kernel would import, as a fresh ipykernel would see it."""
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # as ipykernel_launcher does; the kernel puts its own directory back
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for name in PRELOAD:
        importlib.import_module(name)
    for name in NOT_PRELOADED:
        if name in sys.modules:
            raise RuntimeError(f"the template must not import {name}: it depends on where it runs")


def _integrate() -> None:
    """What matplotlib's inline backend and ipywidgets do when first imported inside a kernel."""
    from ipywidgets import _handle_ipython
    from matplotlib_inline.backend_inline import _enable_matplotlib_integration

    _enable_matplotlib_integration()  # shows figures after each cell
    _handle_ipython()  # lets a front end ask for widgets' state


def run_forked(request: dict) -> None:
    """In a forked child (its streams, directory and environment the relay's): be an ipykernel."""
    from ipykernel import kernelapp

    arguments = request["argv"][1:]
    if request["env"].get("JPY_PARENT_PID", "").isdigit():  # read at import, in the template
        arguments.append(f"--IPKernelApp.parent_handle={request['env']['JPY_PARENT_PID']}")
    app = kernelapp.IPKernelApp.instance()
    app.initialize(arguments)
    _integrate()
    app.start()
