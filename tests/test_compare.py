"""``python -m benchmarks compare``: the user's own data against the learners.

Generated data in tmp_path, two splits, fast learners: no download.
"""

import csv
import sys

import numpy as np
import pytest
from metric_learn import (NCA as MetricLearnNCA,
                          SCML_Supervised as MetricLearnSCML)
from sklearn.neighbors import NeighborhoodComponentsAnalysis

from benchmarks import cli, compare
from benchmarks.protocol import UnknownNameError
from benchmarks.results import read_records
from metric_learn_scml import SCML_Supervised

COLUMNS = ("3-NN test error (%) mean ± s.e.", "fit time (s, median)",
           "difference to ours (points)", "p (Holm)", "verdict")


def blobs(n_per_class=20, n_features=4, seed=0):
    """Three Gaussian classes, well apart."""
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1, 2], n_per_class)
    return rng.randn(3, n_features)[y] * 3 + rng.randn(len(y), n_features), y


def write_csv(path, header, rows):
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def table(tmp_path):
    """A CSV whose label column, ``kind``, is in the middle and holds strings."""
    X, y = blobs()
    names = np.array(["setosa", "versicolor", "virginica"])
    rows = [[*x[:2].tolist(), names[label], *x[2:].tolist()] for x, label in zip(X, y)]
    return write_csv(tmp_path / "flowers.csv", ["a", "b", "kind", "c", "d"], rows), X, y


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def test_csv_with_target_column(table):
    path, X_expected, y_expected = table
    X, y, classes = compare.load_table(path, target="kind")
    assert X.dtype == np.float64 and X.shape == (60, 4)
    np.testing.assert_array_equal(X, X_expected)
    np.testing.assert_array_equal(y, y_expected)
    assert list(classes) == ["setosa", "versicolor", "virginica"]


def test_csv_target_defaults_to_the_last_column(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["x1", "x2", "label"],
                     [[i, i % 3, "ab"[i % 2]] for i in range(6)])
    X, y, classes = compare.load_table(path)
    np.testing.assert_array_equal(X[:, 0], np.arange(6))
    np.testing.assert_array_equal(y, [0, 1, 0, 1, 0, 1])
    assert list(classes) == ["a", "b"]


def test_npz(tmp_path):
    X, y = blobs()
    np.savez(tmp_path / "d.npz", X=X.astype(np.float32), y=y + 5)
    X_read, y_read, classes = compare.load_table(tmp_path / "d.npz")
    assert X_read.dtype == np.float64
    np.testing.assert_allclose(X_read, X, rtol=1e-6)
    np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(classes, [5, 6, 7])


def _npz_without_X(path):
    np.savez(path, features=np.eye(3))


@pytest.mark.parametrize("name, content, message", [
    ("t.csv", [["size", "colour", "y"], [1, "red", 0], [2, "blue", 1], [3, "red", 0]],
     r"column 'colour' is not numeric \(it holds 'red'\); encode it as numbers"),
    ("t.csv", [["u", "v", "y"], [1, "", 0], [2, 3, 1], ["NA", 1, 0], [4, 5, 1], [6, 7, 0]],
     r"2 of 5 rows have missing values \(in u, v\); drop those rows or impute"),
    ("t.csv", [["u", "y"], [1, 0], [2, 1], [3, 1]],
     r"classes with fewer than 2 points: 0 \(1\)"),
    ("t.xlsx", "not a table", r"unknown file type '\.xlsx'; give a \.csv file .* or a \.npz"),
    ("t.npz", _npz_without_X, r"needs the arrays X \(features\) and y \(labels\); it "
                              r"holds features"),
])
def test_bad_files_say_what_to_change(tmp_path, name, content, message):
    path = tmp_path / name
    if callable(content):
        content(path)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        write_csv(path, content[0], content[1:])
    with pytest.raises(ValueError, match=message):
        compare.load_table(path)


def test_unknown_target_column_lists_the_columns(table):
    with pytest.raises(ValueError, match=r"no column 'nosuch' \(--target\); the columns "
                                         r"are: a, b, kind, c, d"):
        compare.load_table(table[0], target="nosuch")


# --------------------------------------------------------------------------
# Learners
# --------------------------------------------------------------------------


def test_learner_names():
    assert compare.learner("euclidean") is None
    assert type(compare.learner("ours")(0)) is SCML_Supervised
    assert type(compare.learner("SCML_Supervised")(0)) is SCML_Supervised
    # metric-learn's SCML by key or module name; nca is scikit-learn's, NCA metric-learn's.
    for name in ("ml_scml", "metric_learn.SCML_Supervised"):
        assert type(compare.learner(name)(0)) is MetricLearnSCML
    assert type(compare.learner("nca")(3)) is NeighborhoodComponentsAnalysis
    model = compare.learner("NCA")(3)
    assert type(model) is MetricLearnNCA and model.random_state == 3
    # LFDA and Covariance take no random_state; case is ignored where unambiguous.
    assert type(compare.learner("lfda")(1)).__name__ == "LFDA"
    assert compare.learner("Euclidean") is None
    assert type(compare.learner("Covariance")(1)).__name__ == "Covariance"
    assert {"LMNN", "ITML_Supervised", "MMC_Supervised", "RCA_Supervised", "MLKR",
            "SDML_Supervised", "LSML_Supervised"} <= set(compare.metric_learn_names())


@pytest.mark.parametrize("name, message", [
    ("nosuch", r"unknown learner 'nosuch': choose from euclidean, ours, .*LFDA"),
    ("ITML", r"learns from pairs, triplets or chunks, not labels; try ITML_Supervised"),
])
def test_unknown_learner_lists_the_valid_names(name, message):
    with pytest.raises(UnknownNameError, match=message):
        compare.learner(name)


# --------------------------------------------------------------------------
# Comparison, report and plot
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def records():
    X, y = blobs()
    return compare.compare(X, y, ["euclidean", "ours", "Covariance"], n_splits=2,
                           name="blobs.csv")


def test_compare_records_every_split_and_learner(records):
    assert [(record["split"], record["method"]) for record in records] == [
        (split, method) for split in (0, 1) for method in ("euclidean", "ours", "Covariance")]
    for record in records:
        assert not record.get("failed") and 0 <= record["error"] <= 1
        assert (record["n_train"], record["n_test"], record["n_classes"]) == (42, 18, 3)


def test_report_has_one_labelled_row_per_learner(records):
    lines = compare.report(records)
    assert lines[0] == "blobs.csv: 60 points x 4 features, 3 classes, 2 splits."
    assert "stratified 70/30 train/test splits" in " ".join(lines[1:4])
    header = next(line for line in lines if line.startswith("| learner"))
    for column in COLUMNS:
        assert column in header
    rows = [line for line in lines if line.startswith("| ") and line is not header]
    assert [row.split("|")[1].strip() for row in rows] == ["euclidean", "ours", "Covariance"]
    ours = next(row for row in rows if row.startswith("| ours "))
    assert "(reference)" in ours
    assert any(verdict in " ".join(rows) for verdict in (
        "no significant difference", "significantly better", "significantly worse"))


def test_reference_is_the_first_learner_without_ours(records):
    lines = compare.report([record for record in records if record["method"] != "ours"])
    assert any("difference to euclidean (points)" in line for line in lines)


class Broken:
    """An estimator whose fit raises."""

    def fit(self, X, y):
        raise RuntimeError("cannot fit this")


def test_a_failing_fit_is_recorded_not_raised():
    X, y = blobs()
    records = compare.compare(X, y, {"euclidean": None,
                                     "broken": lambda random_state: Broken()}, n_splits=2)
    broken = [record for record in records if record["method"] == "broken"]
    assert len(broken) == 2
    assert all(record["failed"] == "RuntimeError: cannot fit this" for record in broken)
    lines = compare.report(records)
    row = next(line for line in lines if line.startswith("| broken"))
    assert "failed" in row and "not tested" in row
    assert "Failed: broken on splits 0, 1: RuntimeError: cannot fit this" in lines


def test_plot_writes_a_png(records, tmp_path):
    pytest.importorskip("matplotlib")
    path = compare.plot(records, tmp_path / "plot.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_how_to_install_it(records, tmp_path, monkeypatch,
                                                        capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert compare.plot(records, tmp_path / "plot.png") is None
    assert 'plot skipped: matplotlib is not installed (pip install ".[benchmarks]"' in (
        capsys.readouterr().out)
    assert not (tmp_path / "plot.png").exists()


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


@pytest.fixture
def no_git(monkeypatch):
    # The commit is not recorded by compare; no git process in the tests.
    monkeypatch.setattr(cli, "git_commit", lambda: "test")


def test_command_line_end_to_end(table, tmp_path, no_git, capsys):
    path = table[0]
    out = tmp_path / "out"
    assert cli.main(["compare", "--data", str(path), "--target", "kind", "--learners",
                     "euclidean", "ours", "Covariance", "--splits", "2", "--out",
                     str(out)]) == 0
    printed = capsys.readouterr()
    assert "flowers.csv: 60 points x 4 features, 3 classes, 2 splits." in printed.out
    assert "| Covariance " in printed.out and "difference to ours (points)" in printed.out
    assert "split  1  Covariance" in printed.err
    saved = read_records(out / "compare_flowers.csv")
    assert len(saved) == 6 and {record["method"] for record in saved} == {
        "euclidean", "ours", "Covariance"}
    assert (out / "compare_flowers.png").exists() == ("plot: " in printed.out)


@pytest.mark.parametrize("argv, message", [
    (["compare"], "compare needs --data FILE"),
    (["compare", "--data", "{csv}", "--learners", "nosuch"], "unknown learner 'nosuch'"),
    (["compare", "--data", "{csv}", "--target", "nosuch"], "no column 'nosuch'"),
    (["compare", "--data", "{tmp}/none.csv"], "no such file"),
    (["shipped", "--learners", "ours"], "--learners applies to compare only"),
])
def test_command_line_errors_are_usage_errors(argv, message, table, tmp_path, no_git, capsys):
    argv = [word.format(csv=table[0], tmp=tmp_path) for word in argv]
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code != 0
    assert message in str(stopped.value.code) + capsys.readouterr().err
