"""A seccomp filter that refuses the kernel's key-management calls to everything in a sandbox.

The kernel's user keyrings (@u, @us) belong to a uid, not to a process or a namespace of ours, and
outlive every process: a sandbox that adds a key there could hand it to a later sandbox that gets
the same uid (one exercise's reference bytecode carried to the next). With this filter `add_key`,
`request_key` and `keyctl` fail with EPERM, as in Docker's default profile, on every system-call
ABI the machine has: on x86_64 the native one, i386 (`int 0x80`) and x32 (refused whole: no
program of ours uses it); on aarch64 the native one and 32-bit ARM. A process of any other
architecture is killed. Installed by the process itself before any student code exists (it needs
`no_new_privs`, set first), and inherited by everything it starts; `tests/security/test_sandbox_attacks.py`
tries each ABI.
"""

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06  # classic BPF opcodes
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
NR, ARCH = 0, 4  # offsets in struct seccomp_data
X32_BIT = 0x40000000
# (audit architecture, the numbers of add_key, request_key, keyctl, whether x32 calls come with it)
ABIS = {
    "x86_64": [(0xC000003E, (248, 249, 250), True), (0x40000003, (286, 287, 288), False)],
    "aarch64": [(0xC00000B7, (217, 218, 219), False), (0x40000028, (309, 310, 311), False)],
}
# execve and execveat on the same ABIs, in the same order: what a grading process that refuses
# something refuses (a fresh Python it started would run without the answer-key guard, and a
# NumPy exercise's sandbox has no arbitrary precision, which another interpreter on the machine
# has); the caller is killed, so a forked copy whose exec failed never runs on as a grader
EXEC = {"x86_64": [(59, 322), (11, 358)], "aarch64": [(221, 281), (11, 387)]}
# clone, clone3, fork and vfork (aarch64 has only the first two): what a timed run refuses, threads
# included, so that all its work is done by the one process whose CPU time the kernel hands to the
# grader (a process still alive when the sandbox ends is reaped uncounted)
PROCESSES = {
    "x86_64": [(56, 435, 57, 58), (120, 435, 2, 190)],
    "aarch64": [(220, 435), (120, 435, 2, 190)],
}


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def program(machine: str | None = None, refused: dict | None = None, kill: bool = False) -> bytes:
    """The filter for `machine` (this one by default), as the kernel's array of sock_filter:
    refusing the key-management calls, or the calls `refused` names per ABI (EXEC), with EPERM
    or, with `kill`, by killing the calling process."""
    machine = machine or platform.machine()
    if machine not in ABIS:
        raise ValueError(f"no seccomp filter for {machine!r}; known: {', '.join(ABIS)}")
    code: list[tuple[int, int | str, int | str, int]] = []  # jumps name labels until assembled
    labels: dict[str, int] = {}
    for number, (arch, keyring, x32) in enumerate(ABIS[machine]):
        calls = keyring if refused is None else refused[machine][number]
        code.append((LD_W_ABS, 0, 0, ARCH))
        code.append((JEQ_K, 0, f"arch{number + 1}", arch))
        code.append((LD_W_ABS, 0, 0, NR))
        if x32:
            code.append((JSET_K, "deny", 0, X32_BIT))
        code += [(JEQ_K, "deny", 0, call) for call in calls]
        code.append((RET_K, 0, 0, RET_ALLOW))
        labels[f"arch{number + 1}"] = len(code)
    code.append((RET_K, 0, 0, RET_KILL_PROCESS))  # an architecture not listed
    labels["deny"] = len(code)
    code.append((RET_K, 0, 0, RET_KILL_PROCESS if kill else RET_ERRNO | errno.EPERM))
    out = b""
    for at, (op, true, false, k) in enumerate(code):
        jumps = [labels[j] - at - 1 if isinstance(j, str) else j for j in (true, false)]
        out += struct.pack("HBBI", op, *jumps, k)
    return out


def install(refused: dict | None = None, kill: bool = False) -> None:
    """Set no_new_privs and load the filter (see `program`) into this process (and all it will start)."""
    libc = ctypes.CDLL(None, use_errno=True)
    code = program(refused=refused, kill=kill)
    filter_ = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(filter_.raw) // 8, ctypes.cast(filter_, ctypes.c_void_p))
    for call, args in (
        ("no_new_privs", (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)),
        ("seccomp", (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0)),
    ):
        if libc.prctl(*(ctypes.c_ulong(arg) for arg in args)) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"prctl {call}: {os.strerror(error)}")
