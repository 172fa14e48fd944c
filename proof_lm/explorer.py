"""An interactive sampling explorer: sliders for temperature, top-k and top-p over a model and a prompt."""

import copy
from collections.abc import Callable

import numpy as np
import torch
from IPython.display import display
from matplotlib.figure import Figure

from proof_lm.plots import plot_distribution
from proof_lm.sampling import generate_names


class SamplingExplorer:
    """The next-token distribution of a sampler after a prompt, and names it draws under the same policy.

    The sampler is the student's own `sample_next(logits, rng, temperature, top_k, top_p)` (chapter
    05): the distribution shown is the share of each symbol among `draws` of its draws.

    `draw(...)` does the work and can be called without a browser; `widget()` wires it to sliders.
    Its figures are made without pyplot, so no backend keeps them open: in a notebook the widget's
    drawing is the only one shown (with pyplot, the inline backend showed a second, static copy of
    the first drawing under the widget when the cell ended).
    """

    def __init__(
        self,
        model: torch.nn.Module,
        itos: list[str],
        block_size: int,
        sample_next: Callable[..., int],
        samples: int = 6,
        seed: int = 0,
        draws: int = 2000,
    ):
        self.model = copy.deepcopy(model).eval()  # no dropout; the caller keeps its mode
        self.itos, self.block_size = itos, block_size
        self.sample_next, self.samples, self.seed, self.draws = sample_next, samples, seed, draws
        self.figure: Figure | None = None  # the widget's current drawing

    @torch.no_grad()
    def distribution(
        self, prompt: str, temperature: float, top_k: int | None, top_p: float | None
    ) -> np.ndarray:
        """P(next symbol | prompt) after temperature, top-k and top-p, as the sampler's draws share it."""
        ids = [0] * self.block_size + [self.itos.index(ch) for ch in prompt if ch in self.itos[1:]]
        context = torch.tensor([ids[-self.block_size :]])
        logits = self.model(context)[0].double().cpu().numpy()
        rng = np.random.default_rng(self.seed)
        picks = [
            self.sample_next(logits, rng, temperature, top_k, top_p) for _ in range(self.draws)
        ]
        return np.bincount(picks, minlength=len(self.itos)) / self.draws

    def names(
        self, prompt: str, temperature: float, top_k: int | None, top_p: float | None
    ) -> list[str]:
        """A few names continuing the prompt, from a generator seeded with `seed` (same sliders, same names)."""
        return generate_names(
            self.model,
            self.itos,
            self.block_size,
            self.samples,
            np.random.default_rng(self.seed),
            temperature,
            top_k,
            top_p,
            prompt=prompt,
            next_token=self.sample_next,
        )

    def draw(
        self, prompt: str = "", temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0
    ) -> Figure:
        """Bars of the filtered distribution, titled with sampled names; top_k = 0 and top_p = 1 mean off."""
        k, p = (top_k or None), (top_p if top_p < 1 else None)
        probs = self.distribution(prompt, temperature, k, p)
        names = self.names(prompt, temperature, k, p)
        figure = Figure(figsize=(9, 3))
        ax = figure.add_subplot()
        plot_distribution(probs, self.itos, f"after {('.' + prompt)!r}: " + ", ".join(names), ax=ax)
        return figure

    def widget(self) -> object:
        """Sliders and a prompt box that redraw as they move; a plain message if ipywidgets is missing."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return "The sampling explorer needs ipywidgets (pip install ipywidgets); call draw(...) instead."
        controls = {
            "prompt": widgets.Text(value="", description="prompt"),
            "temperature": widgets.FloatLogSlider(
                value=1.0, base=10, min=-1.5, max=1, step=0.05, description="temperature"
            ),
            "top_k": widgets.IntSlider(
                value=0, min=0, max=len(self.itos), description="top-k (0 off)"
            ),
            "top_p": widgets.FloatSlider(
                value=1.0, min=0.05, max=1.0, step=0.05, description="top-p"
            ),
        }
        output = widgets.Output()

        def redraw(_change: object = None) -> None:
            with output:
                output.clear_output(wait=True)
                self.figure = self.draw(
                    **{name: control.value for name, control in controls.items()}
                )
                display(self.figure)

        for control in controls.values():
            control.observe(redraw, names="value")
        redraw()
        return widgets.VBox(
            [
                widgets.HBox(list(controls.values())[:2]),
                widgets.HBox(list(controls.values())[2:]),
                output,
            ]
        )
