"""proof_lm: the library the proof-lm course notebooks build on."""

from proof_lm.waiting import install

install()  # in a notebook: a cell waiting for an exercise not yet solved says so in one line
