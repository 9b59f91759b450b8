"""Command line of the benchmarks: ``python -m benchmarks COMMAND [options]``.

Commands
--------
global
    Global metrics on Vehicle, Vowel, Segment, Letters, mfeat-pix and
    MNIST-5k (USPS stand-ins) and 20 Newsgroups (BBC stand-in): Euclidean,
    ours, metric-learn SCML_Supervised, LMNN, ITML, NCA, linear and RBF SVM
    (:mod:`benchmarks.compare_global`); then the speed targets on Segment and
    Letters and, in a full run, the peak memory of a Letters fit.
local, multitask
    The local and multi-task tables (``benchmarks/local.py``,
    ``benchmarks/multitask.py``).
all
    global, local and multitask, then the basis-size curve and the results
    page.
memory
    Peak memory of our fit on Letters with 1,000 basis elements.
basis-size
    Error and active basis elements against the basis size on Segment.
report
    Rebuild the results page and plots from the CSV files in ``--out``.
scale
    Fit time and peak memory against the number of points, 10,000 to
    1,000,000 synthetic points (:mod:`benchmarks.scale`, which takes its
    own options: ``python -m benchmarks scale --help``).
breadth, small-tasks
    Every estimator at its defaults on 35 public datasets, and on small
    tasks of movement_libras (:mod:`benchmarks.breadth`; their own page,
    ``breadth.md``; a breadth run keeps the earlier fits of the methods it
    does not run).

Progress goes to stderr, one line per fit; tables go to stdout as markdown.
Errors are in percent. A full run writes ``<command>.csv`` (one row per
dataset and method), ``<command>_splits.csv`` (one row per fit) and
``<command>_run.json`` (commit, wall time, command) to ``--out``
(``benchmarks/results`` by default); ``--quick`` writes only when ``--out``
is given.
"""

import argparse
import csv
import importlib
import inspect
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

RESULTS_DIR = Path(__file__).resolve().parent / "results"

# Columns of the summary CSVs, in order; rows may hold more.
SUMMARY_COLUMNS = ("dataset", "method", "error_mean", "error_se",
                   "fit_seconds_median", "n_active_mean", "n_splits")
SPLIT_COLUMNS = ("dataset", "split", "method", "error", "fit_seconds",
                 "tune_seconds", "n_active", "chosen", "seconds", "failed")

# Issue 2's targets, checked on these datasets in one run.
TARGET_DATASETS = ("segment", "letters")
OURS_TUNED = "SCML_Supervised (ours)"
OURS_DEFAULTS = "SCML_Supervised (ours, defaults)"
METRIC_LEARN_SCML = "metric-learn SCML_Supervised"
SPEEDUP_TARGETS = {METRIC_LEARN_SCML: 5.0, "LMNN": 50.0}


# --------------------------------------------------------------------------
# Summaries and output
# --------------------------------------------------------------------------


def summarise(records):
    """One row per (dataset, method) from per-fit records.

    Parameters
    ----------
    records : list of dict
        With ``dataset``, ``method`` and either ``error`` (a fraction),
        ``fit_seconds``, optionally ``tune_seconds``, ``n_active`` and
        ``chosen``, or ``failed``.

    Returns
    -------
    rows : list of dict
        ``dataset, method, error_mean, error_se`` (percent; the standard
        error is ``std / sqrt(n)``, ``nan`` for one split),
        ``fit_seconds_median, n_active_mean, n_splits`` (successful fits),
        ``n_failed``, ``tune_seconds_median`` and ``chosen`` (the values
        picked on validation, most frequent first), in first-seen order.
    """
    groups = {}
    for record in records:
        groups.setdefault((record["dataset"], record["method"]), []).append(record)
    rows = []
    for (dataset, method), group in groups.items():
        done = [record for record in group if not record.get("failed")]
        errors = 100.0 * np.array([record["error"] for record in done], dtype=float)
        row = dict(
            dataset=dataset, method=method,
            error_mean=_mean(errors),
            error_se=(errors.std(ddof=1) / math.sqrt(len(errors))
                      if len(errors) > 1 else math.nan),
            fit_seconds_median=_median([record["fit_seconds"] for record in done]),
            n_active_mean=_mean([record.get("n_active", math.nan) for record in done]),
            n_splits=len(done),
            n_failed=len(group) - len(done),
            tune_seconds_median=_median(
                [record.get("tune_seconds", math.nan) for record in done]),
            chosen=_frequent([record.get("chosen", "") for record in done]),
        )
        rows.append(row)
    return rows


def _mean(values):
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else math.nan


def _median(values):
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if len(values) else math.nan


def _frequent(values):
    values = [value for value in values if value]
    counts = {value: values.count(value) for value in dict.fromkeys(values)}
    return " ".join("%s(x%d)" % (value, count) for value, count in
                    sorted(counts.items(), key=lambda item: -item[1]))


def write_csv(path, rows, columns):
    """Write ``rows`` with ``columns`` first, then any further keys, to ``path``."""
    extra = [key for row in rows for key in row if key not in columns]
    fieldnames = list(columns) + list(dict.fromkeys(extra))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=fieldnames, restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: _csv_value(value) for key, value in row.items()})


def read_csv(path):
    """Rows of a CSV written by :func:`write_csv`, numbers parsed back."""
    with open(path, newline="") as stream:
        return [{key: _parse_value(value) for key, value in row.items()}
                for row in csv.DictReader(stream)]


def _csv_value(value):
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else "%.6g" % value
    return value


def _parse_value(text):
    if text == "":
        return math.nan
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text else number


def format_number(value, digits=1):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return "%.*f" % (digits, value)


def format_seconds(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value < 10:
        return "%.2f" % value
    return "%.0f" % value


def format_error(row):
    """``mean ± se`` in percent (``mean`` alone for a single split)."""
    if math.isnan(row["error_mean"]):
        return "failed" if row.get("n_failed") else "-"
    text = "%.1f" % row["error_mean"]
    if not math.isnan(row.get("error_se", math.nan)):
        text += " ± %.1f" % row["error_se"]
    return text


def markdown_table(header, lines):
    """A GitHub markdown table (list of str) from a header and rows of cells."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(cell) for cell in line) + " |" for line in lines]
    return out


def results_table(rows):
    """Markdown table of summary rows, one line per (dataset, method)."""
    lines = []
    for row in rows:
        failed = row.get("n_failed") or 0
        lines.append([
            row["dataset"], row["method"], format_error(row),
            format_seconds(row["fit_seconds_median"]),
            format_number(row.get("n_active_mean", math.nan), 0),
            "%d%s" % (row["n_splits"], " (+%d failed)" % failed if failed else ""),
        ])
    return markdown_table(["dataset", "method", "3-NN test error (%)",
                           "fit time (s, median)", "active basis", "splits"], lines)


def target_table(rows):
    """Issue 2's targets on Segment and Letters from the global summary rows.

    For each target dataset and each of our rows (tuned and defaults):
    metric-learn SCML's and LMNN's median fit time divided by ours, against
    the targets (5x and 50x), and whether our 3-NN error is no higher than
    metric-learn SCML's.

    Returns
    -------
    lines : list of str
        A markdown table, empty if the rows hold none of these datasets.
    """
    by_key = {(row["dataset"], row["method"]): row for row in rows}
    lines = []
    for dataset in TARGET_DATASETS:
        for ours in (OURS_TUNED, OURS_DEFAULTS):
            mine = by_key.get((dataset, ours))
            if mine is None or math.isnan(mine["error_mean"]):
                continue
            cells = [dataset, ours, "%.1f" % mine["error_mean"],
                     format_seconds(mine["fit_seconds_median"])]
            for other, target in SPEEDUP_TARGETS.items():
                theirs = by_key.get((dataset, other))
                if theirs is None or math.isnan(theirs["fit_seconds_median"]):
                    cells.append("not run")
                    continue
                ratio = theirs["fit_seconds_median"] / mine["fit_seconds_median"]
                cells.append("%.1fx (target %gx: %s)" % (
                    ratio, target, "met" if ratio >= target else "MISSED"))
            reference = by_key.get((dataset, METRIC_LEARN_SCML))
            if reference is None or math.isnan(reference["error_mean"]):
                cells.append("not run")
            else:
                cells.append("%.2f vs %.2f: %s" % (
                    mine["error_mean"], reference["error_mean"],
                    "met" if mine["error_mean"] <= reference["error_mean"]
                    else "MISSED"))
            lines.append(cells)
    if not lines:
        return []
    return markdown_table(
        ["dataset", "ours", "error (%)", "fit (s)",
         "speed-up vs metric-learn SCML", "speed-up vs LMNN",
         "error vs metric-learn SCML"], lines)


# --------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------


class Progress:
    """One line per fit on stderr: dataset, split, method, time, error."""

    def __init__(self, stream=None):
        # None means the current sys.stderr, which keeps the object picklable
        # for worker processes (the monotonic clock is shared with them).
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, record):
        elapsed = time.perf_counter() - self.start
        if record.get("failed"):
            outcome = "FAILED %s" % record["failed"][:120]
        else:
            outcome = "fit %7.2fs  error %5.1f%%" % (record["fit_seconds"],
                                                   100 * record["error"])
            if record.get("chosen"):
                outcome += "  chose %s" % record["chosen"]
        print("[%6.0fs] %-11s split %2d  %-34s %s" % (
            elapsed, record["dataset"], record["split"], record["method"], outcome),
            file=self.stream or sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


def run_global(args, progress):
    from . import compare_global
    records = compare_global.run(
        quick=args.quick, n_splits=args.splits, datasets=args.datasets,
        methods=args.methods, preprocessing=args.preprocessing, progress=progress,
        n_jobs=args.jobs, uncapped=args.uncapped)
    return records, summarise(records)


def merge_records(path, records):
    """Earlier per-fit records in ``path``, updated with this run's ``records``.

    Every (dataset, method) pair this run measured replaces the earlier
    records of that pair; the others are kept, so one dataset or method can
    be rerun (or given more splits) without redoing the whole table. Splits
    are the same in every run (they are seeded), but fit times come from
    different runs. Records are returned in the order of the datasets and
    methods of :mod:`benchmarks.compare_global`, then by split.
    """
    from .compare_global import DATASETS, METHODS
    path = Path(path)
    earlier = []
    if path.exists():
        # Empty cells come back as nan; a record without them is as written.
        earlier = [{key: value for key, value in record.items()
                    if not (isinstance(value, float) and math.isnan(value))}
                   for record in read_csv(path)]
    rerun = {(record["dataset"], record["method"]) for record in records}
    merged = [record for record in earlier
              if (record["dataset"], record["method"]) not in rerun] + list(records)
    datasets = list(DATASETS)
    methods = [method.name for method in METHODS.values()]

    def position(name, order):
        return order.index(name) if name in order else len(order)

    merged.sort(key=lambda record: (position(record["dataset"], datasets),
                                    record["dataset"], record["split"],
                                    position(record["method"], methods)))
    return merged


def keep_summaries(path, rows, rerun):
    """``rows``, with the earlier summary row in ``path`` of each pair not rerun.

    The kept fits come back from ``global_splits.csv`` rounded to 6
    significant digits, so summarising them again can move the last digit
    of a median (96.0412 s became 96.0413 s); the earlier row, summarised
    from the unrounded fits, is kept instead, so that a merge changes only
    the rows of the (dataset, method) pairs in ``rerun``.
    """
    path = Path(path)
    if not path.exists():
        return rows
    earlier = {(row["dataset"], row["method"]): row for row in read_csv(path)}
    kept = []
    for row in rows:
        key = (row["dataset"], row["method"])
        kept.append(row if key in rerun else earlier.get(key, row))
    return kept


def run_delegated(command, args, progress):
    """Call ``benchmarks.<command>.run`` written by the multi-task / local authors."""
    try:
        module = importlib.import_module("benchmarks." + command)
    except ModuleNotFoundError as error:
        if error.name != "benchmarks." + command:
            raise
        raise SystemExit(
            "benchmarks/%s.py does not exist yet: the %s benchmark is not "
            "written (its issue is still open)." % (command, command))
    accepted = inspect.signature(module.run).parameters
    options = dict(quick=args.quick, n_splits=args.splits, datasets=args.datasets,
                   methods=args.methods, progress=progress, out=args.out)
    kwargs = {name: value for name, value in options.items()
              if name in accepted and (value is not None or name == "quick")}
    rows = [dict(row) for row in module.run(**kwargs)]
    # The delegated modules return fractions or percent; tables here are in percent.
    if rows and all(row["error_mean"] <= 1.0 for row in rows):
        for row in rows:
            row["error_mean"] *= 100.0
            row["error_se"] *= 100.0
    return None, rows


def git_commit():
    """The commit of the working tree, with ``+dirty`` if tracked files changed."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def run_metadata(command, args, seconds):
    """What a results file needs to be reproduced: command, commit, versions.

    The commit is the one checked out when the run started (``args.commit``).
    """
    import metric_learn
    import sklearn

    import metric_learn_scml
    return dict(command="python -m benchmarks " + " ".join(sys.argv[1:]) if
                sys.argv[1:] else command,
                wall_seconds=round(seconds, 1), commit=args.commit,
                package=str(Path(metric_learn_scml.__file__).parent),
                finished=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                python=platform.python_version(),
                scikit_learn=sklearn.__version__,
                metric_learn=metric_learn.__version__,
                preprocessing=args.preprocessing, quick=args.quick,
                machine="%d CPUs, %s" % (os.cpu_count(), platform.machine()))


def run_table(command, args, progress, out):
    """Run one table (global / local / multitask), print it and save it."""
    start = time.perf_counter()
    if command == "global":
        records, rows = run_global(args, progress)
        if args.merge and out is not None:
            rerun = {(record["dataset"], record["method"]) for record in records}
            records = merge_records(out / "global_splits.csv", records)
            rows = keep_summaries(out / "global.csv", summarise(records), rerun)
    else:
        records, rows = run_delegated(command, args, progress)
    seconds = time.perf_counter() - start
    print("\n## %s (3-NN test error in %%, mean ± standard error over splits)\n"
          % command)
    print("\n".join(results_table(rows)))
    if command == "global":
        targets = target_table(rows)
        if targets:
            print("\n### Targets of issue 2 (same run)\n")
            print("\n".join(targets))
    if command == "global":
        from .compare_global import plan, skipped
        not_run = skipped(plan(args.quick, args.splits, args.datasets, args.methods,
                               args.uncapped)[2])
        if not_run:
            print("\nnot run (split budget 0): " + ", ".join(
                "%s on %s" % (method, dataset) for dataset, method in not_run))
    print("\n%s wall time: %.0f s" % (command, seconds))
    if out is not None:
        write_csv(out / ("%s.csv" % command), rows, SUMMARY_COLUMNS)
        if records is not None:
            write_csv(out / ("%s_splits.csv" % command), records, SPLIT_COLUMNS)
        with open(out / ("%s_run.json" % command), "w") as stream:
            json.dump(run_metadata(command, args, seconds), stream, indent=1)
    return rows


def run_memory(args, out):
    from . import memory
    rows = memory.run(quick=args.quick)
    print("\n## Peak memory\n")
    print("\n".join(memory.table(rows)))
    if out is not None:
        write_csv(out / "memory.csv", rows, memory.COLUMNS)
    return rows


def run_basis_size(args, progress, out):
    from . import basis_size
    records = basis_size.run(quick=args.quick, n_splits=args.splits,
                             preprocessing=args.preprocessing, progress=progress)
    rows = basis_size.summarise(records)
    print("\n## Basis size on Segment\n")
    print("\n".join(basis_size.table(rows)))
    if out is not None:
        write_csv(out / "basis_size.csv", rows, basis_size.COLUMNS)
    return rows


def parse_args(argv=None):
    from .compare_global import DEFAULT_PREPROCESSING, PREPROCESSINGS
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Real-data benchmarks of metric-learn-scml against "
                    "metric-learn and SVMs (Shi, Bellet and Sha, AAAI 2014).")
    parser.add_argument("command", choices=["global", "local", "multitask", "all",
                                            "memory", "basis-size", "report",
                                            "breadth", "small-tasks", "scale"])
    parser.add_argument("--quick", action="store_true",
                        help="small configuration (under two minutes): Vehicle, "
                             "2 splits, fast methods")
    parser.add_argument("--splits", type=_positive_int, default=None,
                        help="random splits per dataset (default 20, 2 with "
                             "--quick; slow methods run fewer, see n_splits)")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="dataset names (default: all, or the quick subset)")
    parser.add_argument("--methods", nargs="+", default=None,
                        help="method keys or names, e.g. ours ml_scml lmnn")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the CSV files (default benchmarks/"
                             "results; with --quick nothing is written unless "
                             "given)")
    parser.add_argument("--merge", action="store_true",
                        help="global only: keep the earlier fits in --out's "
                             "global_splits.csv for the datasets and methods "
                             "this run does not measure, and summarise all")
    parser.add_argument("--uncapped", action="store_true",
                        help="global only: run --splits for every method, "
                             "without the per-method split budgets (e.g. ITML "
                             "on Letters, which a full run leaves out)")
    parser.add_argument("--jobs", type=_positive_int, default=1,
                        help="worker processes for the global table (slow "
                             "methods get their own; default 1)")
    parser.add_argument("--max-samples", type=_positive_int, default=2000,
                        help="breadth only: larger datasets are cut to this "
                             "many points, stratified (default %(default)s)")
    parser.add_argument("--preprocessing", choices=sorted(PREPROCESSINGS),
                        default=DEFAULT_PREPROCESSING,
                        help="feature scaling fitted on the training split "
                             "(default %(default)s, see the results page)")
    args = parser.parse_args(argv)
    if args.out is None and not args.quick:
        args.out = RESULTS_DIR
    return args


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer, got %s" % text)
    return value


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["scale"]:
        from . import scale
        return scale.main(argv[1:])
    args = parse_args(argv)
    # Two threads on a busy 2-core machine make k-means and neighbour searches
    # many times slower (DESIGN.md section 5): every method is timed on one.
    with threadpool_limits(limits=1):
        return _run_command(args)


def _run_command(args):
    args.commit = git_commit()
    progress = Progress()
    out = args.out
    if args.command == "report":
        from . import report
        print(report.write_page(out or RESULTS_DIR))
        return 0
    if args.command in ("breadth", "small-tasks"):
        from . import breadth
        breadth.run_command(args.command, args, progress, out)
        return 0
    commands = (["global", "local", "multitask"] if args.command == "all"
                else [args.command])
    start = time.perf_counter()
    for command in commands:
        if command in ("global", "local", "multitask"):
            try:
                run_table(command, args, progress, out)
            except SystemExit as missing:
                if args.command != "all":
                    raise
                print("\n%s skipped: %s" % (command, missing), file=sys.stderr)
        elif command == "memory":
            run_memory(args, out)
        elif command == "basis-size":
            run_basis_size(args, progress, out)
    if args.command == "all":
        run_basis_size(args, progress, out)
    if args.command in ("global", "all") and not args.quick:
        run_memory(args, out)
    if args.command == "all" and out is not None:
        with open(out / "all_run.json", "w") as stream:
            json.dump(run_metadata("all", args, time.perf_counter() - start),
                      stream, indent=1)
        from . import report
        print("\nresults page: %s" % report.write_page(out))
    return 0
