"""The instructor's command line: one sub-command per step, each with its own options and --help."""

import re

import pytest

from autograder.cli.instructor import main

SERVE = {"--root", "--db", "--scheduler", "--workers", "--host", "--port", "--per-hour"}
SERVE |= {"--max-bytes", "--queue", "--waiting", "--body-seconds", "--refused-per-hour", "--help"}


def exits(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`main(argv)` run to its argparse exit: the status, stdout and stderr."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    printed = capsys.readouterr()
    return done.value.code, printed.out, printed.err


def test_serve_help_lists_serves_options_alone(capsys):
    status, out, _ = exits(["serve", "--help"], capsys)
    assert status == 0 and out.startswith("usage: python -m autograder.cli.instructor serve")
    assert set(re.findall(r"--[a-z][a-z-]*", out)) == SERVE, out


def test_an_option_of_another_step_is_refused_with_the_steps_usage(capsys):
    for argv, usage in (
        (["serve", "--submit-toml", "x"], "serve"),
        (["serve", "--roster", "r.csv"], "serve"),
        (["export", "--port", "8001"], "export"),
        (["tokens", "alice", "--threshold", "0.5"], "tokens"),
    ):
        status, _, err = exits(argv, capsys)
        assert status == 2, argv
        assert f"usage: python -m autograder.cli.instructor {usage}" in err, err
        assert f"unrecognized arguments: {argv[1 if usage != 'tokens' else 2]}" in err, err
    status, _, err = exits([], capsys)
    assert status == 2 and "usage: python -m autograder.cli.instructor" in err


def test_every_step_has_a_one_line_help(capsys):
    status, out, _ = exits(["--help"], capsys)
    assert status == 0
    steps = ["init", "release", "collect", "autograde", "feedback", "export", "report"]
    for step in [*steps, "chapters", "tokens", "serve"]:
        assert re.search(rf"^ +{step} +\S", out, re.MULTILINE), (step, out)
        assert exits([step, "--help"], capsys)[0] == 0


def test_names_may_stand_before_between_and_after_options(tmp_path, capsys):
    argv = ["tokens", "alice", "--root", str(tmp_path), "bob", "--instructor", "prof", "carol"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["alice", "bob", "carol", "prof"], lines
