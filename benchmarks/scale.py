"""Fit time and peak memory against the number of points (issue 14).

Data: :func:`synthetic`, 10 classes of 50 features from scikit-learn's
``make_classification`` (10 informative, 10 redundant, 30 noise features),
standardised on the training part; 2,000 further points are held out for
the 3-NN error of the learned metric and of the Euclidean distance.

Every fit runs in a fresh Python process (:func:`main` with ``--one
METHOD N``), one at a time, with BLAS and OpenMP on one thread. It
reports the fit's wall time and the process's peak resident set size
(:func:`benchmarks.memory.max_rss_mib`, read right after the fit: the interpreter,
the libraries, the data and everything the fit added). A method whose fit
passes ``--time-cap`` seconds is stopped there and not run on larger data;
a fit that passes ``--max-memory-gib`` of address space fails with a
MemoryError instead of pressing the machine.

Methods (:data:`METHODS`): ``ours``, :class:`metric_learn_scml.SCML_Supervised`
at its defaults, and ``metric-learn``, metric-learn's ``SCML_Supervised`` at
its defaults. ``--param KEY=VALUE`` passes a parameter to ours (for example
``--param solver=rda``); it is recorded in the rows, so runs with different
parameters can share a CSV.

``python -m benchmarks scale --profile N`` fits ours once on ``N`` points
in this process under cProfile and prints where the time goes
(:func:`profile`).

Output: a markdown table on stdout, ``scale.csv`` and a log-log plot
``scale.png`` (matplotlib, the ``benchmarks`` extra) in ``--out``
(``benchmarks/results`` by default).

``python -m benchmarks scale --partial-fit 50000`` compares ``partial_fit``
over 10 equal batches (with its memory of earlier points, and without)
with ``fit`` on all the points and with the Euclidean metric (issue 29),
on :func:`partial_fit_data` (:func:`partial_fit_rows`; about a minute for
50,000 points, several minutes for 200,000).

``python -m benchmarks scale --real letters magic`` measures the same on
the largest real data reachable offline instead, the KEEL datasets of the
breadth table (:func:`real`): all their points, a stratified 80 % to fit
and 20 % for the 3-NN error, standardised on the fitted part; it writes
``scale_real.csv``.
"""

import argparse
import ast
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from .memory import max_rss_mib
from .protocol import knn_error, n_active
from .results import RESULTS_DIR, markdown_table, write_csv as write_table

COLUMNS = ("data", "method", "n_samples", "n_features", "params", "status",
           "fit_seconds", "peak_rss_mib", "rss_before_fit_mib", "n_active",
           "error", "euclidean_error")
SIZES = (10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
N_FEATURES = 50
N_CLASSES = 10
N_TEST = 2000
TIME_CAP = 900.0
MAX_MEMORY_GIB = 16.0


def synthetic(n_samples, random_state=0):
    """``n_samples`` training and :data:`N_TEST` test points, standardised.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
    """
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(
        n_samples + N_TEST, N_FEATURES, n_informative=10, n_redundant=10,
        n_classes=N_CLASSES, random_state=random_state)
    scaler = StandardScaler().fit(X[:n_samples])
    return (scaler.transform(X[:n_samples]), y[:n_samples],
            scaler.transform(X[n_samples:]), y[n_samples:])


REAL_DATASETS = ("letters", "magic")


def real(name):
    """All the points of a KEEL dataset: a stratified 80 % to fit, 20 % to
    test, standardised on the former.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
    """
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    import numpy as np

    from .data.sources import load_keel

    X, labels = load_keel(name)
    # integer classes: metric-learn's SCML_Supervised refuses strings
    y = np.unique(labels, return_inverse=True)[1]
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), y_train, scaler.transform(X_test), y_test


PARTIAL_FIT_TEST = 5000


def partial_fit_data(n_samples):
    """Issue 29's data: ``n_samples`` training points, then
    :data:`PARTIAL_FIT_TEST` test points, of one ``make_classification``
    draw (10 classes of 2 clusters, 20 informative features of 50),
    standardised together.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
    """
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(
        n_samples + PARTIAL_FIT_TEST, N_FEATURES, n_informative=20,
        n_redundant=0, n_classes=N_CLASSES, n_clusters_per_class=2,
        class_sep=1.0, random_state=0)
    X = StandardScaler().fit_transform(X)
    return X[:n_samples], y[:n_samples], X[n_samples:], y[n_samples:]


def partial_fit_rows(n_samples, n_batches=10, params=None):
    """3-NN test error of ``partial_fit`` over ``n_batches`` equal batches
    in order (at its defaults, and with ``partial_fit_memory=0``: each
    batch alone), of ``fit`` on all the points and of the Euclidean
    metric, on :func:`partial_fit_data`, in this process on one thread.

    Returns
    -------
    rows : list of dict
        ``method``, ``n_samples``, ``fit_seconds``, ``beta``, ``n_active``
        and ``error`` (a fraction).
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    X, y, X_test, y_test = partial_fit_data(n_samples)
    rows = []
    with threadpool_limits(limits=1):
        for method in ("partial_fit", "partial_fit, no memory", "fit"):
            estimator = _ours(dict(params or {}, **(
                dict(partial_fit_memory=0) if "no memory" in method else {})))
            start = time.perf_counter()
            if method == "fit":
                estimator.fit(X, y)
            else:
                for batch in np.array_split(np.arange(n_samples), n_batches):
                    estimator.partial_fit(X[batch], y[batch])
            seconds = time.perf_counter() - start
            rows.append(dict(
                method=method, n_samples=n_samples, fit_seconds=seconds,
                beta=estimator.beta_, n_active=n_active(estimator),
                error=knn_error(estimator.transform(X), y,
                                estimator.transform(X_test), y_test)))
        rows.append(dict(method="Euclidean", n_samples=n_samples,
                         error=knn_error(X, y, X_test, y_test)))
    return rows


def partial_fit_table(rows, n_batches=10):
    """Markdown table of :func:`partial_fit_rows`."""
    return markdown_table(
        ["points", "method", "3-NN error (%)", "time (s)", "beta", "active"],
        [["{:,}".format(row["n_samples"]),
          row["method"] + (" (%d batches)" % n_batches
                           if row["method"].startswith("partial_fit") else ""),
          _cell(row["error"], "%.1f", 100), _cell(row.get("fit_seconds"), "%.1f"),
          _cell(row.get("beta"), "%.3g"), _cell(row.get("n_active"), "%.0f")]
         for row in rows])


def _ours(params):
    from metric_learn_scml import SCML_Supervised
    unknown = set(params) - set(SCML_Supervised().get_params())
    if unknown:
        raise SystemExit("SCML_Supervised has no parameter %s (yet)."
                         % ", ".join(sorted(unknown)))
    return SCML_Supervised(**dict(dict(random_state=0), **params))


def _metric_learn(params):
    import metric_learn_scml  # noqa: F401  (lets metric-learn run on new scikit-learn)
    from metric_learn import SCML_Supervised
    return SCML_Supervised(random_state=0, **params)


# name: (estimator factory taking the --param dict, whether it takes them)
METHODS = {"ours": (_ours, True), "metric-learn": (_metric_learn, False)}


def measure_here(method, n_samples, params=None, max_memory_gib=None,
                 data=None):
    """Fit ``method`` on :func:`synthetic` data (or on the :func:`real`
    dataset ``data``, all its points) in this process; one row."""
    from threadpoolctl import threadpool_limits

    params = dict(params or {})
    if max_memory_gib:
        limit = int(max_memory_gib * 1024 ** 3)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    X, y, X_test, y_test = synthetic(n_samples) if data is None else real(data)
    factory, _ = METHODS[method]
    estimator = factory(params)
    before = max_rss_mib()
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
        peak = max_rss_mib()
        error = knn_error(estimator.transform(X), y, estimator.transform(X_test), y_test)
        euclidean = knn_error(X, y, X_test, y_test)
    return dict(data=data or "synthetic", method=method, n_samples=X.shape[0],
                n_features=X.shape[1],
                params=json.dumps(params, sort_keys=True), status="ok",
                fit_seconds=seconds, peak_rss_mib=peak,
                rss_before_fit_mib=before, n_active=n_active(estimator), error=error,
                euclidean_error=euclidean)


def _one_process(method, n_samples, params, time_cap, max_memory_gib, data=None):
    """:func:`measure_here` in a fresh process, stopped at ``time_cap``."""
    options = ["--one", method, str(n_samples), "--max-memory-gib", str(max_memory_gib)]
    options += [] if data is None else ["--data", data]
    options += ["--param=%s=%r" % item for item in params.items()]
    # A one-line probe, so that the process imports only this module's needs.
    command = [sys.executable, "-c", "import sys; from benchmarks.scale import main; "
               "sys.exit(main(%r))" % (options,)]
    environment = dict(os.environ, OMP_NUM_THREADS="1",
                       OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                       NUMBA_NUM_THREADS="1")
    row = dict(data=data or "synthetic", method=method, n_samples=n_samples,
               n_features=N_FEATURES, params=json.dumps(params, sort_keys=True))
    process = subprocess.Popen(
        command, cwd=Path(__file__).resolve().parents[1], env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate(timeout=time_cap)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return dict(row, status="time cap", fit_seconds=time_cap)
    if process.returncode != 0:
        last = (stderr.strip().splitlines() or ["exit %d" % process.returncode])[-1]
        status = "memory cap" if "MemoryError" in last else "failed: " + last[:200]
        return dict(row, status=status)
    return json.loads(stdout.strip().splitlines()[-1])


def run(sizes=SIZES, methods=tuple(METHODS), params=None, time_cap=TIME_CAP,
        max_memory_gib=MAX_MEMORY_GIB, progress=None):
    """Every method at every size, smallest first, each in its own process.

    A method that reaches the time cap, or fails, is not run on larger
    sizes (those rows say ``skipped``). ``params`` go to the methods that
    take them (:data:`METHODS`).

    Returns
    -------
    rows : list of dict, with the keys of :data:`COLUMNS`
    """
    params = dict(params or {})
    rows = []
    for method in methods:
        stopped = None
        for n_samples in sorted(sizes):
            given = params if METHODS[method][1] else {}
            if stopped:
                row = dict(data="synthetic", method=method, n_samples=n_samples,
                           n_features=N_FEATURES, status="skipped (%s)" % stopped,
                           params=json.dumps(given, sort_keys=True))
            else:
                row = _one_process(method, n_samples, given, time_cap,
                                   max_memory_gib)
                if row["status"] != "ok":
                    stopped = "%s at %d" % (row["status"], n_samples)
            rows.append(row)
            if progress is not None:
                progress(row)
    return rows


def run_real(names=REAL_DATASETS, methods=tuple(METHODS), params=None,
             time_cap=TIME_CAP, max_memory_gib=MAX_MEMORY_GIB, progress=None):
    """Every method on all the points of each :func:`real` dataset, each in
    its own process. Rows as :func:`run`'s, ``data`` naming the dataset."""
    params = dict(params or {})
    rows = []
    for name in names:
        for method in methods:
            given = params if METHODS[method][1] else {}
            row = _one_process(method, 0, given, time_cap, max_memory_gib, name)
            rows.append(row)
            if progress is not None:
                progress(row)
    return rows


def _cell(value, pattern, scale=1):
    missing = value in (None, "") or value != value
    return "-" if missing else pattern % (scale * float(value))


def table(rows):
    """Markdown table of :func:`run` rows, with each size's time ratio."""
    lines, previous = [], {}
    for row in rows:
        seconds = row.get("fit_seconds") if row.get("status") == "ok" else None
        # the time ratio is between sizes of the synthetic data
        last = (previous.get(row["method"])
                if row.get("data", "synthetic") == "synthetic" else None)
        lines.append([
            row.get("data", "synthetic"),
            row["method"] + ("" if row.get("params") in (None, "{}") else " " + row["params"]),
            "{:,}".format(int(row["n_samples"])) if row["n_samples"] else "all",
            _cell(seconds, "%.1f"),
            _cell(seconds / last if seconds and last else None, "%.2f"),
            _cell(row.get("peak_rss_mib"), "%.0f"), _cell(row.get("n_active"), "%.0f"),
            _cell(row.get("error"), "%.1f", 100),
            _cell(row.get("euclidean_error"), "%.1f", 100), row.get("status", "")])
        if seconds and row.get("data", "synthetic") == "synthetic":
            previous[row["method"]] = seconds
    return markdown_table(["data", "method", "points", "fit (s)", "x time", "peak RSS (MiB)",
                           "active", "3-NN error (%)", "Euclidean (%)", "status"], lines)


def write_csv(path, rows):
    """``scale.csv``: the rows, in :data:`COLUMNS`."""
    write_table(path, rows, COLUMNS, extra=False)


def plot(rows, path):
    """Log-log fit time and peak memory against points; False without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    series = {}
    for row in rows:
        if row.get("status") == "ok":
            label = row["method"] + ("" if row.get("params") in (None, "{}")
                                     else " " + row["params"])
            series.setdefault(label, []).append(row)
    for label, points in series.items():
        n = [float(row["n_samples"]) for row in points]
        axes[0].plot(n, [float(row["fit_seconds"]) for row in points], "o-",
                     label=label)
        axes[1].plot(n, [float(row["peak_rss_mib"]) for row in points], "o-",
                     label=label)
    if series:
        smallest = min(float(row["n_samples"]) for points in series.values()
                       for row in points)
        first = min(series.values(), key=lambda p: float(p[0]["n_samples"]))[0]
        n = sorted({float(row["n_samples"]) for row in rows})
        axes[0].plot(n, [float(first["fit_seconds"]) * x / smallest for x in n],
                     ":", color="grey", label="linear")
    for axis, name in zip(axes, ("fit time (s)", "peak RSS (MiB)")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("training points")
        axis.set_ylabel(name)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize="small")
    figure.suptitle("%d classes, %d features, one thread" % (N_CLASSES,
                                                               N_FEATURES))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


# Parts of a fit, by the functions cProfile sees (found by name, so they
# survive the modules moving); each is the time inside that function,
# every call included.
PROFILE_PARTS = (
    ("neighbour search for triplets", ("triplets_from_labels",)),
    ("k-means of the basis regions", ("region_centres",)),
    ("basis (Fisher analysis, k-means included)", ("lda_basis",)),
    ("objective evaluations", ("objective",)),
    ("RDA (its objective evaluations included)", ("rda",)),
    ("exact phase", ("exact_phase",)),
    ("beta='auto' (all its own parts)", ("select_beta",)),
)


def profile(n_samples, params=None, stream=None):
    """Fit ours on ``n_samples`` points under cProfile; the time of each part.

    Returns
    -------
    parts : list of (name, seconds)
        The whole fit first, then :data:`PROFILE_PARTS`. The parts overlap
        where one calls another, as their names say.
    """
    import cProfile
    import pstats

    from threadpoolctl import threadpool_limits

    X, y, _, _ = synthetic(n_samples)
    estimator = _ours(dict(params or {}))
    profiler = cProfile.Profile()
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        profiler.runcall(estimator.fit, X, y)
        total = time.perf_counter() - start
    stats = pstats.Stats(profiler).stats
    parts = [("whole fit", total)]
    for name, functions in PROFILE_PARTS:
        seconds = sum(entry[3] for (_, _, function), entry in stats.items()
                      if function in functions)
        parts.append((name, seconds))
    if stream is not None:
        print("| part (%s points) | seconds |\n|---|---|" % "{:,}".format(
            n_samples), file=stream)
        for name, seconds in parts:
            print("| %s | %.1f |" % (name, seconds), file=stream)
    return parts


def _parameter(text):
    key, _, value = text.partition("=")
    if not key or not _:
        raise argparse.ArgumentTypeError("expected KEY=VALUE, got %r" % text)
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks scale",
        description="Fit time and peak memory of SCML_Supervised against the "
                    "number of points, ours and metric-learn's.")
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--methods", nargs="+", choices=sorted(METHODS),
                        default=list(METHODS))
    parser.add_argument("--param", action="append", type=_parameter,
                        default=[], metavar="KEY=VALUE",
                        help="a parameter of ours (Python literal or string)")
    parser.add_argument("--time-cap", type=float, default=TIME_CAP,
                        help="seconds a fit may take (default %(default)s)")
    parser.add_argument("--max-memory-gib", type=float, default=MAX_MEMORY_GIB,
                        help="address space a fit may use (default %(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR,
                        help="folder for scale.csv and scale.png")
    parser.add_argument("--profile", type=int, metavar="N",
                        help="profile one fit of ours on N points instead")
    parser.add_argument("--real", nargs="*", metavar="NAME",
                        help="all the points of these KEEL datasets instead of "
                             "synthetic data (none given: %s); writes "
                             "scale_real.csv" % " ".join(REAL_DATASETS))
    parser.add_argument("--partial-fit", nargs="+", type=int, metavar="N",
                        help="partial_fit over --batches equal batches against "
                             "fit and Euclidean on N points of issue 29's data "
                             "instead (50000 takes about a minute, 200000 "
                             "several)")
    parser.add_argument("--batches", type=int, default=10,
                        help="batches of --partial-fit (default %(default)s)")
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "N"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.sizes) < 1:
        parser.error("--sizes must be positive numbers of points, got %s" % args.sizes)
    return args


def main(argv=None):
    args = parse_args(argv)
    params = dict(args.param)
    if args.one:
        print(json.dumps(measure_here(args.one[0], int(args.one[1]), params,
                                      args.max_memory_gib, args.data)))
        return 0
    if args.profile:
        profile(args.profile, params, stream=sys.stdout)
        return 0
    if args.partial_fit:
        rows = [row for n_samples in args.partial_fit
                for row in partial_fit_rows(n_samples, args.batches, params)]
        print("\n".join(partial_fit_table(rows, args.batches)))
        return 0

    def progress(row):
        print("%s %s: %s %s" % (row["method"], row["n_samples"], row["status"],
                                _cell(row.get("fit_seconds"), "%.1f s")),
              file=sys.stderr, flush=True)

    if args.real is not None:
        rows = run_real(args.real or REAL_DATASETS, args.methods, params,
                        args.time_cap, args.max_memory_gib, progress)
        print("\n".join(table(rows)))
        write_csv(args.out / "scale_real.csv", rows)
        return 0
    rows = run(args.sizes, args.methods, params, args.time_cap,
               args.max_memory_gib, progress)
    print("\n".join(table(rows)))
    write_csv(args.out / "scale.csv", rows)
    if plot(rows, args.out / "scale.png"):
        print("\nplot: %s" % (args.out / "scale.png"))
    return 0
