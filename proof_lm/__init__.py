"""proof_lm: the library the proof-lm course notebooks build on."""
