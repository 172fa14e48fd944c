"""Kernels forked from the grading worker's warm template behave like freshly started ones."""

import os
import signal
import time

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.forkserver import start
from autograder.grading_worker import WarmKernelManager
from autograder.warm_kernels import SOCKET_VARIABLE


def start_template(folder, monkeypatch):
    path = os.path.join(folder, "kernels.sock")
    process = start(path, "autograder.warm_kernels")
    monkeypatch.setenv(SOCKET_VARIABLE, path)
    return process


@pytest.fixture
def template(tmp_path, monkeypatch):
    process = start_template(str(tmp_path), monkeypatch)
    yield process
    process.stdin.close()
    process.wait(timeout=30)


def notebook(*sources: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])


def printed(cell) -> str:
    """Everything a cell printed (the kernel may send one print in several stream messages)."""
    return "".join(output["text"] for output in cell.outputs if output["output_type"] == "stream")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().split(")")[-1].split()[0] != "Z"


def test_a_forked_kernel_runs_a_notebook_like_a_fresh_one(template, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOF_LM_PROBE", "from the launcher")
    (tmp_path / "here.txt").write_text("x")
    nb = notebook(
        "import os, sys\nprint(os.getppid(), os.environ['PROOF_LM_PROBE'], os.path.exists('here.txt'))",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);",
        "import proof_lm.demo\nprint(proof_lm.demo.SMALL, 'torch' in sys.modules)",
    )
    monkeypatch.setenv("PROOF_LM_DEMO", "small")
    client = NotebookClient(
        nb,
        timeout=60,
        kernel_manager_class=WarmKernelManager,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    parent, text = printed(nb.cells[0]).split(" ", 1)
    assert int(parent) == template.pid, "the kernel is a child of the template, not a fresh process"
    assert text == "from the launcher True\n", "the launcher's environment and directory"
    assert "image/png" in nb.cells[1].outputs[0]["data"], "figures are drawn inline"
    assert printed(nb.cells[2]) == "True True\n", "the launcher's environment reaches the kernel"


def test_interrupts_reach_the_kernel_and_a_killed_relay_takes_its_kernel_along(template):
    nb = notebook("import os\nprint(os.getpid())", "import time\ntime.sleep(60)", "print('after')")
    client = NotebookClient(
        nb,
        timeout=3,
        interrupt_on_timeout=True,
        allow_errors=True,
        kernel_manager_class=WarmKernelManager,
    )
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        kernel = int(printed(nb.cells[0]))
        assert nb.cells[1].outputs[-1]["ename"] == "KeyboardInterrupt"
        assert printed(nb.cells[2]) == "after\n"
        relay = client.km.provisioner.process
        assert alive(kernel) and kernel != relay.pid
        relay.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while alive(kernel) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(kernel)


def test_the_template_ends_with_its_worker(tmp_path, monkeypatch):
    process = start_template(str(tmp_path), monkeypatch)
    socket_path = os.environ[SOCKET_VARIABLE]
    assert os.path.exists(socket_path)
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert not os.path.exists(socket_path)
