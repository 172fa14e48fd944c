"""Any plain check again with its array arguments transposed or strided (`autograder.inside.layout_probes`)."""

from dataclasses import replace

from autograder.inside.harness import Call, Check, Outcome


def with_layout(check: Check, layout: str) -> Check:
    """`check` with each call made through the layout probe and judged as the plain call would be."""
    calls = [
        Call((call.args, call.kwargs, layout), probe="autograder.inside.layout_probes:layout_probe")
        for call in check.calls
    ]

    def judge(outcomes: list[Outcome]) -> None:
        plain = []
        for outcome in outcomes:
            report = outcome.value
            if outcome.error is None and isinstance(report, dict) and "value" in report:
                outcome = replace(
                    outcome,
                    value=report["value"],
                    args_after=report.get("args_after"),
                    aliased=report.get("aliased") or "",
                )
            plain.append(outcome)
        check.judge(plain)

    return Check(f"{check.name}, {layout} arrays", calls, judge)
