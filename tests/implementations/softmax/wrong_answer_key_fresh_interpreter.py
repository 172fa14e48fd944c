"""torch.softmax in a fresh Python the submission starts: no program starts in a NumPy exercise's
grading process (the child is killed as it calls execve, so the pipe to it breaks)."""

import struct
import subprocess
import sys

import numpy as np

EXPECT = "Broken pipe"

SCRIPT = (
    "import struct, sys, numpy as np, torch\n"
    "inp, out = sys.stdin.buffer, sys.stdout.buffer\n"
    "while True:\n"
    "    axis, ndim = struct.unpack('qq', inp.read(16))\n"
    "    shape = struct.unpack('q' * ndim, inp.read(8 * ndim))\n"
    "    x = np.frombuffer(inp.read(8 * int(np.prod(shape))), dtype=np.float64).reshape(shape)\n"
    "    out.write(torch.softmax(torch.from_numpy(x.copy()), axis).numpy().tobytes())\n"
    "    out.flush()\n"
)
WORKER = []


def softmax(logits, axis=-1):
    x = np.ascontiguousarray(logits, dtype=np.float64)
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError("axis out of range")
    if not WORKER:  # one interpreter for every call, started by the first
        command = [sys.executable, "-c", SCRIPT]
        WORKER.append(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
    worker = WORKER[0]
    worker.stdin.write(struct.pack("qq", axis, x.ndim) + struct.pack("q" * x.ndim, *x.shape))
    worker.stdin.write(x.tobytes())
    worker.stdin.flush()
    return np.frombuffer(worker.stdout.read(x.nbytes), dtype=np.float64).reshape(x.shape).copy()
