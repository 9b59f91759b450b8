"""Offline tests of the benchmark command line (``python -m benchmarks``).

Tiny synthetic data stands in for the real datasets: no download, no
real-data fit. What is tested is the plumbing: argument parsing, the
quick/full configuration, summaries, CSV and markdown output, the targets
table, failure handling and the delegation to the local / multi-task
modules.
"""

import math
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import cli, compare_global  # noqa: E402


@pytest.fixture
def toy_dataset(monkeypatch):
    """A 3-class synthetic dataset registered as 'toy' for the global run."""
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]  # string labels, as KEEL's Vehicle
    toy = compare_global.Dataset("toy", "synthetic", lambda: (X, labels))
    monkeypatch.setitem(compare_global.DATASETS, "toy", toy)
    return toy


# --------------------------------------------------------------------------
# Arguments and configuration
# --------------------------------------------------------------------------


def test_parse_args_reads_every_option(tmp_path):
    args = cli.parse_args(["global", "--quick", "--splits", "3", "--datasets",
                           "vehicle", "segment", "--methods", "ours", "LMNN",
                           "--out", str(tmp_path), "--preprocessing",
                           "zscore_unit_norm"])
    assert args.command == "global" and args.quick and args.splits == 3
    assert args.datasets == ["vehicle", "segment"]
    assert args.methods == ["ours", "LMNN"]
    assert args.out == tmp_path and args.preprocessing == "zscore_unit_norm"


def test_parse_args_output_folder_defaults():
    assert cli.parse_args(["global"]).out == cli.RESULTS_DIR
    # A quick run writes nothing unless asked, so it never overwrites results.
    assert cli.parse_args(["global", "--quick"]).out is None
    assert cli.parse_args(["all"]).preprocessing == compare_global.DEFAULT_PREPROCESSING


@pytest.mark.parametrize("argv", [["nonsense"], ["global", "--splits", "0"],
                                  ["global", "--splits", "two"],
                                  ["global", "--preprocessing", "none"]])
def test_parse_args_rejects_bad_input(argv, capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(argv)
    assert "usage" in capsys.readouterr().err


def test_quick_selects_the_small_configuration():
    dataset_keys, method_keys, budget = compare_global.plan(quick=True)
    assert dataset_keys == list(compare_global.QUICK_DATASETS)
    assert set(method_keys) == {"euclidean", "ours", "ours_defaults", "ml_scml", "itml"}
    assert set(budget.values()) == {compare_global.QUICK_SPLITS}


def test_full_plan_caps_slow_methods_per_dataset():
    dataset_keys, method_keys, budget = compare_global.plan()
    assert set(dataset_keys) == {"vehicle", "vowel", "segment", "letters",
                                 "mfeat_pix", "mnist5k", "newsgroups"}
    assert set(method_keys) == set(compare_global.METHODS)
    assert budget["segment", "ours"] == compare_global.FULL_SPLITS
    # Every dataset gets the paper's 20 splits for our methods.
    assert budget["letters", "ours"] == budget["mnist5k", "ours"] == \
        compare_global.FULL_SPLITS
    assert budget["letters", "lmnn"] == 1
    assert ("letters", "ITML") in compare_global.skipped(budget)
    assert ("letters", "LMNN") not in compare_global.skipped(budget)
    # --splits lowers every budget but never raises a cap.
    _, _, budget = compare_global.plan(n_splits=3)
    assert budget["vehicle", "ours"] == 3 and budget["letters", "lmnn"] == 1
    # --uncapped runs the pairs the caps leave out (ITML on Letters).
    _, _, budget = compare_global.plan(n_splits=5, uncapped=True,
                                       dataset_names=["letters"],
                                       method_names=["itml"])
    assert budget["letters", "itml"] == 5
    assert not compare_global.skipped(budget)


def test_merge_changes_only_the_summary_rows_it_reruns(tmp_path):
    earlier = [{"dataset": "vehicle", "method": "LMNN", "error_mean": 0.2,
                "fit_seconds_median": 96.0412},
               {"dataset": "vehicle", "method": "ITML", "error_mean": 0.3,
                "fit_seconds_median": 1.0}]
    cli.write_csv(tmp_path / "global.csv", earlier,
                  ["dataset", "method", "error_mean", "fit_seconds_median"])
    # re-summarised from rounded fits: LMNN's median moved in its last digit
    rows = [dict(earlier[0], fit_seconds_median=96.0413),
            dict(earlier[1], error_mean=0.25)]
    kept = cli.keep_summaries(tmp_path / "global.csv", rows,
                              {("vehicle", "ITML")})
    assert kept[0]["fit_seconds_median"] == 96.0412
    assert kept[1]["error_mean"] == 0.25


def test_lookup_accepts_keys_and_display_names_and_rejects_unknown_names():
    keys = compare_global.lookup(["LMNN", "metric-learn SCML_Supervised", "ours"],
                                 compare_global.METHODS, "method")
    assert keys == ["lmnn", "ml_scml", "ours"]
    with pytest.raises(ValueError, match="unknown dataset 'usps'"):
        compare_global.lookup(["usps"], compare_global.DATASETS, "dataset")


def test_required_names_of_the_issue():
    names = {method.name for method in compare_global.METHODS.values()}
    assert {"Euclidean", "LMNN", "ITML", "NCA", "linear SVM", "RBF SVM",
            "metric-learn SCML_Supervised"} <= names
    assert cli.OURS_TUNED in names and cli.OURS_DEFAULTS in names
    assert all("SCML_Supervised" in name for name in (cli.OURS_TUNED, cli.OURS_DEFAULTS))


# --------------------------------------------------------------------------
# Summaries and output
# --------------------------------------------------------------------------


def _records():
    return [
        dict(dataset="d", split=0, method="m", error=0.10, fit_seconds=1.0,
             n_active=4, chosen="1e-05"),
        dict(dataset="d", split=1, method="m", error=0.20, fit_seconds=3.0,
             n_active=6, chosen="1e-05"),
        dict(dataset="d", split=2, method="m", error=0.30, fit_seconds=2.0,
             n_active=8, chosen="1e-06"),
        dict(dataset="d", split=3, method="m", failed="ValueError: boom"),
        dict(dataset="d", split=0, method="single", error=0.5, fit_seconds=7.0),
    ]


def test_summarise_means_standard_errors_medians_and_failures():
    rows = {row["method"]: row for row in cli.summarise(_records())}
    row = rows["m"]
    assert row["error_mean"] == pytest.approx(20.0)
    assert row["error_se"] == pytest.approx(10.0 / math.sqrt(3))
    assert row["fit_seconds_median"] == 2.0
    assert row["n_active_mean"] == 6.0
    assert row["n_splits"] == 3 and row["n_failed"] == 1
    assert row["chosen"] == "1e-05(x2) 1e-06(x1)"
    assert math.isnan(rows["single"]["error_se"])
    assert math.isnan(rows["single"]["n_active_mean"])


def test_csv_round_trip_puts_required_columns_first(tmp_path):
    rows = cli.summarise(_records())
    path = tmp_path / "sub" / "global.csv"
    cli.write_csv(path, rows, cli.SUMMARY_COLUMNS)
    header = path.read_text().splitlines()[0].split(",")
    assert tuple(header[:len(cli.SUMMARY_COLUMNS)]) == cli.SUMMARY_COLUMNS
    assert "n_failed" in header
    back = cli.read_csv(path)
    assert back[0]["method"] == "m" and back[0]["n_splits"] == 3
    assert back[0]["error_mean"] == pytest.approx(20.0)
    assert math.isnan(back[1]["error_se"])


def test_results_table_is_markdown_with_one_line_per_row():
    lines = cli.results_table(cli.summarise(_records()))
    assert lines[0].startswith("| dataset | method |")
    assert lines[1].startswith("|---|")
    assert "| d | m | 20.0 ± 5.8 | 2.00 | 6 | 3 (+1 failed) |" == lines[2]
    assert "| d | single | 50.0 | 7.00 | - | 1 |" == lines[3]


def _summary(dataset, method, error, seconds):
    return dict(dataset=dataset, method=method, error_mean=error, error_se=0.1,
                fit_seconds_median=seconds, n_active_mean=math.nan, n_splits=2)


def test_target_table_states_ratios_and_verdicts():
    rows = [_summary("segment", cli.OURS_DEFAULTS, 3.0, 0.5),
            _summary("segment", cli.METRIC_LEARN_SCML, 3.5, 4.0),
            _summary("segment", "LMNN", 4.0, 20.0),
            _summary("letters", cli.OURS_TUNED, 9.0, 2.0),
            _summary("letters", cli.METRIC_LEARN_SCML, 8.0, 6.0)]
    text = "\n".join(cli.target_table(rows))
    assert "8.0x (target 5x: met)" in text
    assert "40.0x (target 50x: MISSED)" in text
    assert "3.00 vs 3.50: met" in text
    assert "3.0x (target 5x: MISSED)" in text and "9.00 vs 8.00: MISSED" in text
    assert "not run" in text  # no LMNN on letters
    assert cli.target_table([_summary("vehicle", cli.OURS_TUNED, 1, 1)]) == []


# --------------------------------------------------------------------------
# Runs on synthetic data
# --------------------------------------------------------------------------


def test_global_run_records_every_fit_and_failures(toy_dataset, monkeypatch):
    def broken(split, seed):
        raise ValueError("could not broadcast")
    monkeypatch.setitem(compare_global.METHODS, "broken",
                        compare_global.Method("broken", "broken", broken))
    seen = []
    records = compare_global.run(n_splits=2, datasets=["toy"],
                                 methods=["euclidean", "ours_defaults", "broken"],
                                 progress=seen.append)
    assert seen == records and len(records) == 6
    assert [record["split"] for record in records] == [0, 0, 0, 1, 1, 1]
    ours = [record for record in records if record["method"] == cli.OURS_DEFAULTS]
    assert all(0 <= record["error"] <= 1 and record["fit_seconds"] > 0
               and record["n_active"] >= 1 for record in ours)
    failed = [record for record in records if record["method"] == "broken"]
    assert all(record["failed"] == "ValueError: could not broadcast" for record in failed)


@pytest.mark.skipif(__import__("multiprocessing").get_start_method() != "fork",
                    reason="workers see the test's toy dataset only when forked")
def test_parallel_run_gives_the_records_of_the_serial_run(toy_dataset):
    options = dict(n_splits=2, datasets=["toy"],
                   methods=["euclidean", "linear_svm", "nca"])
    serial = compare_global.run(**options)
    parallel = compare_global.run(n_jobs=2, **options)
    assert compare_global.METHODS["nca"].slow
    assert [(r["split"], r["method"], r["error"]) for r in parallel] == \
        [(r["split"], r["method"], r["error"]) for r in serial]


def test_main_prints_tables_progress_and_writes_csv_files(toy_dataset, tmp_path, capsys):
    assert cli.main(["global", "--quick", "--datasets", "toy", "--methods",
                     "euclidean", "ours_defaults", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "| toy | Euclidean |" in captured.out
    assert "| toy | SCML_Supervised (ours, defaults) |" in captured.out
    # one progress line per fit, on stderr
    progress = [line for line in captured.err.splitlines() if "split" in line]
    assert len(progress) == 2 * compare_global.QUICK_SPLITS
    rows = cli.read_csv(tmp_path / "global.csv")
    assert {row["method"] for row in rows} == {"Euclidean", cli.OURS_DEFAULTS}
    assert all(row["n_splits"] == compare_global.QUICK_SPLITS for row in rows)
    assert len(cli.read_csv(tmp_path / "global_splits.csv")) == 4
    assert (tmp_path / "global_run.json").exists()


def test_merge_replaces_rerun_pairs_and_keeps_the_others(toy_dataset, tmp_path, capsys):
    base = ["global", "--quick", "--datasets", "toy", "--out", str(tmp_path)]
    assert cli.main(base + ["--methods", "euclidean", "ours_defaults"]) == 0
    first = cli.read_csv(tmp_path / "global_splits.csv")
    # Rerun one method on three splits: its records are replaced, the other
    # method's are kept, and the summary covers both.
    assert cli.main(base + ["--methods", "ours_defaults", "--splits", "3",
                            "--merge"]) == 0
    merged = cli.read_csv(tmp_path / "global_splits.csv")
    euclidean = [r for r in merged if r["method"] == "Euclidean"]
    assert [r["error"] for r in euclidean] == [
        r["error"] for r in first if r["method"] == "Euclidean"]
    assert sum(r["method"] == cli.OURS_DEFAULTS for r in merged) == 3
    assert [r["split"] for r in merged] == sorted(r["split"] for r in merged)
    rows = {row["method"]: row for row in cli.read_csv(tmp_path / "global.csv")}
    assert rows["Euclidean"]["n_splits"] == compare_global.QUICK_SPLITS
    assert rows[cli.OURS_DEFAULTS]["n_splits"] == 3
    assert rows[cli.OURS_DEFAULTS]["n_failed"] == 0
    # Without --merge the files hold this run only.
    assert cli.main(base + ["--methods", "ours_defaults"]) == 0
    assert {r["method"] for r in cli.read_csv(tmp_path / "global.csv")} == {
        cli.OURS_DEFAULTS}


def test_missing_delegated_module_says_so():
    args = cli.parse_args(["local", "--quick"])
    with pytest.raises(SystemExit, match="does not exist yet"):
        cli.run_delegated("nonexistent_table", args, None)


def test_delegated_module_gets_options_it_accepts_and_percent_errors(monkeypatch):
    calls = {}

    def run(quick=False, n_splits=None):
        calls.update(quick=quick, n_splits=n_splits)
        return [dict(dataset="vowel", method="LocalSCML_Supervised (ours)",
                     error_mean=0.061, error_se=0.004, fit_seconds_median=1.0,
                     n_active_mean=30, n_splits=2)]

    module = types.ModuleType("benchmarks.fake_local")
    module.run = run
    monkeypatch.setitem(sys.modules, "benchmarks.fake_local", module)
    args = cli.parse_args(["local", "--quick", "--splits", "2"])
    _, rows = cli.run_delegated("fake_local", args, progress=None)
    assert calls == dict(quick=True, n_splits=2)
    assert rows[0]["error_mean"] == pytest.approx(6.1)
    assert rows[0]["error_se"] == pytest.approx(0.4)


# --------------------------------------------------------------------------
# Basis-size summary and the results page
# --------------------------------------------------------------------------


def test_basis_size_summary_has_one_row_per_method_and_size():
    from benchmarks import basis_size
    records = [dict(dataset="segment", split=split, method=method, n_basis=size,
                    error=error, fit_seconds=1.0, n_active=size / 2)
               for split, error in ((0, 0.04), (1, 0.06))
               for method in ("global", "local") for size in (50, 200)]
    rows = basis_size.summarise(records)
    assert [(row["method"], row["n_basis"]) for row in rows] == [
        ("global", 50), ("global", 200), ("local", 50), ("local", 200)]
    assert all(row["error_mean"] == pytest.approx(5.0) and row["n_splits"] == 2
               for row in rows)
    assert rows[1]["n_active_mean"] == 100


def test_results_page_puts_the_paper_beside_ours(tmp_path):
    from benchmarks import report
    rows = [_summary("segment", cli.OURS_TUNED, 3.9, 0.5),
            _summary("segment", cli.METRIC_LEARN_SCML, 4.0, 3.0),
            _summary("vehicle", cli.OURS_TUNED, 24.0, 0.5)]
    cli.write_csv(tmp_path / "global.csv", rows, cli.SUMMARY_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    assert "| segment | 3.9 ± 0.1 (4.1) | 4.0 ± 0.1 |" in page
    assert "| segment | 3.9 ± 0.1 | 4.1 | -0.2 | 2 | within 1.5 |" in page
    assert "| vehicle | 24.0 ± 0.1 | 21.3 | +2.7 | 2 | worse by 2.7 |" in page
    assert "6.0x (target 5x: met)" in page


def test_reduced_datasets_get_unit_rows_and_the_others_the_run_scaling():
    rng = np.random.RandomState(0)
    X = rng.rand(40, 12) * 5
    train, val, test = np.arange(24), np.arange(24, 32), np.arange(32, 40)
    reduced = compare_global.Dataset("r", "", None, reduction="pca", n_components=3)
    parts = reduced.features(X, train, val, test, "minmax")
    assert [part.shape for part in parts] == [(24, 3), (8, 3), (8, 3)]
    np.testing.assert_allclose(np.linalg.norm(np.vstack(parts), axis=1), 1.0)
    plain = compare_global.Dataset("p", "", None)
    train_part, _, _ = plain.features(X, train, val, test, "minmax")
    assert train_part.min() == 0.0 and train_part.max() == 1.0


def test_results_page_sets_local_beside_metric_learns_best(tmp_path):
    from benchmarks import report
    cli.write_csv(tmp_path / "global.csv", [
        _summary("vowel", "LMNN", 7.5, 20.0),
        _summary("vowel", "NCA", 6.5, 1.0),
        _summary("vowel", cli.OURS_TUNED, 6.0, 0.3)], cli.SUMMARY_COLUMNS)
    cli.write_csv(tmp_path / "local.csv", [
        _summary("vowel", "SCML-Global", 6.0, 0.3),
        _summary("vowel", "SCML-Local", 4.0, 1.0)], cli.SUMMARY_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    # ours beside the paper (10.9 / 6.1); metric-learn's best is NCA, not ours
    assert "| vowel | 6.0 ± 0.1 (10.9) | 4.0 ± 0.1 (6.1) | NCA: 6.5 ± 0.1 [2] |" in page


def test_multitask_path_rows_summarise_every_beta():
    from benchmarks import multitask
    def split(st, mt):
        return {"path": {"st-SCML": {1e-3: (st, 2.0, 100)},
                         "u-SCML": {1e-3: (0.2, 1.0, 40)},
                         "mt-SCML": {1e-3: (mt, 3.0, 80)}}}
    rows = multitask._path_rows("vowel", [split(0.10, 0.08), split(0.12, 0.06)],
                                (1e-3,))
    by_method = {row["method"]: row for row in rows}
    assert set(by_method) == set(multitask.PATH_METHODS)
    mt = by_method["mt-SCML"]
    assert mt["beta"] == 1e-3 and mt["n_splits"] == 2
    assert mt["error_mean"] == pytest.approx(7.0)
    assert mt["n_active_mean"] == 80 and mt["fit_ratio_to_st"] == pytest.approx(1.5)
    assert by_method["u-SCML"]["fit_ratio_to_st"] == pytest.approx(0.5)


def test_multitask_run_uses_the_given_beta_grid(monkeypatch, tmp_path):
    from benchmarks import multitask

    def toy_tasks(dataset, seed):
        X, y = make_classification(n_samples=240, n_features=5,
                                   n_informative=3, n_redundant=0,
                                   n_classes=3, random_state=seed)
        tasks = np.arange(240) % 2
        parts = np.arange(240) % 5       # 3/5 train, 1/5 val, 1/5 test
        data = {}
        for name, rows in (("train", parts < 3), ("val", parts == 3),
                           ("test", parts == 4)):
            data["X_" + name], data["y_" + name] = X[rows], y[rows]
            data["task_" + name] = tasks[rows]
        return data

    monkeypatch.setattr(multitask, "_load", toy_tasks)
    monkeypatch.setattr(multitask, "timing", lambda *args, **kwargs:
                        pytest.fail("timing ran although with_timing=False"))
    rows = multitask.run(n_splits=1, datasets=("vowel",), lmnn_on=(),
                         betas=(1e-3, 1e-5), with_timing=False, out=tmp_path)
    assert {row["method"] for row in rows} == {
        "st-Euc", "st-SCML", "u-Euc", "u-SCML", "mt-SCML"}
    path = cli.read_csv(tmp_path / "multitask_path.csv")
    assert sorted({float(row["beta"]) for row in path}) == [1e-5, 1e-3]


def test_results_page_shows_the_multitask_timing(tmp_path):
    from benchmarks import multitask, report
    cli.write_csv(tmp_path / "multitask_timing.csv", [dict(
        dataset="vowel", beta=1e-3, n_splits=5, st_seconds_median=0.8,
        mt_seconds_median=1.2, ratio_median=1.5, ratio_max=2.25)],
        multitask.TIMING_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    assert "| vowel | 0.001 | 5 | 0.80 | 1.20 | 1.50 | 2.25 |" in page


# --------------------------------------------------------------------------
# The cone diagnostic (benchmarks/cone.py)
# --------------------------------------------------------------------------


def test_cone_projection_recovers_a_metric_of_the_cone_and_not_one_outside():
    from benchmarks.cone import cone_projection
    rng = np.random.RandomState(0)
    basis = rng.randn(12, 4)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    weights = np.where(rng.rand(12) < 0.5, rng.rand(12), 0.0)
    inside = np.einsum("k,ki,kj->ij", weights, basis, basis)
    found, residual = cone_projection(inside, basis)
    assert residual < 1e-8 and np.all(found >= 0)
    np.testing.assert_allclose(np.einsum("k,ki,kj->ij", found, basis, basis),
                               inside, atol=1e-8)
    # a rank-one matrix along a direction no element is near
    outside = np.outer([1.0, -1.0, 1.0, -1.0], [1.0, -1.0, 1.0, -1.0])
    assert cone_projection(outside, basis[:3])[1] > 0.1


def test_cone_diagnostic_rows_on_toy_data(toy_dataset):
    from benchmarks.cone import diagnose
    from metric_learn_scml import SCML_Supervised
    X, labels = toy_dataset.load()
    y = np.unique(labels, return_inverse=True)[1]
    # The reference is our own model: it lies in the cone of its basis.
    rows = diagnose(X[:100], y[:100], X[100:], y[100:], random_state=0,
                    reference=lambda X, y: SCML_Supervised(random_state=0)
                    .fit(X, y))
    by_name = {row["metric"]: row for row in rows}
    assert list(by_name) == ["Euclidean", "ours", "ours, full-batch optimum",
                             "LMNN", "LMNN in the cone"]
    assert by_name["LMNN in the cone"]["cone_residual"] < 1e-6
    assert by_name["LMNN"]["error"] == by_name["ours"]["error"]
    assert by_name["LMNN in the cone"]["error"] == by_name["ours"]["error"]
    # the full-batch optimum of the same objective is no worse on it
    assert (by_name["ours, full-batch optimum"]["hinge_best_scale"]
            <= by_name["ours"]["hinge_best_scale"] + 1e-3)
    for row in rows:
        assert 0 <= row["violated"] <= 1 and row["hinge_best_scale"] >= 0


def test_full_batch_weights_do_not_increase_the_objective():
    from benchmarks.cone import full_batch_weights
    from metric_learn_scml import SCML_Supervised
    from metric_learn_scml._triplets import triplets_from_labels
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=3, random_state=1)
    model = SCML_Supervised(n_basis=60, random_state=0).fit(X, y)
    triplets = triplets_from_labels(X, y, 3, 10)
    projected = X @ model.basis_.T

    def objective(weights):
        gaps = ((projected[triplets[:, 0]] - projected[triplets[:, 1]]) ** 2
                - (projected[triplets[:, 0]] - projected[triplets[:, 2]]) ** 2
                ) @ weights
        return np.maximum(0, 1 + gaps).mean() + model.beta_ * weights.sum()

    start = model.weights_.astype(float)
    weights, value = full_batch_weights(X, triplets, model.basis_, model.beta_,
                                        start)
    assert np.all(weights >= 0)
    assert value == pytest.approx(objective(weights))
    assert value <= objective(start) + 1e-12


def test_memory_table_judges_only_the_global_fit_against_1_gib():
    from benchmarks import memory
    base = dict(dataset="letters", n_basis=400, n_train=3000,
                rss_before_fit_mib=140.0, fit_increase_mib=0.0,
                fit_seconds=1.0, n_active=10)
    rows = [dict(base, method=memory.GLOBAL_METHOD, peak_rss_mib=360.0),
            dict(base, method=memory.GLOBAL_METHOD, peak_rss_mib=2048.0),
            dict(base, method=memory.LOCAL_METHOD, peak_rss_mib=2644.0)]
    verdicts = [line.rstrip(" |").rsplit("| ", 1)[-1]
                for line in memory.table(rows)[2:]]
    assert verdicts == ["met", "MISSED", "-"]


# --------------------------------------------------------------------------
# The exact-optimum diagnostic (benchmarks/exact.py; needs cvxpy)
# --------------------------------------------------------------------------


def test_exact_optimum_solves_the_solvers_objective_and_beats_rda():
    pytest.importorskip("cvxpy")
    from benchmarks.exact import (exact_optimum, n_active, recorded_problems,
                                  triplet_matrices)
    from metric_learn_scml import MultiTaskSCML_Supervised
    from metric_learn_scml._solvers import objective
    X, y = make_classification(n_samples=120, n_features=4, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=2)
    tasks = np.arange(120) % 2
    beta = 1e-3
    with recorded_problems() as problems:
        model = MultiTaskSCML_Supervised(beta=beta, n_basis=40,
                                         random_state=0).fit(X, y, tasks)
    assert len(problems) == 1
    differences, triplet_pairs, offsets, solved_beta = problems[0]
    matrices = triplet_matrices(differences, triplet_pairs, offsets)
    assert [m.shape[0] for m in matrices] == list(np.diff(offsets))
    weights, value = exact_optimum(matrices, solved_beta)
    assert weights.shape == model.weights_.shape and np.all(weights >= 0)
    # The conic program is the package's objective (a sign slip in g or in
    # the margin would not give the same value) ...
    assert value == pytest.approx(objective(differences, triplet_pairs,
                                            offsets, weights, solved_beta)[0],
                                  rel=1e-5)
    # ... and its optimum is no worse than the RDA solution.
    assert value <= model.objective_ + 1e-6
    assert 0 < n_active(weights) <= weights.shape[1]


def test_shipped_defaults_table_on_iris():
    from benchmarks import shipped
    rows = shipped.run(n_splits=1, names=("iris",))
    assert [row["method"] for row in rows] == list(shipped.METHODS)
    for row in rows:
        assert set(row) == set(shipped.COLUMNS)
        assert 0 <= row["error_mean"] < 20 and row["n_warnings"] == 0


# --------------------------------------------------------------------------
# Breadth (scikit-learn's shipped datasets: no download)
# --------------------------------------------------------------------------


def test_breadth_datasets_and_groups():
    from benchmarks import breadth
    assert len(breadth.KEEL_NUMERIC) >= 20
    assert set(breadth.SHIPPED) <= set(breadth.DATASETS)
    assert list(breadth.DATASETS) == sorted(set(breadth.DATASETS))
    # The rule is alphabetical alternation, and every dataset has a group.
    assert breadth.SELECTION == breadth.DATASETS[0::2]
    assert breadth.HELD_OUT == breadth.DATASETS[1::2]


def test_protocol_subsample_keeps_class_shares_and_is_seeded():
    from benchmarks import protocol
    y = np.repeat([0, 1, 2], [100, 50, 10])
    kept = protocol.subsample(y, 80)
    assert np.array_equal(np.bincount(y[kept]), [50, 25, 5])
    assert np.array_equal(kept, np.sort(kept))
    assert np.array_equal(kept, protocol.subsample(y, 80))
    assert np.array_equal(protocol.subsample(y, 1000), np.arange(160))


def _euclidean_error(load, seed=0):
    """3-NN error (%) of one split, written without the benchmark's helpers."""
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = load(return_X_y=True)
    train, test = next(StratifiedShuffleSplit(1, test_size=0.3, random_state=seed)
                       .split(X, y))
    model = make_pipeline(StandardScaler(), KNeighborsClassifier(3))
    return 100 * (1 - model.fit(X[train], y[train]).score(X[test], y[test]))


def test_breadth_command_writes_table_csv_and_merges_reruns(tmp_path, capsys):
    from sklearn.datasets import load_iris, load_wine

    from benchmarks import breadth
    argv = ["breadth", "--datasets", "iris", "wine", "--splits", "1",
            "--methods", "euclidean", "ours", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "| dataset | group | train x features | Euclidean | ours |" in printed
    assert "| iris | selection | 105 x 4 |" in printed
    assert "| wine | held-out | 124 x 13 |" in printed
    assert "| ours vs Euclidean | all | 2 |" in printed

    rows = {(row["dataset"], row["method"]): row
            for row in cli.read_csv(tmp_path / "breadth.csv")}
    assert set(rows) == {(d, m) for d in ("iris", "wine") for m in ("Euclidean", "ours")}
    header = (tmp_path / "breadth.csv").read_text().splitlines()[0].split(",")
    assert tuple(header[:len(breadth.SUMMARY_COLUMNS)]) == breadth.SUMMARY_COLUMNS
    for name, load in (("iris", load_iris), ("wine", load_wine)):
        assert rows[name, "Euclidean"]["error_mean"] == pytest.approx(
            _euclidean_error(load), abs=1e-4)
        assert rows[name, "Euclidean"]["fit_seconds_mean"] == 0
        assert rows[name, "ours"]["fit_seconds_mean"] > 0
        assert rows[name, "ours"]["n_splits"] == 1
    assert rows["iris", "ours"]["group"] == "selection"
    page = (tmp_path / "breadth.md").read_text()
    assert "| iris | selection | 105 x 4 |" in page
    assert "- breadth fits: Euclidean, ours at commit" in page

    # Rerunning one method replaces its fits and keeps the others.
    first = breadth.read_records(tmp_path / "breadth_splits.csv")
    assert cli.main(argv[:6] + ["--methods", "ours", "--out", str(tmp_path)]) == 0
    again = breadth.read_records(tmp_path / "breadth_splits.csv")
    assert len(again) == len(first) == 4
    euclidean = [record for record in first if record["method"] == "Euclidean"]
    assert [record for record in again if record["method"] == "Euclidean"] == euclidean


def test_breadth_comparisons_count_ties_within_the_band():
    from benchmarks import breadth
    records = []
    for dataset, ours, euclidean in (("iris", 10.0, 13.0), ("wine", 5.0, 5.4),
                                     ("digits", 8.0, 6.0)):
        for method, error in (("ours", ours), ("Euclidean", euclidean)):
            records.append(dict(dataset=dataset, split=0, method=method,
                                error=error / 100, fit_seconds=0.0))
    assert breadth.differences(records, "ours", "Euclidean") == pytest.approx(
        {"iris": -3.0, "wine": -0.4, "digits": 2.0})
    table = "\n".join(breadth.comparison_table(records))
    assert "| ours vs Euclidean | all | 3 | 1 / 1 / 1 | +0.47 | +2.0 (digits) |" in table
    # digits and iris are selection datasets, wine is held out.
    assert "| ours vs Euclidean | held-out | 1 | 0 / 1 / 0 | +0.40 | -0.4 (wine) |" in table


def test_breadth_records_failures_and_skips(monkeypatch):
    from benchmarks import breadth

    def broken(random_state):
        raise ValueError("boom")

    monkeypatch.setitem(breadth.METHODS, "lmnn", ("LMNN", broken, True))
    monkeypatch.setitem(breadth.METHODS, "nca", ("NCA", broken, True))
    monkeypatch.setattr(breadth, "SIZE_LIMIT", 1000)
    records = breadth.run(["iris", "wine"], ["lmnn", "nca"], n_splits=1)
    by_key = {(r["dataset"], r["method"]): r for r in records}
    assert by_key["iris", "LMNN"]["failed"] == "ValueError: boom"
    assert "skipped" in by_key["wine", "NCA"]  # 124 x 13 > 1000
    table = "\n".join(breadth.report(records))
    assert "| iris | selection | 105 x 4 | failed | failed |" in table
    assert "| wine | held-out | 124 x 13 | skipped | skipped |" in table


def test_breadth_evaluate_reuses_the_splits_and_scaling():
    from sklearn.datasets import load_iris, load_wine
    from sklearn.preprocessing import FunctionTransformer

    from benchmarks import breadth
    # An identity metric is the Euclidean one.
    errors = breadth.evaluate(lambda random_state: FunctionTransformer(),
                              ["iris", "wine"], n_splits=1)
    assert errors == pytest.approx({"iris": _euclidean_error(load_iris),
                                    "wine": _euclidean_error(load_wine)})


@pytest.mark.realdata
def test_breadth_keel_datasets_are_the_numeric_ones():
    from benchmarks import breadth, datasets
    for name in datasets.KEEL_BALANCED:
        try:
            X, y = datasets.load_keel(name)
        except ValueError as error:
            assert "categorical" in str(error) and name not in breadth.KEEL_NUMERIC
            continue
        except RuntimeError as error:
            pytest.skip(f"real data unavailable: {error}")
        assert np.all(np.isfinite(X)) and len(np.unique(y)) >= 2
        assert name in breadth.KEEL_NUMERIC or name in ("iris", "wine", "wdbc")


@pytest.mark.realdata
def test_small_tasks_are_three_tasks_of_60_training_points():
    from benchmarks import breadth
    X_train, y_train, t_train, X_test, y_test, t_test = breadth._small_task_splits(0)
    assert X_train.shape == (180, 90) and X_test.shape == (180, 90)
    assert np.array_equal(np.bincount(t_train), [60, 60, 60])
    assert np.array_equal(np.bincount(y_train), [12] * 15)
    assert np.allclose(np.linalg.norm(X_train, axis=1), 1)
    assert set(zip(y_train // 5, t_train)) == {(t, t) for t in range(3)}
