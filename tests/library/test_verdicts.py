"""The benchmarks' verdict rule: "ahead" only when the margin beats the seeds' spread on every seed."""

from benchmarks.verdicts import verdict

NAMES = ("GPT", "MLP")


def test_a_model_is_ahead_only_when_every_seed_beats_the_spread():
    # lower is better; the MLP's losses minus the GPT's: 0.30, 0.31, 0.32, spread 0.02
    pairs = [(1.90, 2.20), (1.91, 2.22), (1.92, 2.24)]
    assert verdict(pairs, NAMES).endswith(": GPT ahead")
    assert verdict([(b, a) for a, b in pairs], NAMES).endswith(": MLP ahead")


def test_lower_on_every_seed_with_one_margin_inside_the_spread_is_said_so():
    # margins 0.0100, 0.0178, 0.0398 (mean 0.0225), spread 0.0300: chapter 08's GPT and MLP
    pairs = [(1.9139, 1.9239), (1.8982, 1.9160), (1.9062, 1.9460)]
    line = verdict(pairs, NAMES)
    assert line.endswith(": GPT ahead on every seed, by less than the spread"), line
    assert "mean +0.0225" in line and "smallest +0.0100" in line and "spread 0.0300" in line


def test_margins_of_both_signs_are_level():
    pairs = [(1.0, 1.5), (1.5, 1.0), (1.2, 1.2)]
    assert verdict(pairs, NAMES).endswith(": level within noise at this budget")
