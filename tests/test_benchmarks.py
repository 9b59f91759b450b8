"""Offline tests of the benchmarks (``python -m benchmarks``), on tiny synthetic data.

No download and no real-data fit: what is tested is the plumbing (the
command line, the protocol, summaries, CSV and markdown, merges, the
pages). The data loaders are tested in
``test_datasets.py``.
"""

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine, make_classification
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from benchmarks import (breadth, cli, data, global_table, local, memory,
                        multitask, protocol, report, results)
from benchmarks.data import Dataset
from metric_learn_scml import SCML_Supervised

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def toy(monkeypatch):
    """A 3-class synthetic dataset registered as 'toy' for the paper's tables."""
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]  # string labels, as KEEL's Vehicle
    dataset = Dataset("toy", lambda: (X, labels))
    monkeypatch.setitem(global_table.DATASETS, "toy", dataset)
    return dataset


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


def _summary(dataset, method, error, seconds):
    return dict(dataset=dataset, method=method, error_mean=error, error_se=0.1,
                fit_seconds_median=seconds, n_active_mean=math.nan, n_splits=2)


# --------------------------------------------------------------------------
# Shape: one entry point, no import cycle
# --------------------------------------------------------------------------


def _imports():
    """{module: benchmarks modules it imports}, from the source with ``ast``."""
    graph = {}
    for path in BENCHMARKS.rglob("*.py"):
        parts = path.relative_to(BENCHMARKS.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = name if parts[-1] == "__init__" else name.rpartition(".")[0]
        graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[:len(base) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                targets = [target] + ["%s.%s" % (target, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {target for target in targets if target.startswith("benchmarks")}
    return {name: {target for target in targets if target in graph and target != name}
            for name, targets in graph.items()}


def test_benchmark_modules_import_no_cycle_and_only_main_imports_the_cli():
    graph = _imports()
    assert {name for name, targets in graph.items() if "benchmarks.cli" in targets} == {
        "benchmarks.__main__"}
    # Peel off the modules that import none of the rest: a cycle never peels.
    remaining = dict(graph)
    while remaining:
        leaves = [name for name, targets in remaining.items() if not targets & set(remaining)]
        assert leaves, "import cycle among %s" % sorted(remaining)
        for name in leaves:
            del remaining[name]


def test_only_main_runs_as_a_script():
    scripts = [path.name for path in BENCHMARKS.rglob("*.py")
               if "__name__ == \"__main__\"" in path.read_text()]
    assert scripts == []


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def test_parse_args_reads_every_option(tmp_path):
    args = cli.parse_args(["global", "--quick", "--splits", "3", "--datasets",
                           "vehicle", "segment", "--methods", "ours", "LMNN",
                           "--out", str(tmp_path), "--preprocessing", "zscore_unit_norm",
                           "--betas", "1e-3", "1e-4", "--lmnn-on"])
    assert args.command == "global" and args.quick and args.splits == 3
    assert args.datasets == ["vehicle", "segment"] and args.methods == ["ours", "LMNN"]
    assert args.out == tmp_path and args.preprocessing == "zscore_unit_norm"
    assert args.betas == [1e-3, 1e-4] and args.lmnn_on == []


def test_parse_args_output_folder_defaults():
    assert cli.parse_args(["global"]).out == cli.RESULTS_DIR
    # A quick run writes nothing unless asked, so it never overwrites results.
    assert cli.parse_args(["global", "--quick"]).out is None


@pytest.mark.parametrize("argv", [["nonsense"], ["global", "--splits", "0"],
                                  ["global", "--splits", "two"], ["global", "--jobs", "0"],
                                  ["global", "--preprocessing", "none"]])
def test_parse_args_rejects_bad_input(argv, capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(argv)
    assert "usage" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["global", "--splits", "-1"], "--splits: must be a positive integer, got '-1'"),
    (["global", "--splits", "abc"], "--splits: must be a positive integer, got 'abc'"),
])
def test_bad_integers_say_what_is_accepted(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--quick", "scale"], "give scale first"),
    (["breadth", "--quick", "--methods", "nosuch"], "unknown method 'nosuch'"),
    (["global", "--quick", "--datasets", "nosuch"], "unknown dataset 'nosuch'"),
    (["report", "--out", "/nonexistent/folder"], "is not a folder of results"),
    (["scale", "--sizes", "0"], "--sizes must be positive"),
    (["local", "--quick", "--methods", "ours"], "--methods applies to global, all, breadth"),
    (["local", "--quick", "--preprocessing=minmax"], "local would ignore it"),
    (["memory", "--merge"], "--merge applies to global, all, breadth only"),
])
def test_command_line_errors_are_usage_errors_not_tracebacks(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code != 0
    assert message in str(stopped.value.code) + capsys.readouterr().err


def test_help_lists_every_command_in_one_line(capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(["--help"])
    tables = capsys.readouterr().out.split("\ntables:")[1]
    # scale parses its own options (benchmarks.scale.main), so it has no run.
    for name in [*cli.TABLES, "scale"]:
        (line,) = [line for line in tables.splitlines()
                   if line.split()[:1] == [name]]
        assert len(line.split()) > 3
    assert set(cli.RUNS) == set(cli.TABLES)


# --------------------------------------------------------------------------
# Protocol
# --------------------------------------------------------------------------


def test_subsample_keeps_class_shares_and_is_seeded():
    y = np.repeat([0, 1, 2], [100, 50, 10])
    kept = protocol.subsample(y, 80)
    assert np.array_equal(np.bincount(y[kept]), [50, 25, 5])
    assert np.array_equal(kept, np.sort(kept))
    assert np.array_equal(kept, protocol.subsample(y, 80))
    assert np.array_equal(protocol.subsample(y, 1000), np.arange(160))


def test_paper_splits_default_is_stratified_60_20_20():
    y = np.repeat(["a", "b", "c"], [50, 30, 20])
    splits = list(protocol.paper_splits(y, n_splits=3))
    for train, val, test in splits:
        assert len(np.union1d(np.union1d(train, val), test)) == 100
        for part, size in ((train, 60), (val, 20), (test, 20)):
            np.testing.assert_array_equal(part, np.sort(part))
            np.testing.assert_array_equal(np.unique(y[part], return_counts=True)[1],
                                          np.array([50, 30, 20]) * size // 100)
    assert not np.array_equal(splits[0][2], splits[1][2])
    # Seeded: split i is the same in every run.
    np.testing.assert_array_equal(next(protocol.paper_splits(y, 1))[2], splits[0][2])


def test_paper_splits_absolute_sizes_leave_the_rest_out():
    y = np.repeat(np.arange(4), 1500)
    train, val, test = next(protocol.paper_splits(y, 1, 0, sizes=(3000, 1000, 1000)))
    assert (len(train), len(val), len(test)) == (3000, 1000, 1000)
    assert not (set(train) & set(val) or set(train) & set(test) or set(val) & set(test))
    np.testing.assert_array_equal(np.bincount(y[train]), [750] * 4)


def test_paper_splits_rounding_gives_the_remainder_to_training():
    train, val, test = next(protocol.paper_splits(np.repeat([0, 1], [423, 423]), 1))
    assert (len(train), len(val), len(test)) == (508, 169, 169)


@pytest.mark.parametrize("sizes", [(0.7, 0.2, 0.2), (80, 20, 20), (0.5, 0.5), (0, 5, 5)])
def test_paper_splits_rejects_impossible_sizes(sizes):
    with pytest.raises(ValueError, match="sizes"):
        next(protocol.paper_splits(np.tile([0, 1], 50), 1, 0, sizes=sizes))


def test_tune_keeps_the_lowest_validation_error_and_the_later_value_on_ties():
    errors = {1: 0.3, 2: 0.1, 3: 0.1, 4: 0.2}
    chosen, fits = protocol.tune(lambda value: (value, 0.5), errors.get, list(errors))
    assert chosen == 3 and list(fits) == [1, 2, 3, 4]


def test_lookup_accepts_keys_and_display_names_and_rejects_unknown_names():
    keys = protocol.lookup(["LMNN", "metric-learn SCML_Supervised", "ours"],
                           global_table.METHODS, "method")
    assert keys == ["lmnn", "ml_scml", "ours"]
    with pytest.raises(ValueError, match="unknown dataset 'usps'"):
        protocol.lookup(["usps"], global_table.DATASETS, "dataset")


# --------------------------------------------------------------------------
# Results: summaries, CSV, merges and markdown
# --------------------------------------------------------------------------


def test_summarise_means_standard_errors_medians_and_failures():
    rows = {row["method"]: row for row in results.summarise(_records())}
    row = rows["m"]
    assert row["error_mean"] == pytest.approx(20.0)
    # The standard error with ddof=1, as in the committed tables.
    assert row["error_se"] == pytest.approx(10.0 / math.sqrt(3))
    assert row["fit_seconds_median"] == 2.0 and row["n_active_mean"] == 6.0
    assert row["n_splits"] == 3 and row["n_failed"] == 1
    assert row["chosen"] == "1e-05(x2) 1e-06(x1)"
    assert math.isnan(rows["single"]["error_se"])
    assert math.isnan(rows["single"]["n_active_mean"])


def test_summarise_groups_by_the_given_fields_in_first_seen_order():
    records = [dict(dataset="segment", split=split, method=method, n_basis=size,
                    error=error, fit_seconds=1.0, n_active=size / 2)
               for split, error in ((0, 0.04), (1, 0.06))
               for method in ("global", "local") for size in (50, 200)]
    rows = results.summarise(records, by=("dataset", "method", "n_basis"))
    assert [(row["method"], row["n_basis"]) for row in rows] == [
        ("global", 50), ("global", 200), ("local", 50), ("local", 200)]
    assert all(row["error_mean"] == pytest.approx(5.0) and row["n_splits"] == 2
               for row in rows)


def test_csv_round_trip_puts_required_columns_first(tmp_path):
    rows = results.summarise(_records())
    path = tmp_path / "sub" / "global.csv"
    results.write_csv(path, rows, results.SUMMARY_COLUMNS)
    header = path.read_text().splitlines()[0].split(",")
    assert tuple(header[:len(results.SUMMARY_COLUMNS)]) == results.SUMMARY_COLUMNS
    assert "n_failed" in header
    back = results.read_csv(path)
    assert back[0]["method"] == "m" and back[0]["n_splits"] == 3
    assert back[0]["error_mean"] == pytest.approx(20.0)
    assert math.isnan(back[1]["error_se"])
    results.write_csv(path, rows, results.SUMMARY_COLUMNS, extra=False)
    assert path.read_text().splitlines()[0] == ",".join(results.SUMMARY_COLUMNS)


def test_flags_read_back_from_a_splits_file_count_as_written(tmp_path):
    # "False" in the CSV is a false flag: read back as a string, every
    # split counted as a Euclidean fallback in breadth.md.
    path = tmp_path / "splits.csv"
    results.write_csv(path, [dict(dataset="iris", split=split, method="ours",
                                  error=0.1, beta=1e-3, fallback=split == 0)
                             for split in range(3)], breadth.SPLIT_COLUMNS)
    back = results.read_records(path)
    assert [record["fallback"] for record in back] == [True, False, False]
    assert breadth.beta_spread(back)[-1].rstrip(" |").endswith("| 1")


def test_merge_records_replaces_rerun_pairs_and_keeps_the_others(tmp_path):
    path = tmp_path / "splits.csv"
    results.write_csv(path, [dict(dataset=d, split=s, method=m, error=0.5)
                             for d in ("b", "a") for s in (0, 1) for m in ("x", "y")],
                      ("dataset", "split", "method", "error"))
    merged = results.merge_records(path, [dict(dataset="a", split=0, method="y", error=0.1)],
                                   datasets=["b", "a"], methods=["y", "x"])
    assert [(r["dataset"], r["split"], r["method"], r["error"]) for r in merged] == [
        ("b", 0, "y", 0.5), ("b", 0, "x", 0.5), ("b", 1, "y", 0.5), ("b", 1, "x", 0.5),
        ("a", 0, "y", 0.1), ("a", 0, "x", 0.5), ("a", 1, "x", 0.5)]


def test_keep_summaries_changes_only_the_rows_it_reruns(tmp_path):
    earlier = [_summary("vehicle", "LMNN", 0.2, 96.0412), _summary("vehicle", "ITML", 0.3, 1.0)]
    results.write_csv(tmp_path / "global.csv", earlier, results.SUMMARY_COLUMNS)
    # re-summarised from rounded fits: LMNN's median moved in its last digit
    rows = [dict(earlier[0], fit_seconds_median=96.0413), dict(earlier[1], error_mean=0.25)]
    kept = results.keep_summaries(tmp_path / "global.csv", rows, {("vehicle", "ITML")})
    assert kept[0]["fit_seconds_median"] == 96.0412 and kept[1]["error_mean"] == 0.25


def test_compare_summaries_allows_the_rounding_of_a_splits_file_and_nothing_more():
    committed = [dict(_summary("d", "m", 30.4438, 1.0), chosen=math.nan)]
    rederived = [dict(_summary("d", "m", 30.44385, 1.0000004), chosen="")]
    assert results.compare_summaries(rederived, committed) == []
    moved = [dict(rederived[0], error_mean=30.45, n_splits=3)]
    assert [cell[2] for cell in results.compare_summaries(moved, committed)] == [
        "error_mean", "n_splits"]


def test_results_table_is_markdown_with_one_line_per_row():
    lines = results.results_table(results.summarise(_records()))
    assert lines[:2] == ["| dataset | method | 3-NN test error (%) | fit time (s, median) "
                         "| active basis | splits |", "|---|---|---|---|---|---|"]
    assert lines[2] == "| d | m | 20.0 ± 5.8 | 2.00 | 6 | 3 (+1 failed) |"
    assert lines[3] == "| d | single | 50.0 | 7.00 | - | 1 |"


# --------------------------------------------------------------------------
# The global table
# --------------------------------------------------------------------------


def test_quick_selects_the_small_configuration():
    dataset_keys, method_keys, budget = global_table.plan(quick=True)
    assert dataset_keys == list(global_table.QUICK_DATASETS)
    assert set(method_keys) == {"euclidean", "ours", "ours_defaults", "ml_scml", "itml"}
    assert set(budget.values()) == {global_table.QUICK_SPLITS}


def test_full_plan_caps_slow_methods_per_dataset():
    dataset_keys, method_keys, budget = global_table.plan()
    assert dataset_keys == ["vehicle", "vowel", "segment", "letters", "mfeat_pix",
                            "mnist5k", "newsgroups"]
    assert set(method_keys) == set(global_table.METHODS)
    assert budget["letters", "ours"] == budget["mnist5k", "ours"] == global_table.FULL_SPLITS
    assert budget["letters", "lmnn"] == 1
    assert ("letters", "ITML") in global_table.skipped(budget)
    # --splits lowers every budget but never raises a cap.
    _, _, budget = global_table.plan(n_splits=3)
    assert budget["vehicle", "ours"] == 3 and budget["letters", "lmnn"] == 1
    # --uncapped runs the pairs the caps leave out (ITML on Letters).
    _, _, budget = global_table.plan(n_splits=5, uncapped=True,
                                     dataset_names=["letters"], method_names=["itml"])
    assert budget["letters", "itml"] == 5 and not global_table.skipped(budget)


def test_global_run_records_every_fit_and_failures(toy, monkeypatch):
    def broken(split, seed):
        raise ValueError("could not broadcast")
    monkeypatch.setitem(global_table.METHODS, "broken",
                        global_table.Method("broken", "broken", broken))
    seen = []
    records = global_table.run(n_splits=2, datasets=["toy"],
                               methods=["euclidean", "ours_defaults", "broken"],
                               progress=seen.append)
    assert seen == records and len(records) == 6
    assert [record["split"] for record in records] == [0, 0, 0, 1, 1, 1]
    ours = [r for r in records if r["method"] == global_table.OURS_DEFAULTS]
    assert all(0 <= r["error"] <= 1 and r["fit_seconds"] > 0 and r["n_active"] >= 1
               for r in ours)
    assert all(r["failed"] == "ValueError: could not broadcast"
               for r in records if r["method"] == "broken")


def test_tuned_ours_is_tested_at_the_beta_chosen_on_validation(toy):
    split = next(global_table.splits("toy", 1))
    record = global_table.METHODS["ours"].run(split, 0)
    model = SCML_Supervised(beta=float(record["chosen"]), random_state=0).fit(
        split.X_train, split.y_train)
    assert record["error"] == protocol.knn_error(model.transform(split.X_train),
                                                 split.y_train, model.transform(split.X_test),
                                                 split.y_test)
    assert record["n_active"] == model.n_active_basis_
    assert record["tune_seconds"] >= record["fit_seconds"]


@pytest.mark.skipif(__import__("multiprocessing").get_start_method() != "fork",
                    reason="workers see the test's toy dataset only when forked")
def test_parallel_run_gives_the_records_of_the_serial_run(toy):
    options = dict(n_splits=2, datasets=["toy"], methods=["euclidean", "linear_svm", "nca"])
    serial = global_table.run(**options)
    parallel = global_table.run(n_jobs=2, **options)
    assert global_table.METHODS["nca"].slow
    assert [(r["split"], r["method"], r["error"]) for r in parallel] == \
        [(r["split"], r["method"], r["error"]) for r in serial]


def test_global_command_prints_tables_and_progress_and_merges_reruns(toy, tmp_path, capsys):
    base = ["global", "--quick", "--datasets", "toy", "--out", str(tmp_path)]
    assert cli.main(base + ["--methods", "euclidean", "ours_defaults"]) == 0
    captured = capsys.readouterr()
    assert "| toy | Euclidean |" in captured.out
    assert "| toy | SCML_Supervised (ours, defaults) |" in captured.out
    # one progress line per fit, on stderr
    assert len([line for line in captured.err.splitlines() if "split" in line]) == 4
    assert (tmp_path / "global_run.json").exists()
    first = results.read_csv(tmp_path / "global_splits.csv")
    # Rerun one method on three splits: its records are replaced, the other
    # method's are kept, and the summary covers both.
    assert cli.main(base + ["--methods", "ours_defaults", "--splits", "3", "--merge"]) == 0
    merged = results.read_csv(tmp_path / "global_splits.csv")
    assert [r for r in merged if r["method"] == "Euclidean"] == [
        r for r in first if r["method"] == "Euclidean"]
    assert [r["split"] for r in merged] == [0, 0, 1, 1, 2]
    rows = {row["method"]: row for row in results.read_csv(tmp_path / "global.csv")}
    assert rows["Euclidean"]["n_splits"] == 2 and rows[global_table.OURS_DEFAULTS][
        "n_splits"] == 3
    # Without --merge the files hold this run only.
    assert cli.main(base + ["--methods", "ours_defaults"]) == 0
    assert {r["method"] for r in results.read_csv(tmp_path / "global.csv")} == {
        global_table.OURS_DEFAULTS}


def test_target_table_states_ratios_and_verdicts():
    rows = [_summary("segment", global_table.OURS_DEFAULTS, 3.0, 0.5),
            _summary("segment", global_table.METRIC_LEARN_SCML, 3.5, 4.0),
            _summary("segment", "LMNN", 4.0, 20.0),
            _summary("letters", global_table.OURS_TUNED, 9.0, 2.0),
            _summary("letters", global_table.METRIC_LEARN_SCML, 8.0, 6.0)]
    text = "\n".join(global_table.target_table(rows))
    assert "8.0x (target 5x: met)" in text and "40.0x (target 50x: MISSED)" in text
    assert "3.00 vs 3.50: met" in text
    assert "3.0x (target 5x: MISSED)" in text and "9.00 vs 8.00: MISSED" in text
    assert "not run" in text  # no LMNN on letters
    assert global_table.target_table([_summary("vehicle", global_table.OURS_TUNED, 1, 1)]) == []


# --------------------------------------------------------------------------
# Local and multi-task tables
# --------------------------------------------------------------------------


def test_local_global_rows_are_the_global_tables_tuned_ours(toy, monkeypatch):
    monkeypatch.setattr(local, "EXTRA_DATASET_KEYS", ("toy",))
    monkeypatch.setitem(local.PAPER_EMBEDDING_DIM, "toy", 4)
    records = local.run(n_splits=1, datasets=["toy"])
    assert [record["method"] for record in records] == ["SCML-Global", "SCML-Local"]
    ours = global_table.METHODS["ours"].run(next(global_table.splits("toy", 1)), 0)
    assert {key: records[0][key] for key in ("error", "n_active", "chosen")} == {
        key: ours[key] for key in ("error", "n_active", "chosen")}


def _toy_tasks(dataset, seed):
    X, y = make_classification(n_samples=240, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=seed)
    tasks, parts = np.arange(240) % 2, np.arange(240) % 5  # 3/5 train, 1/5 val, 1/5 test
    layout = {}
    for name, rows in (("train", parts < 3), ("val", parts == 3), ("test", parts == 4)):
        layout["X_" + name], layout["y_" + name] = X[rows], y[rows]
        layout["task_" + name] = tasks[rows]
    return layout


def test_multitask_run_keeps_every_beta_of_the_grid(monkeypatch):
    monkeypatch.setattr(multitask, "load", _toy_tasks)
    records, path = multitask.run(n_splits=1, datasets=("vowel",), lmnn_on=(),
                                  betas=(1e-3, 1e-5))
    assert [r["method"] for r in records] == ["st-Euc", "st-SCML", "u-Euc", "u-SCML",
                                              "mt-SCML"]
    assert [(r["beta"], r["method"]) for r in path] == [
        (beta, method) for beta in (1e-5, 1e-3) for method in multitask.PATH_METHODS]
    # The tuned row is the path's entry at the beta it chose.
    mt = records[-1]
    assert (mt["error"], mt["n_active"]) in [(r["error"], r["n_active"]) for r in path
                                             if r["method"] == "mt-SCML"]


def test_multitask_path_rows_summarise_every_beta():
    path = [dict(dataset="vowel", split=split, method=method, beta=1e-3, error=error,
                 fit_seconds=seconds, n_active=active, fit_ratio_to_st=seconds / 2.0)
            for split, errors in enumerate(((0.10, 0.2, 0.08), (0.12, 0.2, 0.06)))
            for method, error, seconds, active in zip(
                multitask.PATH_METHODS, errors, (2.0, 1.0, 3.0), (100, 40, 80))]
    rows = {row["method"]: row for row in multitask.path_rows(path)}
    assert rows["mt-SCML"]["error_mean"] == pytest.approx(7.0)
    assert rows["mt-SCML"]["n_active_mean"] == 80 and rows["mt-SCML"]["beta"] == 1e-3
    assert rows["mt-SCML"]["fit_ratio_to_st"] == 1.5 and rows["u-SCML"]["fit_ratio_to_st"] == 0.5


def test_multitask_targets_give_verdicts():
    records = [dict(dataset="vowel", split=0, method=method, error=error, fit_seconds=seconds,
                    n_active=active) for method, error, seconds, active in (
        ("st-SCML", 0.10, 1.0, 100), ("u-SCML", 0.2, 0.5, 40), ("mt-SCML", 0.08, 3.0, 80))]
    assert multitask.targets(records) == [
        "[vowel] mt error 8.00% vs best of st/u 10.00%: met; active mt 80.0 vs st total "
        "100.0: met; fit time mt/st per split [3.] (max 3.00): MISSED"]


# --------------------------------------------------------------------------
# The results pages
# --------------------------------------------------------------------------


def test_results_page_puts_the_paper_beside_ours(tmp_path):
    rows = [_summary("segment", global_table.OURS_TUNED, 3.9, 0.5),
            _summary("segment", global_table.METRIC_LEARN_SCML, 4.0, 3.0),
            _summary("vehicle", global_table.OURS_TUNED, 24.0, 0.5)]
    results.write_csv(tmp_path / "global.csv", rows, results.SUMMARY_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    assert "| segment | 3.9 ± 0.1 (4.1) | 4.0 ± 0.1 |" in page
    assert "| segment | 3.9 ± 0.1 | 4.1 | -0.2 | 2 | within 1.5 |" in page
    assert "| vehicle | 24.0 ± 0.1 | 21.3 | +2.7 | 2 | worse by 2.7 |" in page
    assert "6.0x (target 5x: met)" in page


def test_results_page_sets_local_beside_metric_learns_best(tmp_path):
    results.write_csv(tmp_path / "global.csv", [
        _summary("vowel", "LMNN", 7.5, 20.0), _summary("vowel", "NCA", 6.5, 1.0),
        _summary("vowel", global_table.OURS_TUNED, 6.0, 0.3)], results.SUMMARY_COLUMNS)
    results.write_csv(tmp_path / "local.csv", [
        _summary("vowel", "SCML-Global", 6.0, 0.3),
        _summary("vowel", "SCML-Local", 4.0, 1.0)], results.SUMMARY_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    # ours beside the paper (10.9 / 6.1); metric-learn's best is NCA, not ours
    assert "| vowel | 6.0 ± 0.1 (10.9) | 4.0 ± 0.1 (6.1) | NCA: 6.5 ± 0.1 [2] |" in page


def test_results_page_shows_the_multitask_timing(tmp_path):
    results.write_csv(tmp_path / "multitask_timing.csv", [dict(
        dataset="vowel", beta=1e-3, n_splits=5, st_seconds_median=0.8,
        mt_seconds_median=1.2, ratio_median=1.5, ratio_max=2.25)], multitask.TIMING_COLUMNS)
    page = report.write_page(tmp_path).read_text()
    assert "| vowel | 0.001 | 5 | 0.80 | 1.20 | 1.50 | 2.25 |" in page


def test_report_check_finds_a_summary_its_splits_do_not_give(tmp_path):
    records = _records()
    results.write_csv(tmp_path / "global_splits.csv", records, global_table.SPLIT_COLUMNS)
    rows = results.summarise(records)
    results.write_csv(tmp_path / "global.csv", rows, results.SUMMARY_COLUMNS)
    assert report.check(tmp_path) == [
        "global.csv: 2 rows, 0 cells differ from those re-derived from global_splits.csv"]
    rows[0]["n_active_mean"] = 7.0
    results.write_csv(tmp_path / "global.csv", rows, results.SUMMARY_COLUMNS)
    assert "1 cells differ" in report.check(tmp_path)[0]


def test_memory_table_judges_only_the_global_fit_against_1_gib():
    base = dict(dataset="letters", n_basis=400, n_train=3000, rss_before_fit_mib=140.0,
                fit_increase_mib=0.0, fit_seconds=1.0, n_active=10)
    rows = [dict(base, method=memory.GLOBAL_METHOD, peak_rss_mib=360.0),
            dict(base, method=memory.GLOBAL_METHOD, peak_rss_mib=2048.0),
            dict(base, method=memory.LOCAL_METHOD, peak_rss_mib=2644.0)]
    verdicts = [line.rstrip(" |").rsplit("| ", 1)[-1] for line in memory.table(rows)[2:]]
    assert verdicts == ["met", "MISSED", "-"]


# --------------------------------------------------------------------------
# The shipped table
# --------------------------------------------------------------------------


def test_shipped_defaults_table_on_iris():
    from benchmarks import shipped
    rows = shipped.run(n_splits=1, names=("iris",))
    assert [row["method"] for row in rows] == ["Euclidean", "ours", "local"]
    assert all(row["error_mean"] < 20 and row["n_warnings"] == 0 for row in rows)





# --------------------------------------------------------------------------
# Breadth (scikit-learn's shipped datasets: no download)
# --------------------------------------------------------------------------


def test_breadth_datasets_and_groups():
    assert len(breadth.DATASETS) == 35 + 14 + 11
    assert list(breadth.DATASETS) == sorted(set(breadth.DATASETS))
    # The rule is alphabetical alternation over the first 35, which the
    # fresh and generated groups, added later, do not move; every dataset
    # has a group.
    first = sorted(set(breadth.DATASETS) - set(data.FRESH) - set(data.GENERATED))
    assert len(first) == 35 and len(data.FRESH) == 14 and len(data.GENERATED) == 11
    assert breadth.SELECTION == tuple(first[0::2])
    assert breadth.HELD_OUT == tuple(first[1::2])
    assert set(breadth.GROUPS) == set(breadth.DATASETS)
    assert {breadth.GROUPS[name] for name in data.FRESH} == {"fresh"}
    assert {breadth.GROUPS[name] for name in data.GENERATED} == {"generated"}


def test_generated_datasets_are_fixed_and_shaped_as_described():
    # Generated, so in the core suite: the same data at every load.
    for name in data.GENERATED:
        X, y = data.DATASETS[name].load()
        again = data.DATASETS[name].load()
        np.testing.assert_array_equal(X, again[0])
        np.testing.assert_array_equal(y, again[1])
        assert X.shape[0] == y.shape[0] and np.unique(y).shape[0] >= 2
    X, y = data.DATASETS["gen_duplicates"].load()
    assert np.unique(X, axis=0).shape[0] == 400 and X.shape[0] == 500
    X, y = data.DATASETS["gen_hid_80x200"].load()
    assert X.shape == (80, 200)


def _euclidean_error(load, seed=0):
    """3-NN error (%) of one split, written without the benchmark's helpers."""
    X, y = load(return_X_y=True)
    train, test = next(StratifiedShuffleSplit(1, test_size=0.3, random_state=seed)
                       .split(X, y))
    model = make_pipeline(StandardScaler(), KNeighborsClassifier(3))
    return 100 * (1 - model.fit(X[train], y[train]).score(X[test], y[test]))


def test_breadth_command_writes_table_csv_and_merges_reruns(tmp_path, capsys):
    argv = ["breadth", "--datasets", "iris", "wine", "--splits", "1",
            "--methods", "euclidean", "ours", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "| dataset | group | train x features | Euclidean | ours |" in printed
    assert "| iris | selection | 105 x 4 |" in printed
    assert "| wine | held-out | 124 x 13 |" in printed
    assert "| ours vs Euclidean | all | 2 |" in printed
    rows = {(row["dataset"], row["method"]): row
            for row in results.read_csv(tmp_path / "breadth.csv")}
    assert set(rows) == {(d, m) for d in ("iris", "wine") for m in ("Euclidean", "ours")}
    header = (tmp_path / "breadth.csv").read_text().splitlines()[0].split(",")
    assert tuple(header[:len(breadth.SUMMARY_COLUMNS)]) == breadth.SUMMARY_COLUMNS
    for name, load in (("iris", load_iris), ("wine", load_wine)):
        assert rows[name, "Euclidean"]["error_mean"] == pytest.approx(
            _euclidean_error(load), abs=1e-4)
        assert rows[name, "ours"]["fit_seconds_mean"] > 0
    assert rows["iris", "ours"]["group"] == "selection"
    page = (tmp_path / "breadth.md").read_text()
    assert "| iris | selection | 105 x 4 |" in page
    assert "- breadth fits: Euclidean, ours at commit" in page
    # Rerunning one method replaces its fits and keeps the others.
    first = results.read_records(tmp_path / "breadth_splits.csv")
    assert cli.main(argv[:6] + ["--methods", "ours", "--out", str(tmp_path)]) == 0
    again = results.read_records(tmp_path / "breadth_splits.csv")
    assert len(again) == len(first) == 4
    assert [r for r in again if r["method"] == "Euclidean"] == [
        r for r in first if r["method"] == "Euclidean"]


def test_breadth_comparisons_count_ties_within_the_band():
    records = [dict(dataset=dataset, split=0, method=method, error=error / 100,
                    fit_seconds=0.0)
               for dataset, ours, euclidean in (("iris", 10.0, 13.0), ("wine", 5.0, 5.4),
                                                ("digits", 8.0, 6.0))
               for method, error in (("ours", ours), ("Euclidean", euclidean))]
    assert breadth.differences(records, "ours", "Euclidean") == pytest.approx(
        {"iris": -3.0, "wine": -0.4, "digits": 2.0})
    table = "\n".join(breadth.comparison_table(records))
    assert "| ours vs Euclidean | all | 3 | 1 / 1 / 1 | +0.47 | +2.0 (digits) |" in table
    # digits and iris are selection datasets, wine is held out.
    assert "| ours vs Euclidean | held-out | 1 | 0 / 1 / 0 | +0.40 | -0.4 (wine) |" in table


def test_breadth_records_failures_and_skips(monkeypatch):
    def broken(random_state):
        raise ValueError("boom")

    monkeypatch.setitem(breadth.METHODS, "lmnn", breadth.BreadthMethod("LMNN", broken, True))
    monkeypatch.setitem(breadth.METHODS, "nca", breadth.BreadthMethod("NCA", broken, True))
    monkeypatch.setattr(breadth, "SIZE_LIMIT", 1000)
    records = breadth.run(["iris", "wine"], ["lmnn", "nca"], n_splits=1)
    by_key = {(r["dataset"], r["method"]): r for r in records}
    assert by_key["iris", "LMNN"]["failed"] == "ValueError: boom"
    assert "skipped" in by_key["wine", "NCA"]  # 124 x 13 > 1000
    table = "\n".join(breadth.report(records))
    assert "| iris | selection | 105 x 4 | failed | failed |" in table
    assert "| wine | held-out | 124 x 13 | skipped | skipped |" in table


def test_breadth_evaluate_reuses_the_splits_and_scaling():
    # An identity metric is the Euclidean one.
    errors = breadth.evaluate(lambda random_state: FunctionTransformer(), ["iris", "wine"],
                              n_splits=1)
    assert errors == pytest.approx({"iris": _euclidean_error(load_iris),
                                    "wine": _euclidean_error(load_wine)})


# A fixed table of paired differences (points), checked against scipy.stats.
PAIRED = np.array([-2.1, -0.4, -3.3, 0.8, -1.7, -2.6, -0.9, -1.2, 0.3, -2.0])


def test_paired_test_is_scipys_paired_t_test_without_correction():
    from scipy import stats

    ours, theirs = 10.0 + PAIRED, np.full(10, 10.0)
    mean, se, p = results.paired_test(ours - theirs)
    reference = stats.ttest_rel(ours, theirs)
    assert mean == pytest.approx(PAIRED.mean())
    assert se == pytest.approx(stats.sem(PAIRED))
    assert p == pytest.approx(reference.pvalue, rel=1e-9)


def test_paired_test_correction_widens_the_standard_error_as_nadeau_and_bengio():
    from scipy import stats

    mean, se, p = results.paired_test(PAIRED, test_fraction=0.3)
    n = len(PAIRED)
    expected_se = math.sqrt(PAIRED.var(ddof=1) * (1 / n + 0.3 / 0.7))
    assert se == pytest.approx(expected_se)
    t = mean / expected_se
    assert p == pytest.approx(2 * stats.t.sf(abs(t), n - 1), rel=1e-9)
    # the corrected test is the plain one with t shrunk by sqrt(1 + n * n2 / n1)
    plain = stats.ttest_rel(PAIRED, np.zeros(n)).statistic
    assert t == pytest.approx(plain / math.sqrt(1 + n * 0.3 / 0.7))
    assert p > results.paired_test(PAIRED)[2]


def test_paired_test_degenerate_cases():
    assert results.paired_test([0.0, 0.0, 0.0])[1:] == (0.0, 1.0)
    # the same non-zero difference on every split: nothing to test against
    assert math.isnan(results.paired_test([1.0, 1.0])[2])
    assert math.isnan(results.paired_test([1.0])[2])


def test_holm_matches_the_step_down_definition():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan, 0.5])
    adjusted = results.holm(p)
    # sorted: 0.005 (x5), 0.01 (x4), 0.03 (x3), 0.04 (x2), 0.5 (x1), made monotone
    expected = np.array([0.04, 0.09, 0.09, 0.025, np.nan, 0.5])
    np.testing.assert_allclose(adjusted, expected)
    np.testing.assert_allclose(results.holm([0.9, 0.8]), [1.0, 1.0])  # capped, monotone
    np.testing.assert_allclose(results.holm([0.2, 0.01]), [0.2, 0.02])


def test_wilcoxon_over_datasets_is_scipys_signed_rank_test():
    from scipy import stats

    gains = np.array([1.2, -0.3, 2.5, 0.0, 0.7, 1.9, -1.1, 0.4])
    assert results.wilcoxon_over_datasets(gains) == pytest.approx(
        stats.wilcoxon(gains, zero_method="pratt").pvalue)
    assert math.isnan(results.wilcoxon_over_datasets([0.0, 0.0, 1.0]))


def test_breadth_significance_finds_a_real_loss_and_ignores_noise():
    rng = np.random.RandomState(0)
    records = []
    # digits: ours worse by 3 points on every split; iris: noise around 0
    for split in range(10):
        for dataset, gap in (("digits", 3.0 + 0.5 * rng.randn()), ("iris", rng.randn())):
            records += [dict(dataset=dataset, split=split, method="Euclidean",
                             error=0.10, fit_seconds=0.0),
                        dict(dataset=dataset, split=split, method="ours",
                             error=0.10 + gap / 100, fit_seconds=0.1)]
    found = breadth.significance(records, "ours", "Euclidean")
    assert found["digits"]["verdict"] == "loss" and found["iris"]["verdict"] == "-"
    assert found["digits"]["p_holm"] >= found["digits"]["p"]
    table = "\n".join(breadth.significance_table(records))
    assert "| ours vs Euclidean | all | 2 | 0 / 1 / 1 |" in table
    assert "loss digits" in table


def test_breadth_reuses_baseline_fits_of_an_earlier_run():
    earlier = breadth.run(["iris"], ["euclidean"], n_splits=1)
    earlier[0]["error"] = 0.5    # a value no fit gives: reused, not refitted
    again = breadth.run(["iris"], ["euclidean", "ours"], n_splits=1, earlier=earlier)
    assert again[0]["error"] == 0.5
    assert again[1]["method"] == "ours" and again[1]["beta"] > 0


def test_small_tasks_table_gives_each_cut_and_method_against_euclidean():
    records = [dict(dataset="libras tasks (%s)" % cut, split=split, method=method,
                    error=error + 0.01 * (split % 2), fit_seconds=1.0, n_active=3.0)
               for cut in ("stratified", "permutation") for split in range(10)
               for method, error in (("Euclidean", 0.20), ("MultiTaskSCML_Supervised", 0.15),
                                     ("SCML_Supervised (per task)", 0.20),
                                     ("LocalSCML_Supervised (per task)", 0.25))]
    for record in records:   # noise that the paired test must see through
        if record["method"] != "Euclidean":
            record["error"] += 0.002 * (record["split"] % 3)
    table = "\n".join(breadth.small_tasks_table(breadth.summary_rows(records), records))
    assert table.count("| libras tasks (permutation) |") == 4
    line = next(line for line in table.splitlines()
                if "(stratified) | MultiTaskSCML_Supervised" in line)
    assert "| -4.8 ± " in line and "Holm p = " in line
    euclidean = next(line for line in table.splitlines()
                     if "(stratified) | Euclidean" in line)
    assert "| - |" in euclidean


def test_medium_tasks_split_each_task_and_scale_on_the_pooled_training_points():
    from benchmarks.data.tasks import medium_tasks

    data = medium_tasks("breast_cancer", 0)
    tasks, counts = np.unique(data["task_train"], return_counts=True)
    assert tasks.shape == (3,) and counts.min() >= 100
    for task in tasks:
        train = data["task_train"] == task
        test = data["task_test"] == task
        # 70/30 within each task
        assert abs(test.sum() / (train.sum() + test.sum()) - 0.3) < 0.02
    np.testing.assert_allclose(data["X_train"].mean(axis=0), 0, atol=1e-12)
    again = medium_tasks("breast_cancer", 0)
    np.testing.assert_array_equal(again["X_test"], data["X_test"])
    assert not np.array_equal(medium_tasks("breast_cancer", 1)["task_train"],
                              data["task_train"])
    with pytest.raises(ValueError, match=r"unknown medium-tasks set 'iris': "
                       r"choose from digits, .*newsgroups"):
        breadth.medium_tasks(1, names=["iris"])


def test_fingerprint_rows_are_labelled_and_hashes_tell_arrays_apart():
    from benchmarks import fingerprint

    names = [name for name, _ in fingerprint.fits()]
    assert len(names) == len(set(names)) == 16
    one = fingerprint.digest(np.eye(2), [0.5])
    assert one == fingerprint.digest(np.eye(2), [0.5]) and len(one) == 12
    assert one != fingerprint.digest(np.eye(2), [0.5 + 1e-12])
    text = fingerprint.table([{"fit": "SCML()", "hash": one, "active": 3}])
    assert "| SCML() | %s | 3 |" % one in text and "active elements" in text


def test_shape_counts_code_lines_and_follows_the_longest_import_chain():
    from benchmarks import shape

    source = ('"""A module docstring\nof two lines."""\n\n# a comment\n'
              'x = (1,\n     2)\n\n\ndef f():\n    """Doc."""\n'
              '    return x  # why\n')
    # x's two lines, the def and the return
    assert shape.code_lines(source) == 4
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"d"}, "d": set()}
    assert shape.longest_chain(graph) == ["a", "b", "c", "d"]
    package = shape.imports()
    assert "_driver" in package["_base"] and "scml" not in package["path"]
    text = shape.table([("modules", "18")])
    assert text.splitlines()[0] == "| measure of the package | value |"
    assert "| modules | 18 |" in text
