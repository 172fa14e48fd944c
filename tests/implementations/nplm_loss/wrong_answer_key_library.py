"""The library's NPLM logits and mean loss."""

from proof_lm.nplm import nplm_logits, nplm_mean_loss

EXPECT = "answer-key rule"


def nplm_loss(P, X, Y):
    return nplm_mean_loss(P, X, Y), nplm_logits(P, X)
