"""The sampling explorer's callbacks, without a browser, and its message when ipywidgets is missing."""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

from proof_lm.baselines import TorchContextMLP
from proof_lm.explorer import SamplingExplorer
from proof_lm.sampling import filter_probs

ITOS = [".", "a", "b", "c"]


def explorer() -> SamplingExplorer:
    torch.manual_seed(0)
    return SamplingExplorer(TorchContextMLP(4, 2, 3, 8), ITOS, block_size=2, samples=4)


def test_draw_shows_the_filtered_distribution_and_sampled_names():
    ex = explorer()
    figure = ex.draw(prompt="ab", temperature=0.7, top_k=2, top_p=1.0)
    bars = [patch.get_height() for patch in figure.axes[0].patches]
    with torch.no_grad():
        logits = ex.model(torch.tensor([[1, 2]]))[0].double().numpy()
    assert np.allclose(bars, filter_probs(logits, 0.7, 2, None))
    assert sum(height > 0 for height in bars) == 2
    title = figure.axes[0].get_title()
    assert title.startswith("after '.ab'") and all(
        name.startswith("ab") for name in ex.names("ab", 0.7, 2, None)
    )
    plt.close("all")


def test_widget_redraws_when_a_slider_moves():
    ex = explorer()
    box = ex.widget()
    sliders = [child for row in box.children[:2] for child in row.children]
    first = ex.figure
    assert sum(p.get_height() > 0 for p in first.axes[0].patches) == 4
    top_k = next(s for s in sliders if s.description.startswith("top-k"))
    top_k.value = 1
    assert ex.figure is not first, "moving a slider redraws"
    assert sum(p.get_height() > 0 for p in ex.figure.axes[0].patches) == 1
    plt.close("all")


def test_widget_degrades_without_ipywidgets(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    message = explorer().widget()
    assert isinstance(message, str) and "ipywidgets" in message and "draw(" in message
