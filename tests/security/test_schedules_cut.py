"""PyTorch's shaped learning-rate schedules are not in train_gpt's sandbox, however they are reached.

A LinearLR warm-up and a CosineAnnealingLR joined by SequentialLR give exactly the schedule the
exercise derives. The sandbox mounts a copy of `torch/optim/lr_scheduler.py` and `swa_utils.py`
with those classes cut out, and an empty file over each compiled copy: the classes, their source
and their bytecode are not there to be imported, reloaded, read, linked or rebuilt. A red team's
routes, each a whole submission, earn 3/3 where nothing is cut (the control) and 0 in the sandbox.
"""

from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS

from autograder.judge import mounted
from autograder.judge.exercises import get_exercise
from autograder.judge.runner import check_each

LOOP = (IMPLEMENTATIONS / "train_gpt" / "wrong_pytorch_schedules.py").read_text()
IMPORTED = "from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR\n"
# each route ends with the three classes bound to the loop's names
ROUTES = {
    "import": "",
    "reload": (
        "import importlib, torch.optim.lr_scheduler as _s\n"
        "_s = importlib.reload(_s)\n"
        "CosineAnnealingLR, LinearLR, SequentialLR = "
        "_s.CosineAnnealingLR, _s.LinearLR, _s.SequentialLR\n"
    ),
    "source_through_a_path_object": (  # io.FileIO reports the Path object, not its name
        "import io, pathlib, torch.optim.lr_scheduler as _s\n"
        "with io.FileIO(pathlib.Path(_s.__file__)) as _raw:\n"
        "    _space = {'__name__': 'mine', '__package__': 'torch.optim'}\n"
        "    exec(compile(_raw.readall().decode(), '<mine>', 'exec'), _space)\n"
        "CosineAnnealingLR, LinearLR, SequentialLR = "
        "_space['CosineAnnealingLR'], _space['LinearLR'], _space['SequentialLR']\n"
    ),
    "bytecode_run_as_a_function": (  # marshal and FunctionType raise no exec event
        "import importlib.util, marshal, types, torch.optim.lr_scheduler as _s\n"
        "_code = marshal.loads(open(importlib.util.cache_from_source(_s.__file__), 'rb').read()[16:])\n"
        "_space = {'__name__': 'mine', '__package__': 'torch.optim', '__builtins__': __builtins__}\n"
        "types.FunctionType(_code, _space)()\n"
        "CosineAnnealingLR, LinearLR, SequentialLR = "
        "_space['CosineAnnealingLR'], _space['LinearLR'], _space['SequentialLR']\n"
    ),
    "a_link_of_another_name": (
        "import os, tempfile, torch.optim.lr_scheduler as _s\n"
        "_link = os.path.join(tempfile.mkdtemp(), 'mine.py')\n"
        "os.symlink(_s.__file__, _link)\n"
        "_space = {'__name__': 'mine', '__package__': 'torch.optim'}\n"
        "exec(compile(open(_link).read(), _link, 'exec'), _space)\n"
        "CosineAnnealingLR, LinearLR, SequentialLR = "
        "_space['CosineAnnealingLR'], _space['LinearLR'], _space['SequentialLR']\n"
    ),
}


def _submission(route: str) -> str:
    """The loop of `wrong_pytorch_schedules`, its classes reached by `route`."""
    return LOOP.replace(IMPORTED, IMPORTED + ROUTES[route])


def test_the_cut_keeps_what_follows_a_function_of_ones_own():
    (copy, real), *_ = mounted.schedules_cut(("train_gpt",))
    kept = copy.read_text()
    assert real.endswith("lr_scheduler.py") and "class CosineAnnealingLR" in Path(real).read_text()
    assert "class CosineAnnealingLR" not in kept and "CosineAnnealingLR = _answer_key(" in kept
    assert "class LambdaLR" in kept and "class ReduceLROnPlateau" in kept


@pytest.fixture(scope="module")
def graded() -> dict[tuple[str, bool], float]:
    """Each route's points, in the sandbox and, as the control, with nothing mounted or cut."""
    exercise, routes = get_exercise("train_gpt"), sorted(ROUTES)
    points = {}
    for sandboxed in (True, False):
        reports = check_each(
            exercise, [[_submission(r)] for r in routes], [1] * len(routes), sandboxed=sandboxed
        )
        points.update(
            {(r, sandboxed): report.earned for r, report in zip(routes, reports, strict=True)}
        )
    return points


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_no_route_reaches_pytorchs_schedules(route, graded):
    assert graded[(route, False)] == 3, "the control: with nothing cut, the route is an answer"
    assert graded[(route, True)] == 0
