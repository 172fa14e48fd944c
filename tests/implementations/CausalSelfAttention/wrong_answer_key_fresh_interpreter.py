"""F.scaled_dot_product_attention in a fresh Python the submission starts, where no guard is
installed. What this entry proves is that the grading process of an attention exercise starts no
program (execve kills the child that calls it: SIGSYS); with the filter removed it fails otherwise
(one interpreter per call runs past the time limit), so the expected hint is the refusal's."""

import subprocess
import sys

import torch
from torch import nn

EXPECT = "died with <Signals.SIGSYS: 31>"

SCRIPT = (
    "import io, sys, torch, torch.nn.functional as F\n"
    "q, k, v = torch.load(io.BytesIO(sys.stdin.buffer.read()))\n"
    "out = io.BytesIO()\n"
    "torch.save(F.scaled_dot_product_attention(q, k, v, is_causal=True), out)\n"
    "sys.stdout.buffer.write(out.getvalue())\n"
)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_head must divide n_embd")
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        import io

        B, T, C = x.shape
        q, k, v = (
            t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for t in self.qkv(x).split(C, dim=2)
        )
        sent = io.BytesIO()
        torch.save((q.detach(), k.detach(), v.detach()), sent)
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], input=sent.getvalue(), capture_output=True, check=True
        )
        out = torch.load(io.BytesIO(done.stdout))
        return self.resid_dropout(self.proj(out.transpose(1, 2).reshape(B, T, C)))
