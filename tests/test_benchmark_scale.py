"""benchmarks/scale.py on tiny sizes: the fresh-process measurement, the
caps, the table, the CSV, the plot and the profile."""

import csv
import json

import numpy as np
import pytest

from benchmarks import scale


def test_synthetic_data_is_standardised_with_a_test_part():
    X, y, X_test, y_test = scale.synthetic(500)
    assert X.shape == (500, scale.N_FEATURES) and X_test.shape[0] == scale.N_TEST
    assert len(np.unique(y)) == scale.N_CLASSES
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1)


def test_run_measures_each_fit_in_a_process_and_writes(tmp_path):
    rows = scale.run([400], ["ours"], time_cap=300)
    (row,) = rows
    assert row["status"] == "ok", row
    assert row["n_samples"] == 400 and row["params"] == "{}"
    assert row["peak_rss_mib"] >= row["rss_before_fit_mib"] > 0
    assert row["fit_seconds"] > 0 and row["n_active"] > 0
    assert 0 <= row["error"] <= 1 and 0 <= row["euclidean_error"] <= 1
    lines = scale.table(rows)
    assert lines[2].startswith("| synthetic | ours | 400 |")
    scale.write_csv(tmp_path / "scale.csv", rows)
    with open(tmp_path / "scale.csv") as stream:
        assert next(csv.DictReader(stream))["status"] == "ok"
    pytest.importorskip("matplotlib")
    assert scale.plot(rows, tmp_path / "scale.png")
    assert (tmp_path / "scale.png").stat().st_size > 0


def test_a_capped_or_failing_method_stops_growing():
    rows = scale.run([400, 800], ["ours"], time_cap=0.01)
    assert [row["status"] for row in rows] == [
        "time cap", "skipped (time cap at 400)"]
    rows = scale.run([400], ["ours"], params={"no_such_parameter": 1})
    assert rows[0]["status"].startswith("failed: ")
    assert "no_such_parameter" in rows[0]["status"]
    assert json.loads(rows[0]["params"]) == {"no_such_parameter": 1}


def test_profile_names_the_parts():
    parts = dict(scale.profile(300))
    assert parts["whole fit"] > 0
    assert 0 < parts["neighbour search for triplets"] < parts["whole fit"]
    assert parts["k-means of the basis regions"] > 0


def test_the_benchmarks_cli_hands_scale_its_own_options(monkeypatch):
    from benchmarks import cli
    seen = []
    monkeypatch.setattr(scale, "main", lambda argv: seen.append(argv) or 0)
    assert cli.main(["scale", "--sizes", "1000", "--methods", "ours"]) == 0
    assert seen == [["--sizes", "1000", "--methods", "ours"]]


@pytest.mark.realdata
def test_real_data_rows_fit_all_the_points_of_a_keel_dataset(tmp_path):
    # iris: 150 points, 120 fitted (80 %), in a fresh process
    (row,) = scale.run_real(["iris"], ["ours"], time_cap=300)
    assert row["status"] == "ok", row
    assert row["data"] == "iris" and row["n_samples"] == 120
    assert row["n_features"] == 4 and 0 <= row["error"] <= 1
    assert scale.table([row])[2].startswith("| iris | ours | 120 |")


def test_partial_fit_rows_compare_batches_fit_and_euclidean():
    rows = scale.partial_fit_rows(600, n_batches=2,
                                  params={"beta": 1e-4, "max_iter": 300})
    assert [row["method"] for row in rows] == [
        "partial_fit", "partial_fit, no memory", "fit", "Euclidean"]
    assert all(0 <= row["error"] <= 1 and row["n_samples"] == 600
               for row in rows)
    assert rows[0]["beta"] == rows[1]["beta"] == rows[2]["beta"] == 1e-4
    lines = scale.partial_fit_table(rows, 2)
    assert lines[2].startswith("| 600 | partial_fit (2 batches) |")
    assert lines[3].startswith("| 600 | partial_fit, no memory (2 batches) |")
    assert lines[5].startswith("| 600 | Euclidean |")


def test_every_profiled_part_names_a_function_of_the_package():
    # cProfile parts are found by function name: a renamed function would
    # silently profile as zero.
    import ast
    from pathlib import Path

    import metric_learn_scml

    defined = {node.name for path in Path(metric_learn_scml.__file__).parent.glob("*.py")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.FunctionDef)}
    for _, names in scale.PROFILE_PARTS:
        assert set(names) <= defined, names
