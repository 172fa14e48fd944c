"""One sandbox's resources are its own, and nothing inside one can redirect a trusted process.

A submission that holds most of its process limit, or fills its home and /tmp, costs only its own
grading: another sandbox started at the same moment starts its processes and threads and scores
in full. A kernel cannot replace the sockets its worker connects to (the socket folder is root's
and sealed before the kernel drops its privileges): a listener on the host that the kernel points
them at receives nothing. As root only (without root every sandbox keeps the instructor's uid;
see README: Grading safely).
"""

import asyncio
import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS

from autograder.course import kernels
from autograder.exercises import get_exercise
from autograder.runner import check_source
from autograder.wall import sandbox

CORRECT = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
HELD = 240  # at least this many held (the limit is 256 processes and threads per uid)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0 or not sandbox.available(), reason="uids of their own need root and bwrap"
    ),
]

HOLD = """
import os, time
children = []
for _ in range(1000):  # until the limit refuses: every process its uid may have
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
time.sleep(25)  # hold them while the classmate is graded
"""

# an honest solution that needs processes and threads of its own
HONEST = """
import os, threading
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(8) as pool:
    assert sum(pool.map(lambda x: x, range(32))) == 496
for _ in range(16):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
"""


def _sandbox_processes() -> int:
    """Processes of the machine whose real uid is a sandbox's (one of the range, or nobody)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/status") as status:
                    uid = next(int(line.split()[1]) for line in status if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            count += uid == sandbox.NOBODY or 0 <= uid - sandbox.UID_FIRST < sandbox.UID_COUNT
    return count


def test_two_sandboxes_never_share_a_uid():
    with sandbox.account() as first, sandbox.account() as second:
        assert first.uid != second.uid
        for uid in (first.uid, second.uid):
            assert sandbox.UID_FIRST <= uid < sandbox.UID_FIRST + sandbox.UID_COUNT
    lock_folder = os.lstat(sandbox.UID_LOCKS)
    assert lock_folder.st_uid == 0 and not lock_folder.st_mode & 0o022


CLAIM = """
import sys, time
from autograder.wall import sandbox
with sandbox.account() as held:
    print(held.uid, flush=True)
    sys.stdin.readline()  # held until the test has heard from every process
"""


def test_processes_claiming_at_once_get_different_uids():
    claimers = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIM], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    uids = [int(process.stdout.readline()) for process in claimers]
    for process in claimers:
        process.communicate("\n", timeout=30)
    assert len(set(uids)) == len(uids), uids  # each its own, while all are held at once


def test_a_sandbox_holding_its_processes_starves_no_other():
    exercise = get_exercise("perplexity")
    held = {}
    holder = threading.Thread(
        target=lambda: held.update(
            report=check_source(exercise, [HOLD + "\n" + CORRECT], timeout=60, seed=1)
        )
    )
    before = _sandbox_processes()
    holder.start()
    deadline = time.monotonic() + 40
    while _sandbox_processes() - before < HELD and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _sandbox_processes() - before >= HELD, "the holder never held its processes"
    honest = check_source(exercise, [HONEST + "\n" + CORRECT], timeout=30, seed=2)
    still_holding = _sandbox_processes() - before >= HELD
    holder.join()
    assert still_holding, "the holder let go before the classmate was graded"
    assert honest.passed and honest.flags == [] and honest.notes == [], (honest.flags, honest.notes)
    assert held["report"].passed, held["report"].notes  # the holder's own code is right too


@pytest.mark.parametrize("where", ["/home/student", "/tmp"])
def test_a_disk_filler_fills_only_its_own_small_home(where):
    exercise = get_exercise("perplexity")
    filler = f"""
import json, os
written = 0
chunk = b"x" * (1 << 20)
try:
    for n in range(4096):
        with open({where!r} + f"/fill-{{n}}", "wb") as f:
            for _ in range(32):
                f.write(chunk)
                written += len(chunk)
except OSError as error:
    raise RuntimeError("OBSERVED " + json.dumps({{"written": written, "error": error.errno}}))
raise RuntimeError("OBSERVED " + json.dumps({{"written": written, "error": None}}))
"""
    report = check_source(exercise, [filler + "\n" + CORRECT], timeout=60, seed=1)
    seen = next(json.loads(n.split("OBSERVED ", 1)[1]) for n in report.notes if "OBSERVED" in n)
    limit = sandbox.Limits().home_bytes if where != "/tmp" else sandbox.Limits().tmp_bytes
    assert seen["error"] == 28, seen  # ENOSPC: the home is full at its size, the host's disk is not
    assert seen["written"] <= limit, seen


SWAP = """
import json, os
from ipykernel.kernelapp import IPKernelApp
app = IPKernelApp.instance()
folder = os.path.dirname(app.abs_connection_file)
done = {}
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    try:
        os.unlink(path)
        os.symlink(LISTENER, path)
        done[name] = "planted"
    except OSError as error:
        done[name] = type(error).__name__
try:
    os.symlink(LISTENER, os.path.join(folder, "kernel-extra"))
    done["new entry"] = "planted"
except OSError as error:
    done["new entry"] = type(error).__name__
for sock in (app.control_socket, app.shell_socket, app.stdin_socket):
    try:
        sock.close(linger=0)  # the worker reconnects to what lies at the path now
    except Exception as error:
        done.setdefault("close", type(error).__name__)
print("SWAP " + json.dumps(done), flush=True)
"""


def _listen(path: str) -> tuple[socket.socket, list]:
    """A unix socket listening on the host at `path`; the list fills with what connects to it."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen(64)
    server.settimeout(0.2)
    reached: list = []

    def accept() -> None:
        while server.fileno() != -1:
            try:
                reached.append(server.accept()[0])
            except (TimeoutError, OSError):
                continue

    threading.Thread(target=accept, daemon=True).start()
    return server, reached


async def _swap_attack(manager: kernels.SandboxedKernelManager, listener: str) -> str:
    """Start a kernel, run the symlink swap in it, keep the worker's channels busy; what it printed."""
    await manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        printed: list[str] = []
        client.execute(f"LISTENER = {listener!r}\n" + SWAP)  # no reply: its shell socket is closed
        deadline = time.monotonic() + 60
        while "SWAP " not in "".join(printed) and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                message = await client.get_iopub_msg(timeout=1)
                if message["msg_type"] == "stream":
                    printed.append(message["content"]["text"])
                elif message["msg_type"] == "error":
                    content = message["content"]
                    printed.append(f"{content['ename']}: {content['evalue']}")
        for _ in range(10):  # the worker keeps talking on every channel: reconnects happen now
            client.kernel_info()
            client.control_channel.send(client.session.msg("kernel_info_request"))
            await asyncio.sleep(0.5)
        return "".join(printed)
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


@pytest.mark.parametrize("warm", [False, True])
def test_a_kernel_cannot_point_its_worker_at_a_host_socket(tmp_path, warm):
    listener = f"/tmp/proof-lm-listener-{uuid.uuid4().hex[:12]}.sock"
    server, reached = _listen(listener)
    started = None
    try:
        if warm:
            started = kernels.Zygote()
            kernels.ZYGOTE = started
        manager = kernels.SandboxedKernelManager(kernel_name="python3")
        sockets = Path(manager.connection_file).parent
        folder = os.lstat(sockets)
        assert folder.st_uid == 0 and folder.st_mode & 0o777 == 0o755
        printed = asyncio.run(_swap_attack(manager, listener))
        assert "SWAP " in printed, printed
        done = json.loads(printed.split("SWAP ", 1)[1].splitlines()[0])
        time.sleep(2)
        assert reached == [], f"a trusted process connected to the socket the kernel chose {done}"
        assert "planted" not in done.values(), done
        assert set(done) >= {"kernel.json", "new entry"}, done
        assert not sockets.exists()  # the worker removed the folder, every socket its own
    finally:
        kernels.ZYGOTE = None
        if started is not None:
            started.close()
        server.close()
        os.unlink(listener)
