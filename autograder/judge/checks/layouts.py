"""Any plain check again with its array arguments transposed or strided (`autograder.sandbox.guest.layout_probes`)."""

from dataclasses import replace

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.sandbox.guest import layout_probes
from autograder.sandbox.guest.protocol import Call, Outcome

PROBE = layout_probes.layout_probe


def with_layout(check: Check, layout: str) -> Check:
    """`check` with each call made through the layout probe and judged as the plain call would be;
    an exception names the views (the likely cause: .view or an assignment to .shape)."""
    calls = [Call((call.args, call.kwargs, layout), probe=PROBE) for call in check.calls]

    def judge(outcomes: list[Outcome]) -> None:
        plain = []
        for outcome in outcomes:
            report = outcome.value
            if outcome.error is None and isinstance(report, dict) and "value" in report:
                aliases = report.get("aliases")
                outcome = replace(
                    outcome,
                    value=report["value"],
                    args_after=report.get("args_after"),
                    aliases=aliases if isinstance(aliases, list) else [],
                )
            plain.append(outcome)
        try:
            check.judge(plain)
        except CheckFailed:
            raised = [o for o in plain if o.error is not None and o.error != "NotPlain"]
            if not raised:
                raise
            raise CheckFailed(
                f"{describe_error(raised[0])}, with non-contiguous inputs (views such as x.T or "
                "x[:, ::2]): .view and assigning .shape need contiguous memory"
            ) from None

    return Check(f"{check.name}, {layout} arrays", calls, judge)


def in_layout(check: Check, layout: str | None) -> Check:
    """`check` as it is (layout None) or through `with_layout`."""
    return check if layout is None else with_layout(check, layout)
