"""Warm kernels forked from the template (`autograder.wall.zygote`) are sandboxed as the cold ones are.

Each test forks real kernels from a real template and runs code in them as a student would: what
they can see, what they are, what they can reach, and what is left when they end. Grading as root
only (the template builds its sandboxes with mounts); skipped elsewhere.
"""

import dataclasses
import json
import os
import platform
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from conftest import REPO
from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

from autograder.course import kernels
from autograder.wall import policy, sandbox, zygote

pytestmark = pytest.mark.skipif(
    not (zygote.available() and sandbox.available()), reason="warm kernels need root and bwrap"
)
CANARY = "proof-lm-warm-canary-value"


@pytest.fixture(scope="module")
def template() -> Iterator[kernels.Zygote]:
    os.environ["PROOF_LM_WARM_CANARY"] = CANARY  # the grader's environment: never the kernel's
    started = kernels.Zygote()
    yield started
    started.close()


@contextmanager
def kernel(template: kernels.Zygote, seconds: int = 60) -> Iterator[tuple]:
    """A kernel forked by the template as the kernel manager forks one; (client, process, uid)."""
    sockets = tempfile.mkdtemp(prefix="proof-lm-test-kernel-")
    os.chmod(sockets, 0o755)
    account = sandbox.Account()
    connection = os.path.join(sockets, "kernel.json")
    write_connection_file(connection, transport="ipc", ip=os.path.join(sockets, "kernel"))
    manager = kernels.SandboxedKernelManager.__new__(kernels.SandboxedKernelManager)
    process = template.spawn(
        {
            "connection_file": connection,
            "sockets": sockets,
            "uid": account.uid,
            "argv": ["-f", connection],
            "env": policy.kernel_environment(),
            "readonly": [(str(s), inside) for s, inside in manager._mounts()],
            "seconds": seconds,
            "limits": {**dataclasses.asdict(kernels.KERNEL_LIMITS), "cpu_seconds": seconds},
        }
    )
    client = BlockingKernelClient(connection_file=connection)
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        yield client, process, account.uid
    finally:
        client.stop_channels()
        process.kill()
        process.wait(timeout=30)
        account.release()


def run(client: BlockingKernelClient, code: str) -> str:
    """Run `code` in the kernel; what it printed (an error's name and message when it raised)."""
    printed = []

    def keep(message: dict) -> None:
        content = message["content"]
        if message["msg_type"] == "stream":
            printed.append(content["text"])
        elif message["msg_type"] == "error":
            printed.append(f"{content['ename']}: {content['evalue']}")

    client.execute_interactive(code, timeout=60, output_hook=keep)
    return "".join(printed)


def probe(client: BlockingKernelClient, code: str) -> object:
    """The JSON value that `code` (an expression) has in the kernel."""
    return json.loads(run(client, f"import json\nprint(json.dumps({code}))").strip())


def test_a_warm_kernel_is_nobody_without_privileges_network_or_host(template):
    with kernel(template) as (client, _, uid):
        status = probe(client, "open('/proc/self/status').read()")
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        assert fields["Uid"].split() == [str(uid)] * 4
        assert sandbox.UID_FIRST <= uid < sandbox.UID_FIRST + sandbox.UID_COUNT
        assert int(fields["CapEff"], 16) == int(fields["CapPrm"], 16) == 0
        assert int(fields["CapBnd"], 16) == 0 and fields["NoNewPrivs"].strip() == "1"
        assert fields["Seccomp"].strip() == "2", "the keyring filter (autograder.inside.seccomp)"
        number = {"x86_64": 248, "aarch64": 217}[platform.machine()]  # add_key
        add_key = f"ctypes.CDLL(None, use_errno=True).syscall({number}, b'user', b'k', b'v', 1, -4)"
        refused = probe(
            client, f"[{add_key}, ctypes.get_errno()] if (ctypes := __import__('ctypes')) else 0"
        )
        assert refused == [-1, 1], "add_key refused with EPERM in a warm kernel"
        assert probe(client, "os.getpid() if (os := __import__('os')) else 0") == 1
        interfaces = (
            "[l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]]"
        )
        assert probe(client, interfaces) == ["lo"]
        refused = run(
            client,
            "import socket\ns = socket.socket()\ns.settimeout(3)\ns.connect(('1.1.1.1', 80))",
        )
        assert "OSError" in refused or "unreachable" in refused.lower(), refused
        for path in ("solutions", "autograder/checks", "course", "tests", ".git"):
            assert probe(client, f"__import__('os').path.exists({str(REPO / path)!r})") is False
        listed = probe(client, f"sorted(__import__('os').listdir({str(REPO / 'autograder')!r}))")
        assert listed == ["__init__.py", "inside", "kernel.py"]
        inside = probe(
            client, f"sorted(__import__('os').listdir({str(REPO / 'autograder/inside')!r}))"
        )
        shipped = [
            *(REPO / "autograder/inside").glob("*.py"),
            *(REPO / "autograder/inside").glob("*.json"),
        ]
        assert inside == sorted(p.name for p in shipped)
        assert CANARY not in run(client, "import os\nprint(dict(os.environ))")
        modules = probe(client, "[m for m in __import__('sys').modules if 'autograder' in m]")
        assert set(modules) <= {"autograder", "autograder.kernel"}, modules
        assert "PermissionError" in run(client, "open('/etc/passwd', 'a')")


def test_warm_kernels_cannot_see_each_other_or_the_template(template):
    with kernel(template) as (first, _, first_uid), kernel(template) as (second, _, second_uid):
        assert first_uid != second_uid  # each its own process limit
        run(first, "open('secret.txt', 'w').write('mine')\nimport time")
        assert "secret.txt" not in probe(second, "__import__('os').listdir('.')")
        pids = probe(
            second, "sorted(int(p) for p in __import__('os').listdir('/proc') if p.isdigit())"
        )
        assert pids and max(pids) < 50, pids  # its own namespace: pid 1 and its own children
        assert run(first, "print(open('secret.txt').read())").strip() == "mine"
        # a kill sweep over every pid it can name reaches nothing outside its own sandbox
        run(
            second,
            "import os, signal\n"
            "for pid in range(2, 40000):\n"
            "    try: os.kill(pid, signal.SIGKILL)\n"
            "    except OSError: pass\n",
        )
        assert run(first, "print('alive')").strip() == "alive"
        assert template._process.poll() is None


def test_what_a_warm_kernel_starts_ends_with_it(template):
    marker = "proof-lm-warm-daemon-marker"
    with kernel(template) as (client, process, _):
        run(
            client,
            "import subprocess, sys\n"
            f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}],"
            " start_new_session=True)\n",
        )
        time.sleep(0.5)
        assert any(marker in " ".join(p) for p in _cmdlines())
    deadline = time.monotonic() + 10
    while any(marker in " ".join(p) for p in _cmdlines()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(marker in " ".join(p) for p in _cmdlines()), "a daemon outlived its kernel"
    assert process.poll() is not None


def test_a_warm_kernel_ends_after_its_seconds(template):
    with kernel(template, seconds=5) as (_, process, _):
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert process.poll() is not None, "the kernel outlived its wall-clock limit"


def _cmdlines() -> list[list[str]]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    found.append(handle.read().decode(errors="replace").split("\0"))
            except OSError:
                continue
    return found


def test_a_dead_template_says_so_and_the_manager_starts_cold(monkeypatch):
    started = kernels.Zygote()
    monkeypatch.setattr(kernels, "ZYGOTE", started)
    os.kill(started._process.pid, signal.SIGKILL)
    started._process.wait()
    with pytest.raises(RuntimeError, match="stopped"):
        started.spawn({})


def test_the_grading_kernel_manager_forks_its_kernels_from_the_template(monkeypatch):
    """What nbgrader starts in class grading is a warm kernel (not the cold bwrap command), and it runs."""
    import asyncio

    monkeypatch.setattr(kernels, "ZYGOTE", kernels.Zygote())

    async def start_run_stop() -> tuple[object, str]:
        manager = kernels.SandboxedKernelManager(kernel_name="python3")
        await manager.start_kernel()
        try:
            client = manager.client()
            client.start_channels()
            await client.wait_for_ready(timeout=60)
            reply = await client.execute_interactive(
                "print(6 * 7)", timeout=60, output_hook=seen.append
            )
            client.stop_channels()
            return manager.provisioner.process, reply["content"]["status"]
        finally:
            await manager.shutdown_kernel(now=True)

    seen: list[dict] = []
    try:
        process, status = asyncio.run(start_run_stop())
    finally:
        kernels.ZYGOTE.close()
    assert isinstance(process, kernels.ForkedKernel), type(process)
    assert status == "ok"
    assert any("42" in m["content"].get("text", "") for m in seen if m["msg_type"] == "stream")


def test_a_cold_kernel_refuses_the_keyrings_too(monkeypatch):
    """Without the template the kernel starts under bwrap (kernel_boot): the same seccomp filter."""
    import asyncio

    monkeypatch.setattr(kernels, "ZYGOTE", None)
    number = {"x86_64": 248, "aarch64": 217}[platform.machine()]  # add_key
    code = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"print(libc.syscall({number}, b'user', b'k', b'v', 1, -4), ctypes.get_errno())"
    )

    async def start_run_stop() -> tuple[object, list[str]]:
        manager = kernels.SandboxedKernelManager(kernel_name="python3")
        await manager.start_kernel()
        try:
            client = manager.client()
            client.start_channels()
            await client.wait_for_ready(timeout=120)
            seen: list[dict] = []
            await client.execute_interactive(code, timeout=60, output_hook=seen.append)
            client.stop_channels()
            printed = [m["content"]["text"] for m in seen if m["msg_type"] == "stream"]
            return manager.provisioner.process, printed
        finally:
            await manager.shutdown_kernel(now=True)

    process, printed = asyncio.run(start_run_stop())
    assert not isinstance(process, kernels.ForkedKernel)
    assert "".join(printed).split() == ["-1", "1"], printed  # add_key: EPERM
