"""Compare: our SCML against metric-learn's learners on the user's own data.

``python -m benchmarks compare --data FILE [--target COLUMN] [--learners NAME ...]``
reads a table (:func:`load_table`: a ``.csv`` with a header row, or a
``.npz`` with arrays ``X`` and ``y``), runs the breadth table's protocol
on it (:func:`compare`: seeded stratified 70/30 splits, ``StandardScaler``
fitted on the training part, the test error of scikit-learn's 3-NN
classifier under each learned metric; :mod:`benchmarks.breadth`), and
prints one line per learner (:func:`report`): its error, its fit time,
and its paired difference to ours with a test that accounts for the
overlap of the splits' training sets (Nadeau and Bengio 2003) and for the
number of learners compared (Holm). :func:`plot` draws every split's
error.

Learners (:func:`learner`): the keys of :data:`LEARNERS`, and every
metric-learn learner that fits on labels, by its class name (``LMNN``,
``ITML_Supervised``, ``LFDA``, ``Covariance``, ...; ``metric_learn.NAME``
also works, and is the way to metric-learn's ``SCML_Supervised``, as is
``ml_scml``). Each runs at its defaults, with ``random_state`` the split
number where its constructor takes one.

Examples
--------
>>> X, y, classes = load_table("examples/data/wine.csv", target="class")  # doctest: +SKIP
>>> records = compare(X, y, ["euclidean", "ours", "lmnn"], n_splits=3)  # doctest: +SKIP
>>> print("\\n".join(report(records)))  # doctest: +SKIP
"""

import csv
import inspect
import math
import textwrap
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler

# First: it makes metric-learn run on new scikit-learn.
import metric_learn_scml  # noqa: F401
import metric_learn

from .breadth import METHODS, _measure, paired_differences
from .protocol import UnknownNameError, stratified_split
from .results import format_error, format_seconds, holm, paired_test, summarise

N_SPLITS = 10
TEST_FRACTION = 0.3
ALPHA = 0.05
# Line length of the report's prose (the table is as wide as it needs).
WIDTH = 92
DEFAULT_LEARNERS = ("euclidean", "ours", "ml_scml", "lmnn", "nca")
# The breadth table's learners under its keys (None: the Euclidean metric;
# ``nca`` is scikit-learn's, ``NCA`` metric-learn's), and ours by its class name.
LEARNERS = {key: method.make for key, method in METHODS.items()}
LEARNERS["SCML_Supervised"] = LEARNERS["ours"]
# Names that stand for ours: the reference of the report when present.
OURS = ("ours", "SCML_Supervised")
# Columns of the records CSV, in order; records may hold more.
COLUMNS = ("dataset", "split", "method", "error", "fit_seconds", "n_train", "n_test",
           "n_features", "n_classes", "test_size", "failed", "n_warnings", "n_active")
# Cells read as missing values in a CSV (compared lower-cased, stripped).
MISSING = ("", "na", "n/a", "nan", "null", "none", "?")


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


def load_table(path, target=None):
    """Features, encoded labels and class names of a ``.csv`` or ``.npz`` file.

    Parameters
    ----------
    path : str or Path
        A ``.csv`` file with a header row (every column but the target must
        be numeric), or a ``.npz`` file with a 2-D array ``X`` and a 1-D
        array ``y``.
    target : str, default=None
        The label column of a CSV file; None means the last column.
        Ignored for ``.npz``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int
        Labels encoded 0..K-1 in the sorted order of ``classes``.
    classes : ndarray of shape (K,)
        The original label of each code.

    Raises
    ------
    ValueError
        For an unknown extension, a non-numeric feature column, missing or
        infinite values, or a class of fewer than 2 points; the message
        says what to change.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError("--data %s: no such file" % path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        X, labels = _read_csv(path, target)
    elif suffix == ".npz":
        X, labels = _read_npz(path)
    else:
        raise ValueError("--data %s: unknown file type %r; give a .csv file (a header row, "
                         "one column of labels) or a .npz file (arrays X and y)"
                         % (path, path.suffix))
    classes, y, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if len(classes) < 2:
        raise ValueError("%s: the labels hold a single class (%s); a comparison needs 2 "
                         "or more" % (path.name, classes[0] if len(classes) else "no rows"))
    if counts.min() < 2:
        small = ", ".join("%s (%d)" % (name, count)
                          for name, count in zip(classes, counts) if count < 2)
        raise ValueError("%s: classes with fewer than 2 points: %s; a stratified split "
                         "needs 2 or more per class: drop these rows or merge the classes"
                         % (path.name, small))
    return X, y.ravel(), classes


def _read_csv(path, target):
    """``X`` (float64) and the label strings of a CSV file with a header row."""
    with open(path, newline="", encoding="utf-8-sig") as stream:
        rows = [row for row in csv.reader(stream) if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        raise ValueError("%s: a header row and at least one row of data are needed"
                         % path.name)
    header = [name.strip() for name in rows[0]]
    lengths = {len(row) for row in rows[1:]}
    if lengths != {len(header)}:
        bad = next(i for i, row in enumerate(rows[1:], 2) if len(row) != len(header))
        raise ValueError("%s: line %d has %d cells, the header %d; every row needs one "
                         "cell per column" % (path.name, bad, len(rows[bad - 1]),
                                              len(header)))
    if target is None:
        column = len(header) - 1
    elif target in header:
        column = header.index(target)
    else:
        raise ValueError("%s: no column %r (--target); the columns are: %s"
                         % (path.name, target, ", ".join(header)))
    cells = np.char.strip(np.array(rows[1:], dtype=str))
    missing = np.isin(np.char.lower(cells), MISSING)
    n_missing = int(missing.any(axis=1).sum())
    if n_missing:
        columns = [header[j] for j in np.flatnonzero(missing.any(axis=0))]
        raise ValueError("%s: %d of %d rows have missing values (in %s); drop those rows "
                         "or impute the values (e.g. with the column mean) first"
                         % (path.name, n_missing, len(cells), ", ".join(columns)))
    features = [j for j in range(len(header)) if j != column]
    if not features:
        raise ValueError("%s: no feature column besides the target %r"
                         % (path.name, header[column]))
    X = np.empty((len(cells), len(features)))
    for k, j in enumerate(features):
        try:
            X[:, k] = cells[:, j].astype(np.float64)
        except ValueError:
            bad = str(next(cell for cell in cells[:, j] if not _is_number(cell)))
            raise ValueError(
                "%s: column %r is not numeric (it holds %r); encode it as numbers "
                "(e.g. one column per category), drop it, or give it as the label "
                "column with --target" % (path.name, header[j], bad)) from None
    _check_finite(X, [header[j] for j in features], path)
    return X, cells[:, column]


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_npz(path):
    """``X`` (float64) and ``y`` of a ``.npz`` file."""
    with np.load(path, allow_pickle=False) as arrays:
        found = list(arrays.files)
        if "X" not in found or "y" not in found:
            raise ValueError("%s: a .npz file needs the arrays X (features) and y (labels); "
                             "it holds %s (save with np.savez(path, X=X, y=y))"
                             % (path.name, ", ".join(found) or "none"))
        X, labels = arrays["X"], arrays["y"]
    if X.ndim != 2 or labels.ndim != 1 or len(X) != len(labels):
        raise ValueError("%s: X must be 2-D and y 1-D with as many rows; got X of shape %s "
                         "and y of shape %s" % (path.name, X.shape, labels.shape))
    try:
        X = X.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("%s: X is not numeric (dtype %s); encode every feature as "
                         "numbers" % (path.name, X.dtype)) from None
    missing = np.isnan(X).any(axis=1)
    if missing.any():
        raise ValueError("%s: %d of %d rows of X have missing values (NaN); drop those "
                         "rows or impute the values first" % (path.name, missing.sum(),
                                                               len(X)))
    _check_finite(X, ["column %d" % j for j in range(X.shape[1])], path)
    return X, labels


def _check_finite(X, names, path):
    infinite = ~np.isfinite(X).all(axis=0)
    if infinite.any():
        raise ValueError("%s: infinite values in %s; replace them before comparing"
                         % (path.name, ", ".join(np.asarray(names)[infinite])))


# --------------------------------------------------------------------------
# Learners
# --------------------------------------------------------------------------


def _fits_on_labels(cls):
    """Whether a metric-learn class learns from ``fit(X, y)`` (not pairs, triplets)."""
    try:
        return list(inspect.signature(cls.fit).parameters)[1:3] == ["X", "y"]
    except (AttributeError, TypeError, ValueError):
        return False


def metric_learn_names():
    """metric-learn's learners that fit on labels, by class name."""
    return [name for name in metric_learn.__all__
            if inspect.isclass(getattr(metric_learn, name, None))
            and _fits_on_labels(getattr(metric_learn, name))]


def _factory(cls):
    """``make(random_state)`` for a class: passed on only if its constructor takes it."""
    if "random_state" in inspect.signature(cls).parameters:
        return lambda random_state: cls(random_state=random_state)
    return lambda random_state: cls()


def learner(name):
    """The factory ``make(random_state)`` of a learner name (None: Euclidean).

    A key of :data:`LEARNERS` first (exactly: ``nca`` is scikit-learn's
    NCA, ``NCA`` metric-learn's), then a metric-learn class that fits on
    labels, by name (``metric_learn.`` in front is optional), then the
    same ignoring case (``lfda``, ``Euclidean``). An unknown name raises an
    :class:`~benchmarks.protocol.UnknownNameError` listing the valid names.
    """
    if name in LEARNERS:
        return LEARNERS[name]
    valid = metric_learn_names()
    bare = name[len("metric_learn."):] if name.startswith("metric_learn.") else name
    matches = [found for found in valid if found == bare] or [
        found for found in valid if found.lower() == bare.lower()]
    if len(matches) == 1:
        return _factory(getattr(metric_learn, matches[0]))
    keys = [key for key in LEARNERS if key.lower() == name.lower()]
    if len(keys) == 1:
        return LEARNERS[keys[0]]
    hint = ""
    if inspect.isclass(getattr(metric_learn, bare, None)):
        hint = " (metric-learn's %s learns from pairs, triplets or chunks, not labels%s)" % (
            bare, "; try %s_Supervised" % bare
            if "%s_Supervised" % bare in valid else "")
    raise UnknownNameError("unknown learner %r%s: choose from %s, or metric-learn's %s "
                           "(metric_learn.SCML_Supervised is metric-learn's SCML)"
                           % (name, hint, ", ".join(LEARNERS), ", ".join(valid)))


# --------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------


def compare(X, y, learners=DEFAULT_LEARNERS, n_splits=N_SPLITS, test_size=TEST_FRACTION,
            progress=None, name="data"):
    """Fit every learner on every split; the 3-NN test error of each.

    The breadth table's protocol (:mod:`benchmarks.breadth`): split ``i``
    is the stratified split of seed ``i``
    (:func:`benchmarks.protocol.stratified_split`), ``StandardScaler`` is
    fitted on its training part, each learner is fitted there with
    ``random_state=i``, and scored by scikit-learn's 3-NN classifier on
    the test part under its metric.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    learners : sequence of str or mapping of str to callable
        Names for :func:`learner`, or ``{name: make}`` with
        ``make(random_state)`` an unfitted estimator (None: Euclidean).
    n_splits : int, default=10
    test_size : float, default=0.3
        The test share of each split.
    progress : callable, default=None
        Called with each record as it is made.
    name : str, default='data'
        The ``dataset`` field of the records (the file name, for the report).

    Returns
    -------
    records : list of dict
        One per (split, learner): ``dataset, split, method, error`` (a
        fraction), ``fit_seconds``, the sizes (``n_train, n_test,
        n_features, n_classes``), ``test_size``, and ``failed`` (the
        message) in place of the error when the fit raised.
    """
    makes = (dict(learners) if isinstance(learners, Mapping)
             else {key: learner(key) for key in learners})
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    n_classes = len(np.unique(y))
    records = []
    for split in range(n_splits):
        train, test = stratified_split(y, split, test_size)
        scaler = StandardScaler().fit(X[train])
        parts = scaler.transform(X[train]), y[train], scaler.transform(X[test]), y[test]
        for key, make in makes.items():
            record = dict(dataset=name, split=split, method=key, n_train=len(train),
                          n_test=len(test), n_features=X.shape[1], n_classes=n_classes,
                          test_size=test_size)
            record.update(_measure(make, split, *parts))
            records.append(record)
            if progress is not None:
                progress(record)
    return records


def reference_of(methods):
    """The learner the others are tested against: ours if present, else the first."""
    return next((method for method in methods if method in OURS), methods[0])


def significance(records, reference, alpha=ALPHA):
    """{learner: dict(mean, se, p_holm, verdict)} against ``reference``.

    ``mean`` and ``se``: the learner's error minus the reference's on the
    same splits (points), with the standard error corrected for the
    overlap of the training sets (:func:`benchmarks.results.paired_test`);
    ``p_holm``: its p-value adjusted by Holm over the learners compared.
    """
    name = records[0]["dataset"]
    test_size = records[0].get("test_size", TEST_FRACTION)
    tests = {}
    for method in dict.fromkeys(record["method"] for record in records):
        if method != reference:
            gaps = paired_differences(records, method, reference).get(name, [])
            tests[method] = paired_test(gaps, test_size) + (len(gaps),)
    adjusted = dict(zip(tests, holm([test[2] for test in tests.values()])))
    found = {}
    for method, (mean, se, _, n) in tests.items():
        p = adjusted[method]
        if n == 0:
            verdict = "not tested (no split where both fitted)"
        elif n < 2:
            verdict = "not tested (needs 2 or more splits)"
        elif math.isnan(p):
            verdict = "not tested (the same difference on every split)"
        elif p <= alpha:
            verdict = "significantly %s" % ("better" if mean < 0 else "worse")
        else:
            verdict = "no significant difference"
        found[method] = dict(mean=mean, se=se, p_holm=p, verdict=verdict)
    return found


def _wrap(text):
    """Lines of at most :data:`WIDTH` characters; a number keeps its unit (``5 %``)."""
    return [line.replace("\xa0", " ")
            for line in textwrap.wrap(text.replace(" %", "\xa0%"), WIDTH)]


def _format_p(p):
    return "-" if math.isnan(p) else "< 0.001" if p < 0.001 else "%.3f" % p


def _aligned(header, lines):
    """A markdown table with its columns padded, readable as plain text too."""
    cells = [list(map(str, header))] + [list(map(str, line)) for line in lines]
    widths = [max(len(row[j]) for row in cells) for j in range(len(header))]

    def line(row):
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |"

    return [line(cells[0]), "|" + "|".join("-" * (width + 2) for width in widths) + "|"] + [
        line(row) for row in cells[1:]]


def report(records, alpha=ALPHA):
    """The comparison as lines of text: a header, a markdown table, a legend.

    One row per learner, in the order of the records: the 3-NN test error
    (%, mean ± standard error over the splits), the median fit time, the
    paired difference to the reference (ours if present, else the first
    learner) and its Holm-adjusted p-value and verdict at ``alpha``
    (:func:`significance`).
    """
    first = records[0]
    methods = list(dict.fromkeys(record["method"] for record in records))
    reference = reference_of(methods)
    n_splits = len({record["split"] for record in records})
    test_size = first.get("test_size", TEST_FRACTION)
    train_pct = round(100 * (1 - test_size))
    lines = ["%s: %d points x %d features, %d classes, %d splits." % (
        first["dataset"], first["n_train"] + first["n_test"], first["n_features"],
        first["n_classes"], n_splits)]
    lines += _wrap(
        "Protocol: stratified %d/%d train/test splits (split i seeded i), StandardScaler "
        "fitted on each training part, then the 3-NN classifier under each learned metric "
        "scored on the test part." % (train_pct, 100 - train_pct)) + [""]
    tests = significance(records, reference, alpha)
    rows = []
    for row in summarise(records):
        test = tests.get(row["method"])
        if row["method"] == reference:
            against = ["(reference)", "-", "-"]
        elif test is None or math.isnan(test["mean"]):
            against = ["-", "-", test["verdict"] if test else "-"]
        else:
            # + 0.0: a difference that rounds to zero prints as +0.0, not -0.0.
            against = ["%+.1f" % (round(test["mean"], 1) + 0.0) + (
                "" if math.isnan(test["se"]) else " ± %.1f" % test["se"]),
                _format_p(test["p_holm"]), test["verdict"]]
        error = format_error(row)
        if row["n_failed"] and row["n_splits"]:
            error += " (%d of %d failed)" % (row["n_failed"],
                                             row["n_failed"] + row["n_splits"])
        # The Euclidean metric is not fitted: its records hold 0 s exactly.
        seconds = ("- (no fit)" if row["fit_seconds_median"] == 0
                   else format_seconds(row["fit_seconds_median"]))
        rows.append([row["method"], error, seconds] + against)
    lines += _aligned(["learner", "3-NN test error (%) mean ± s.e.", "fit time (s, median)",
                       "difference to %s (points)" % reference, "p (Holm)", "verdict"], rows)
    lines += [""] + _wrap(
        "Difference: the learner's error minus the error of %s on the same split, mean ± "
        "standard error (negative: the learner errs less). p: paired t-test corrected for "
        "the overlapping training sets (Nadeau and Bengio 2003), Holm-adjusted over the %d "
        "comparison%s; verdicts at %g %%." % (reference, len(tests),
                                              "" if len(tests) == 1 else "s", 100 * alpha))
    failures = {}
    for record in records:
        if record.get("failed"):
            failures.setdefault((record["method"], textwrap.shorten(record["failed"], 160)),
                                []).append(record["split"])
    if failures:
        lines += [""] + ["Failed: %s on split%s %s: %s" % (
            method, "s" if len(splits) > 1 else "", ", ".join(map(str, splits)), message)
            for (method, message), splits in failures.items()]
    return lines


# --------------------------------------------------------------------------
# The plot
# --------------------------------------------------------------------------


def plot(records, path):
    """Write a PNG of every split's 3-NN test error (points) and the means (bars).

    Returns the path, or None (with a line saying why) if matplotlib is
    not installed.
    """
    try:
        import matplotlib
    except ImportError:
        print("plot skipped: matplotlib is not installed (pip install \".[benchmarks]\" "
              "from the repository, or pip install matplotlib)")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(record["method"] for record in records))
    n_splits = len({record["split"] for record in records})
    figure, axes = plt.subplots(figsize=(max(4.0, 1.3 * len(methods) + 1.5), 4.0))
    labelled = False
    for x, method in enumerate(methods):
        errors = 100.0 * np.array([record["error"] for record in records if
                                   record["method"] == method and not record.get("failed")])
        if not len(errors):
            axes.annotate("failed", (x, 0), ha="center", va="bottom", color="C3")
            continue
        # A small spread along x keeps equal errors of different splits visible.
        axes.scatter(x + np.linspace(-0.15, 0.15, len(errors)), errors, s=18, alpha=0.6,
                     color="C0", label=None if labelled else "one split")
        axes.hlines(errors.mean(), x - 0.3, x + 0.3, color="C3", linewidth=2,
                    label=None if labelled else "mean")
        labelled = True
    axes.set_xticks(range(len(methods)), methods, rotation=20)
    axes.set_xlim(-0.6, len(methods) - 0.4)
    axes.set_xlabel("learner")
    axes.set_ylabel("3-NN test error (%)")
    axes.set_title("%s: %d stratified splits" % (records[0]["dataset"], n_splits))
    if labelled:
        axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
