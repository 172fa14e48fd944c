"""The library's NPLM gradients."""

from proof_lm import nplm

EXPECT = "answer-key rule"


def nplm_grads(P, X, Y):
    return nplm.nplm_loss_and_grads(P, X, Y)[1]
