"""Position by position, with the softmax Jacobian written out."""

import math

import numpy as np

EXPECT = "pass"


def causal_attention_backward(q, k, v, dout):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or dout.shape != v.shape:
        raise ValueError("expected q, k (B, T, d), v and dout (B, T, d_v)")
    B, T, d = q.shape
    dq, dk, dv = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    for b in range(B):
        for t in range(T):
            scores = np.array([q[b, t] @ k[b, j] for j in range(t + 1)]) / math.sqrt(d)
            w = np.exp(scores - scores.max())
            w /= w.sum()
            dw = np.array([dout[b, t] @ v[b, j] for j in range(t + 1)])
            jac = np.diag(w) - np.outer(w, w)
            ds = jac @ dw / math.sqrt(d)
            for j in range(t + 1):
                dv[b, j] += w[j] * dout[b, t]
                dq[b, t] += ds[j] * k[b, j]
                dk[b, j] += ds[j] * q[b, t]
    return dq, dk, dv
