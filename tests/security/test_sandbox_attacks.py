"""Attacks on the grading sandbox, written as a student who has read all of our code would write them.

Each attack runs through the real trusted grader (`check_source`, sandbox on) as the top level of a
submission beside a correct function. What the attack saw inside comes back through the only
channel a student has (a top-level exception becomes a note in the report); what it did outside is
checked on the host. Every guarantee here fails if the sandbox is weakened.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.outcomes import ARRAYS_PER_CALL, ARRAYS_SPARE
from autograder.judge.runner import check_source
from autograder.judge.session import GRADING_LIMITS, build_checks
from autograder.sandbox.host import bwrap

CORRECT = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
ROOT = os.geteuid() == 0


def attack(source: str, timeout: float = 30.0, exercise: str = "perplexity"):
    """Grade `source` + a correct function; return the report and what the attack reported seeing."""
    code = textwrap.dedent(source) + "\n" + (CORRECT if exercise == "perplexity" else "")
    report = check_source(get_exercise(exercise), [code], timeout=timeout, seed=1)
    seen = {}
    for note in report.loading + report.notes:
        if "OBSERVED " in note:
            seen = json.loads(note.split("OBSERVED ", 1)[1])
    return report, seen


def test_the_sandbox_is_available_here():
    bwrap.check_available()  # make test installs bubblewrap; CI must never skip these tests


def test_the_host_filesystem_is_out_of_reach(tmp_path):
    target = Path(f"/tmp/proof-lm-escape-{uuid.uuid4().hex}")
    report, seen = attack(
        f"""
        import json, os
        seen = {{}}
        for path in ({str(REPO / "solutions")!r}, {str(REPO / "autograder" / "judge" / "checks")!r},
                     {str(REPO / "tests")!r}, {str(tmp_path)!r}, "/root", "/work"):
            seen[path] = os.path.exists(path) and os.listdir(path)
        try:
            open({str(target)!r}, "w").write("escaped")
            seen["wrote_tmp"] = True
        except OSError as error:
            seen["wrote_tmp"] = str(error)
        for path in ({str(REPO / "README.md")!r}, {str(REPO / "proof_lm" / "nplm.py")!r}):
            try:
                open(path, "a").write("# pwned")
                seen[path] = "written"
            except OSError as error:
                seen[path] = type(error).__name__
        raise RuntimeError("OBSERVED " + json.dumps(seen))
        """
    )
    assert report.passed, "the correct function beside the attack still earns its points"
    assert (
        seen[str(REPO / "solutions")] is False
        and seen[str(REPO / "autograder" / "judge" / "checks")] is False
    )
    assert seen[str(REPO / "tests")] is False and seen[str(tmp_path)] is False
    assert not target.exists(), "a file written in the sandbox's /tmp appeared on the host"
    assert (
        seen[str(REPO / "README.md")] != "written"
        and seen[str(REPO / "proof_lm" / "nplm.py")] != "written"
    )
    assert "# pwned" not in (REPO / "proof_lm" / "nplm.py").read_text()


def test_no_network_not_even_the_hosts_loopback():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        report, seen = attack(
            f"""
            import json, socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
                seen = "connected"
            except OSError as error:
                seen = type(error).__name__
            raise RuntimeError("OBSERVED " + json.dumps(seen))
            """
        )
    finally:
        server.close()
    assert seen != "connected" and report.passed


def test_processes_outside_cannot_be_seen_or_signalled():
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        report, seen = attack(
            f"""
            import json, os, signal
            visible = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
            killed = []
            for pid in range(1, 40000):
                if pid != os.getpid():
                    try:
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                    except OSError:
                        pass
            try:
                os.pidfd_open({victim.pid})
                pidfd = "opened"
            except OSError as error:
                pidfd = type(error).__name__
            import resource
            status = dict(line.split(":", 1) for line in open("/proc/self/status"))
            limits = {{name: resource.getrlimit(getattr(resource, name))[0] for name in
                      ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE")}}
            raise RuntimeError("OBSERVED " + json.dumps(
                {{"visible": visible, "uid": os.getuid(), "pidfd": pidfd, "limits": limits,
                  "caps": status["CapEff"].strip(), "nnp": status["NoNewPrivs"].strip()}}))
            """
        )
        assert victim.poll() is None, "a process outside the sandbox was killed"
        assert report.passed
        assert len(seen["visible"]) <= 3, f"the sandbox sees other processes: {seen['visible']}"
        assert seen["pidfd"] != "opened"
        if ROOT:
            assert bwrap.UID_FIRST <= seen["uid"] < bwrap.UID_FIRST + bwrap.UID_COUNT
        assert int(seen["caps"], 16) == 0 and seen["nnp"] == "1", "capabilities or no_new_privs"
        limits = GRADING_LIMITS
        assert seen["limits"] == {
            "RLIMIT_AS": limits.memory_bytes,
            "RLIMIT_CPU": limits.cpu_seconds,
            "RLIMIT_NPROC": limits.processes,
            "RLIMIT_NOFILE": limits.open_files,
            "RLIMIT_FSIZE": limits.file_bytes,
        }
    finally:
        victim.kill()


def test_nothing_a_submission_starts_outlives_its_run():
    marker = f"proof-lm-daemon-{uuid.uuid4().hex}"
    report, _ = attack(
        f"""
        import os, subprocess, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c",
                         "import time; time.sleep(120)", {marker!r}])
            os._exit(0)
        import _posixsubprocess  # no audit event: stepping around Python-level guards changes nothing
        subprocess.Popen(["sleep", "120", {marker!r}], start_new_session=True)
        """
    )
    assert report.passed
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], "processes started by the submission are still running"


def test_the_environment_of_the_grader_is_not_passed_in(monkeypatch):
    canary = f"secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("PROOF_LM_CANARY", canary)
    _, seen = attack(
        """
        import json, os
        raise RuntimeError("OBSERVED " + json.dumps(dict(os.environ)))
        """
    )
    assert seen and canary not in json.dumps(seen)


def test_printing_hundreds_of_megabytes_keeps_the_parent_small():
    script = textwrap.dedent(
        """
        import resource, sys
        from autograder.judge.exercises import get_exercise
        from autograder.judge.runner import check_source
        flood = "import sys\\nfor _ in range(300):\\n    sys.stdout.write('x' * 2**20)\\n    sys.stderr.write('y' * 2**20)\\n"
        correct = open(sys.argv[1]).read()
        assert check_source(get_exercise("perplexity"), [correct], seed=1).passed  # imports done
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        report = check_source(get_exercise("perplexity"), [flood + correct], seed=1)
        print(report.passed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(IMPLEMENTATIONS / "perplexity" / "correct_loop.py")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    passed, growth_kib = done.stdout.split()
    assert passed == "True", done.stderr[-2000:]
    assert int(growth_kib) < 64 * 1024, (
        f"600 MB printed grew the grading parent by {int(growth_kib) // 1024} MiB"
    )


BOMB = """
import io, os, sys, zipfile
from autograder.sandbox.guest.protocol import FRAME
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
    archive.writestr("__json__.npy", b"\\0" * (512 * 2**20))
bomb = buffer.getvalue()
"""


@pytest.mark.parametrize(
    "send",
    [
        # as the answers of the exercise, written by the function from its copy of the process
        # (the copy's own end of the pipe is closed: one kept while the code loaded)
        "answers = os.dup(int(sys.argv[2]))\n"
        "def perplexity(nll):\n"
        "    os.write(answers, FRAME.pack(b'A', len(bomb)) + bomb)\n"
        "    os._exit(0)\n",
        # raw, while the code loads
        "os.write(int(sys.argv[2]), bomb)\nos._exit(0)\n",
    ],
    ids=["answers", "loading"],
)
def test_a_compressed_bomb_in_the_answers_is_refused_before_inflating(send):
    report = check_source(get_exercise("perplexity"), [BOMB + send], seed=1)
    assert report.earned == 0 and report.flags == ["malformed answers"], report.notes


# chapter 08's get_batch: its sandbox has PyTorch, so the library's copy could run if reached
@pytest.mark.parametrize(
    ("exercise", "source"),
    [
        ("get_batch", "from proof_lm.gpt2 import get_batch\n"),
        (
            "get_batch",
            "import importlib\n"
            "get_batch = getattr(importlib.import_module('proof_lm.' + 'gpt2'), 'get_' + 'batch')\n",
        ),
        (
            "get_batch",
            "get_batch = vars(__import__('proof_lm.gpt2', fromlist=['x']))['get_batch']\n",
        ),
        # the library's source read from disk and executed: the sandbox holds only the blocked copy
        (
            "get_batch",
            "import proof_lm.gpt2 as g\nspace = {}\nexec(open(g.__file__).read(), space)\n"
            "get_batch = space['get_batch']\n",
        ),
        # the library file re-run up to its stubs: the real definition is cut out of the copy
        (
            "get_batch",
            "import proof_lm.gpt2 as g\nspace = {'__name__': 'x'}\n"
            "exec(open(g.__file__).read().split('class AnswerKeyError')[0], space)\n"
            "get_batch = space['get_batch']\n",
        ),
        # the grader's own reference: not in the sandbox at all
        (
            "softmax",
            "from autograder.judge.checks.neural_bigram_shared import reference_softmax\n"
            "def softmax(logits, axis=-1):\n    return reference_softmax(logits, axis)\n",
        ),
    ],
    ids=[
        "import",
        "importlib-built-name",
        "dunder-import",
        "exec-library-source",
        "exec-source-above-the-stubs",
        "grader-reference",
    ],
)
def test_no_answer_key_in_the_environment(exercise, source):
    report = check_source(get_exercise(exercise), [source], seed=1)
    assert report.earned == 0
    assert (
        "used an implementation of the exercise that the environment ships" in report.flags
        or "ModuleNotFoundError" in " ".join(report.loading)
        or f"no function named {exercise}" in " ".join(report.notes)
    ), (report.flags, report.loading, report.notes)


def test_the_library_stays_usable_for_other_exercises():
    # train_gpt may draw its batches with the library's get_batch: only get_batch's grading blocks it
    trainer = (IMPLEMENTATIONS / "train_gpt" / "correct_reference.py").read_text()
    trainer = trainer.replace("x, y = get_batch(", "x, y = proof_lm.gpt2.get_batch(")
    report = check_source(get_exercise("train_gpt"), ["import proof_lm.gpt2\n", trainer], seed=1)
    assert report.passed, [(r.name, r.hint) for r in report.results if not r.passed]


def test_one_bug_costs_one_exercise():
    # a broken softmax beside a bigram_loss_and_grad that calls it: the latter is checked with the reference
    source = textwrap.dedent(
        """
        def softmax(logits, axis=-1):
            return np.ones_like(logits)

        def bigram_loss_and_grad(table, previous, targets):
            B = len(previous)
            probs = softmax(table[previous], axis=1)
            logits = table[previous] - table[previous].max(axis=1, keepdims=True)
            log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
            loss = -log_probs[np.arange(B), targets].mean()
            probs[np.arange(B), targets] -= 1
            grad = np.zeros_like(table, dtype=float)
            np.add.at(grad, previous, probs / B)
            return float(loss), grad
        """
    )
    assert not check_source(get_exercise("softmax"), [source], seed=1).passed
    assert check_source(get_exercise("bigram_loss_and_grad"), [source], seed=1).passed


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_hidden_cases_depend_on_the_grading_seed(name):
    exercise = get_exercise(name)

    def calls(seed: int) -> str:
        return repr(
            [(c.args, c.kwargs) for check in build_checks(exercise, seed) for c in check.calls]
        )

    assert calls(1) == calls(1), "a seed replays its run"
    assert calls(1) != calls(2), "a table of one run's hidden inputs must not fit another run"


def test_self_grade_without_bubblewrap_says_so_and_scores_alike(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no bwrap on PATH
    path = IMPLEMENTATIONS / "perplexity" / "correct_loop.py"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "check", "perplexity", str(path), "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "the OS sandbox is off" in done.stderr
    assert check_source(
        get_exercise("perplexity"), [path.read_text()], seed=3, sandboxed=False
    ).passed


def test_class_grading_refuses_without_bubblewrap(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli.instructor", "autograde", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 2
    assert "apt-get install bubblewrap" in done.stderr and "--no-sandbox" in done.stderr


def test_every_library_answer_named_exists():
    import importlib

    from autograder.judge.answer_key import LIBRARY_ANSWERS

    for exercise, entries in LIBRARY_ANSWERS.items():
        assert exercise in EXERCISES, exercise
        for entry in entries:
            module, name = entry.split(":")
            assert callable(getattr(importlib.import_module(f"proof_lm.{module}"), name)), entry


def test_the_seed_is_in_every_report_and_replays_the_run(tmp_path):
    page = tmp_path / "feedback.html"
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(REPO / "solutions" / "01_bigram_counting.ipynb"),
    ]
    done = subprocess.run(
        [*command, "--seed", "12345", "--json", "--html", str(page)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    report = json.loads(done.stdout)
    assert report["seed"] == 12345 and all(r["seed"] == 12345 for r in report["reports"])
    assert "seed 12345" in page.read_text()
    text = subprocess.run([*command, "--html", str(page)], capture_output=True, text=True, cwd=REPO)
    assert "hidden cases: seed" in text.stdout


def test_reference_sources_cannot_be_read_out_of_the_grading_process():
    _, seen = attack(
        """
        import gc, json, sys
        found = []
        frame = sys._getframe()
        while frame is not None:
            found += [k for k, v in frame.f_locals.items() if "def " + "bigram_probs" in repr(v)]
            frame = frame.f_back
        try:  # every object the garbage collector knows: no source text among them
            wanted = "".join(["def ", "bigram_probs"])  # not folded; strings are not tracked: read them from their holders
            texts = sum(
                isinstance(r, str) and wanted in r and r is not wanted
                for o in gc.get_objects()
                for r in gc.get_referents(o)
            )
        except Exception as error:
            texts = type(error).__name__
        raise RuntimeError("OBSERVED " + json.dumps({"frames": found, "strings": texts}))
        """,
    )
    assert seen == {"frames": [], "strings": 0}, seen


def test_an_honest_cell_that_calls_the_library_at_load_costs_nothing():
    report, _ = attack(
        """
        from proof_lm.metrics import ppl
        print("compare:", ppl(1.0))
        """
    )
    assert report.passed and report.flags == [], (report.flags, report.notes)


def test_a_home_full_of_nested_folders_is_cleaned_up_without_crashing():
    before = set(Path("/tmp").glob("proof-lm-grade-*"))
    report, _ = attack(
        """
        import os
        os.chdir("/home/student")
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        os.chdir("/home/student")
        """
    )
    assert report.passed
    left = [
        home
        for home in set(Path("/tmp").glob("proof-lm-grade-*")) - before
        if (home / "d").exists()
    ]
    assert left == [], (
        "a sandbox home was left behind"
    )  # (other tests' homes come and go meanwhile)


def test_a_huge_answer_structure_is_refused_before_parsing():
    source = textwrap.dedent(
        """
        import os, sys
        from autograder.sandbox.guest.plain import LENGTHS
        from autograder.sandbox.guest.protocol import FRAME
        text = b'{"__dict__": {"found": true, "problems": [], "outcomes": [' + b"[]," * (2 * 1024**2) + b"[]]}}"
        data = LENGTHS.pack(len(text), 2) + text + b"[]"
        answers = os.dup(int(sys.argv[2]))  # the copy's own end is closed: one kept while loading
        def perplexity(nll):  # the answers, written from the exercise's copy of the process
            os.write(answers, FRAME.pack(b"A", len(data)) + data)
            os._exit(0)
        """
    )
    report = check_source(get_exercise("perplexity"), [source], seed=1)
    assert report.earned == 0 and report.flags == ["malformed answers"]
    assert "structure" in report.notes[0]


def test_answers_of_many_tiny_arrays_are_refused_before_they_are_read():
    # Each array costs the trusted reader time under the lock every grading thread shares; the
    # frame's byte limit alone would let millions of them through. The structure is valid ("no
    # function found"), so without the count limit the frame would be read in full. The arrays
    # are one more than the limit allows a job of this exercise's calls.
    calls = sum(len(check.calls) for check in build_checks(get_exercise("perplexity"), 1))
    many = ARRAYS_PER_CALL * calls + ARRAYS_SPARE + 1
    source = textwrap.dedent(
        f"""
        import os, sys, numpy as np
        import autograder.sandbox.guest.plain as plain
        from autograder.sandbox.guest.protocol import FRAME
        real = plain.dumps
        def dumps(value):  # the summary of a function not found, and many arrays besides
            text, arrays = real(value)
            arrays.update({{f"a{{i}}": np.zeros(1) for i in range({many})}})
            return text, arrays
        plain.dumps = dumps
        data = plain.pack({{"found": False, "problems": [], "outcomes": []}})
        answers = os.dup(int(sys.argv[2]))  # the copy's own end is closed: one kept while loading
        def perplexity(nll):
            os.write(answers, FRAME.pack(b"A", len(data)) + data)
            os._exit(0)
        """
    )
    report = check_source(get_exercise("perplexity"), [source], seed=1)
    assert report.earned == 0 and report.flags == ["malformed answers"], report.notes
    assert f"more than {many - 1} arrays" in report.notes[0]


KEYS = """
import ctypes, json, mmap, os, platform
libc = ctypes.CDLL(None, use_errno=True)
ADD, REQUEST, KEYCTL = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]
USER, USER_SESSION = ctypes.c_long(-4), ctypes.c_long(-5)  # @u, @us
SEARCH, READ = 10, 11

def raw(*args):
    result = libc.syscall(*args)
    return result if result >= 0 else -ctypes.get_errno()

def call(*args):  # in a fork of its own: a call the filter kills for (x32) is "killed"
    read, write = os.pipe()
    if os.fork() == 0:
        os.write(write, str(raw(*args)).encode())
        os._exit(0)
    os.close(write)
    status, answer = os.wait()[1], os.read(read, 64)
    os.close(read)
    return int(answer) if answer else "killed" if os.WIFSIGNALED(status) else None

def found(description):
    for ring in (USER, USER_SESSION):
        key = raw(KEYCTL, SEARCH, ring, b"user", description, 0)
        if key >= 0:
            buffer = ctypes.create_string_buffer(256)
            raw(KEYCTL, READ, ctypes.c_long(key), buffer, 256)
            return buffer.value.decode()
        last = key
    return last
"""
CARRIED = b"proof-lm-carried-reference"


def _in_sandbox(code: str) -> dict:
    """What `code` (after KEYS) reported from the top level of a graded submission."""
    # in the grading process itself, whose seccomp filter the syscalls meet
    inner = KEYS + textwrap.dedent(code) + "\nimport json\n"
    report, seen = attack(inner + "\nraise RuntimeError('OBSERVED ' + json.dumps(seen))\n")
    assert report.passed, "the correct function beside the attack still earns its points"
    return seen


def test_the_kernel_keyrings_are_refused_on_every_abi():
    seen = _in_sandbox(
        """
        seen = {
            "add_key @u": call(ADD, b"user", b"k", b"v", 1, USER),
            "add_key @us": call(ADD, b"user", b"k", b"v", 1, USER_SESSION),
            "request_key": call(REQUEST, b"user", b"k", None, 0),
            "keyctl": call(KEYCTL, 0, USER, 0),
        }
        if platform.machine() == "x86_64":
            seen["x32 add_key"] = call(0x40000000 | ADD, b"user", b"k", b"v", 1, USER)
            def i386(number):  # mov eax, number; int 0x80; ret
                code = bytes([0xB8]) + number.to_bytes(4, "little") + bytes([0xCD, 0x80, 0xC3])
                page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
                page.write(code)
                return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
            seen["i386 add_key"], seen["i386 keyctl"] = i386(286), i386(288)
            seen["i386 getpid works"] = i386(20) == __import__("os").getpid()
        """
    )
    refused = {name: result for name, result in seen.items() if "works" not in name}
    # -EPERM; an x32 call kills the process that makes it (no program of ours uses that ABI)
    assert refused and all(result in (-1, "killed") for result in refused.values()), seen
    assert seen.get("x32 add_key", "killed") == "killed" and seen["add_key @u"] == -1, seen
    if "i386 getpid works" in seen:
        assert seen["i386 getpid works"] is True, "the i386 path must really reach the kernel"


def test_a_key_added_in_one_sandbox_is_invisible_to_the_next_with_the_same_uid(monkeypatch):
    held = bwrap.Account()  # both runs get this uid, as two runs that reuse a slot would
    monkeypatch.setattr(bwrap, "account", lambda: contextlib.nullcontext(held))
    name = f"proof-lm-carry-{uuid.uuid4().hex}".encode()
    try:
        planted = _in_sandbox(
            f"""
            seen = {{"added": [call(ADD, b"user", {name!r}, {CARRIED!r}, {len(CARRIED)}, ring)
                              for ring in (USER, USER_SESSION)]}}
            """
        )
        later = _in_sandbox(f'seen = {{"found": found({name!r})}}')
        on_host = subprocess.run(  # the uid's own keyrings, looked at from outside every sandbox
            [HOST_PYTHON, "-I", "-c", KEYS + HOST_CHECK.replace("NAME", repr(name))],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
            user=held.uid,
            group=held.uid,
            extra_groups=[] if held.uid is not None else None,
        )
    finally:
        held.release()
    assert on_host.returncode == 0, on_host.stderr
    host = json.loads(on_host.stdout)
    assert later["found"] == -1, later  # refused (EPERM): neither found nor read
    assert host["carried"] == -126, (
        host
    )  # ENOKEY: nothing of the sandboxes' is in the uid's keyrings
    assert planted["added"] == [-1, -1], planted
    assert host["own key found"] == "works", "the search itself works on this machine"


HOST_PYTHON = "/usr/bin/python3" if ROOT else sys.executable  # one a sandbox uid may run
HOST_CHECK = """
seen = {"carried": found(NAME)}
for ring in (USER, USER_SESSION):  # a broken run leaves nothing behind for the next one
    while (key := call(KEYCTL, SEARCH, ring, b"user", NAME, 0)) >= 0:
        call(KEYCTL, 21, ctypes.c_long(key))
own = call(ADD, b"user", b"proof-lm-host-check", b"works", 5, USER)
seen["own key found"] = found(b"proof-lm-host-check")
call(KEYCTL, 21, ctypes.c_long(own))  # KEYCTL_INVALIDATE: leave the uid's keyring as it was
print(json.dumps(seen))
"""
