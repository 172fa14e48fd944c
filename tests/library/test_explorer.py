"""The sampling explorer's callbacks, without a browser, and its message when ipywidgets is missing."""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pytest
import torch
from conftest import REPO, NotebookClient

from proof_lm.baselines import TorchContextMLP
from proof_lm.explorer import SamplingExplorer
from proof_lm.sampling import draw, filter_probs

ITOS = [".", "a", "b", "c"]


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None) -> int:
    """A sampler as chapter 05's exercise asks for (here, the library's)."""
    return int(draw(filter_probs(logits, temperature, top_k, top_p), rng))


def explorer() -> SamplingExplorer:
    torch.manual_seed(0)
    return SamplingExplorer(TorchContextMLP(4, 2, 3, 8), ITOS, 2, sample_next, samples=4)


def test_draw_shows_the_filtered_distribution_and_sampled_names():
    ex = explorer()
    figure = ex.draw(prompt="ab", temperature=0.7, top_k=2, top_p=1.0)
    bars = [patch.get_height() for patch in figure.axes[0].patches]
    with torch.no_grad():
        logits = ex.model(torch.tensor([[1, 2]]))[0].double().numpy()
    # the share of each symbol among the sampler's draws: the filtered distribution, give or take
    assert np.allclose(bars, filter_probs(logits, 0.7, 2, None), atol=0.05)
    assert sum(height > 0 for height in bars) <= 2 and ex.draws == 2000
    title = figure.axes[0].get_title()
    assert title.startswith("after '.ab'") and all(
        name.startswith("ab") for name in ex.names("ab", 0.7, 2, None)
    )


def test_widget_redraws_when_a_slider_moves():
    plt.close("all")
    ex = explorer()
    box = ex.widget()
    sliders = [child for row in box.children[:2] for child in row.children]
    first = ex.figure
    assert sum(p.get_height() > 0 for p in first.axes[0].patches) == 4
    top_k = next(s for s in sliders if s.description.startswith("top-k"))
    top_k.value = 1
    assert ex.figure is not first, "moving a slider redraws"
    assert sum(p.get_height() > 0 for p in ex.figure.axes[0].patches) == 1
    assert plt.get_fignums() == [], (
        "the explorer leaves pyplot figures open: a notebook's inline backend shows them again"
    )


def test_widget_degrades_without_ipywidgets(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    message = explorer().widget()
    assert isinstance(message, str) and "ipywidgets" in message and "draw(" in message


def explorer_cell() -> str:
    """The source of chapter 05's explorer cell, as the student runs it."""
    notebook = nbformat.read(REPO / "solutions" / "05_sampling.ipynb", as_version=4)
    (cell,) = [c for c in notebook.cells if c.cell_type == "code" and ".widget()" in c.source]
    return cell.source


def images(outputs: list[dict]) -> list[str]:
    """The PNG drawings among a cell's (or an Output widget's) outputs."""
    return [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]


@pytest.mark.slow
def test_the_explorer_cell_shows_exactly_one_live_drawing_in_a_real_kernel(tmp_path):
    """Run chapter 05's explorer cell in a kernel with the inline backend, on a tiny model.

    The drawing belongs inside the widget's Output area; nothing may be left for the inline backend
    to show again under the widget when the cell ends (that copy would be static: sliders redraw
    only the one inside the widget).
    """
    setup = (
        "%matplotlib inline\n"
        "import torch\n"
        "from proof_lm.baselines import TorchContextMLP\n"
        "from proof_lm.explorer import SamplingExplorer\n"
        "from proof_lm.sampling import draw, filter_probs\n"
        "def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):\n"
        "    return int(draw(filter_probs(logits, temperature, top_k, top_p), rng))\n"
        "torch.manual_seed(0)\n"
        f"itos = {ITOS!r}\n"
        "model = TorchContextMLP(4, 3, 3, 8)\n"
    )
    probe = "import matplotlib.pyplot as plt\nprint('open figures:', len(plt.get_fignums()))"
    move = (
        "box = _\n"
        "(slider,) = [c for row in box.children[:2] for c in row.children"
        " if c.description == 'temperature']\n"
        "slider.value = 0.1"
    )
    cells = [setup, explorer_cell(), probe, move, probe]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in cells])
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    errors = [o for c in notebook.cells for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    explorer_outputs = notebook.cells[1].outputs
    assert not images(explorer_outputs), (
        f"{len(images(explorer_outputs))} static drawing(s) under the widget: only the widget's"
        " own drawing may show"
    )
    assert any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in explorer_outputs
    )
    for index in (2, 4):
        assert notebook.cells[index].outputs[0]["text"].strip() == "open figures: 0", (
            "the explorer leaves a pyplot figure open, which the inline backend shows again"
        )
    assert not images(notebook.cells[3].outputs)
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    drawings = [
        images(model["state"].get("outputs", []))
        for model in state.values()
        if model["model_name"] == "OutputModel"
    ]
    assert len(drawings) == 1 and len(drawings[0]) == 1, (
        f"the widget's output area holds {drawings} drawings, expected one"
    )
