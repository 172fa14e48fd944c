"""proof_lm.plots draws what it says, and rejects tables of the wrong shape."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from proof_lm.plots import moving_average, plot_count_heatmap, plot_distribution


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


def test_moving_average_averages_each_window_and_names_its_last_index():
    ends, means = moving_average([1.0, 2.0, 3.0, 4.0, 5.0], 2)
    assert ends.tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(means, [1.5, 2.5, 3.5, 4.5])


def test_moving_average_shrinks_the_window_to_a_short_run():
    ends, means = moving_average([2.0, 4.0, 9.0], 20)  # a timed run that made 3 steps
    assert ends.tolist() == [2]
    np.testing.assert_allclose(means, [5.0])


@pytest.mark.parametrize("values, window", [([], 3), ([[1.0, 2.0]], 1), ([1.0], 0)])
def test_moving_average_rejects_empty_values_and_windows_below_one(values, window):
    with pytest.raises(ValueError, match=r"expected a non-empty|positive"):
        moving_average(values, window)
