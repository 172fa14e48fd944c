"""proof_lm.plots draws what it says, and rejects tables of the wrong shape."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from proof_lm.plots import plot_count_heatmap, plot_distribution


def test_heatmap_labels_every_cell_with_its_bigram_and_count():
    itos = [".", "a", "b"]
    counts = np.arange(9).reshape(3, 3)
    ax = plot_count_heatmap(counts, itos, labels=True)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 18 and "ab" in texts and "5" in texts
    assert [t.get_text() for t in ax.get_xticklabels()] == itos
    plt.close("all")


def test_heatmap_labels_can_be_left_out_and_are_left_out_when_demonstrations_run_small():
    counts = np.arange(9).reshape(3, 3)
    assert len(plot_count_heatmap(counts, [".", "a", "b"], labels=False).texts) == 0
    from proof_lm.demo import full_size

    expected = 18 if full_size() else 0
    assert len(plot_count_heatmap(counts, [".", "a", "b"]).texts) == expected
    plt.close("all")


def test_heatmap_rejects_a_table_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"expected a \(3, 3\) table"):
        plot_count_heatmap(np.zeros((2, 3)), [".", "a", "b"])


def test_distribution_bars():
    ax = plot_distribution(np.array([0.2, 0.8]), ["x", "y"], "t")
    assert [p.get_height() for p in ax.patches] == [0.2, 0.8]
    assert ax.get_title() == "t"
    with pytest.raises(ValueError, match="2 probabilities"):
        plot_distribution(np.array([1.0]), ["x", "y"])
    plt.close("all")
