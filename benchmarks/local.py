"""SCML-Local against SCML-Global on real data (the paper's local table).

Protocol of Shi, Bellet and Sha (AAAI 2014, sections "Experiments" and
"Local Metric Learning"), as in :mod:`benchmarks.compare_global`: seeded
stratified train/validation/test splits (60/20/20, Letters
3,000/1,000/1,000), the global table's preprocessing (min-max scaling
with training statistics; see ``benchmarks/results/README.md``),
hyper-parameters chosen on the validation split by
3-NN error, 3-NN test error (``MetricKNeighborsClassifier``), mean and
standard error over splits.

- ``SCML-Global``: :class:`SCML_Supervised`, ``beta`` from
  :data:`GLOBAL_BETA_GRID`;
- ``SCML-Local``: :class:`LocalSCML_Supervised`, ``beta`` from
  :data:`LOCAL_BETA_GRID` and the embedding dimension :math:`D'` from
  :data:`EMBEDDING_DIMS` (the paper's 40, or 100 on Letters, and half of
  it).

``fit_seconds`` is the fit at the chosen values (the local one includes its
global stage and kernel PCA). The paper's numbers are in :data:`PAPER`.
Besides the table, :func:`pairwise_seconds` times ``pairwise_distances`` of
1,000 Letters queries against 3,000 training points.

Run it through ``python -m benchmarks local``, or
``python -m benchmarks.local [--quick] [--splits N] [--datasets ...]``; the
default datasets are the paper's four UCI sets, and
:data:`EXTRA_DATASET_KEYS` (the digit and text stand-ins) run on request.
"""

import argparse
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from .cli import markdown_table, summarise
from .compare_global import (DATASETS, DEFAULT_PREPROCESSING, RANDOM_STATE,
                             Split, _fitted, _tuned, datasets_splits)

DATASET_KEYS = ("vehicle", "vowel", "segment", "letters")
# Run on request (``--datasets``): the stand-ins for USPS (the paper's D'
# was 100) and BBC (40), where the global table has LMNN to compare with.
EXTRA_DATASET_KEYS = ("mfeat_pix", "mnist5k", "newsgroups")
# The global table's preprocessing (min-max on these sets, chosen by the
# Euclidean column of the paper), so the two tables compare.
PREPROCESSING = DEFAULT_PREPROCESSING
GLOBAL_BETA_GRID = (1e-6, 1e-5, 1e-4, 1e-3)
LOCAL_BETA_GRID = (1e-6, 1e-5, 1e-4)
# The paper's D' per dataset; the grid adds half of it.
PAPER_EMBEDDING_DIM = {"vehicle": 40, "vowel": 40, "segment": 40,
                       "letters": 100, "mfeat_pix": 100, "mnist5k": 100,
                       "newsgroups": 40}
QUICK_SPLITS = 2
FULL_SPLITS = 20

# 3-NN test error (%) of the paper (Tables 2 and 4).
PAPER = {"SCML-Global": {"vehicle": 21.3, "vowel": 10.9, "segment": 4.1,
                         "letters": 9.0},
         "SCML-Local": {"vehicle": 18.0, "vowel": 6.1, "segment": 3.6,
                        "letters": 8.3}}


def embedding_dims(dataset):
    """:math:`D'` values tried on ``dataset``: the paper's and half of it."""
    paper = PAPER_EMBEDDING_DIM[dataset]
    return (paper // 2, paper)


def _classifier(learner):
    from metric_learn_scml import MetricKNeighborsClassifier
    return MetricKNeighborsClassifier(learner, n_neighbors=3)


def _n_active(classifier):
    return classifier.estimator_.n_active_basis_


def _run_global(split, seed, dataset):
    from metric_learn_scml import SCML_Supervised
    return _tuned(lambda beta: _fitted(_classifier(SCML_Supervised(
        beta=beta, random_state=seed)), split), GLOBAL_BETA_GRID, split,
        n_active=_n_active, knn=False)


def _run_local(split, seed, dataset):
    from metric_learn_scml import LocalSCML_Supervised
    grid = [(beta, dim) for beta in LOCAL_BETA_GRID
            for dim in embedding_dims(dataset)]
    return _tuned(lambda value: _fitted(_classifier(LocalSCML_Supervised(
        beta=value[0], embedding_dim=value[1], random_state=seed)), split),
        grid, split, n_active=_n_active, knn=False)


METHODS = {"SCML-Global": _run_global, "SCML-Local": _run_local}


def run(quick=False, n_splits=None, datasets=None, progress=None):
    """Run the local table.

    Parameters
    ----------
    quick : bool, default=False
        Two splits (unless ``n_splits`` is given).
    n_splits : int, default=None
        Splits per dataset (20 by default, the paper's count).
    datasets : list of str, default=None
        Keys of :data:`DATASET_KEYS` (the default) and
        :data:`EXTRA_DATASET_KEYS`.
    progress : callable, default=None
        Called with one dict per tuned fit.

    Returns
    -------
    rows : list of dict
        One per (dataset, method): ``dataset, method, error_mean, error_se``
        (percent), ``fit_seconds_median, n_active_mean, n_splits`` and the
        summary columns of :func:`benchmarks.cli.summarise`. The table is
        printed.
    """
    if n_splits is None:
        n_splits = QUICK_SPLITS if quick else FULL_SPLITS
    keys = list(DATASET_KEYS if datasets is None else datasets)
    unknown = sorted(set(keys) - set(DATASET_KEYS + EXTRA_DATASET_KEYS))
    if unknown:
        raise ValueError("unknown datasets %s: choose from %s" % (
            unknown, list(DATASET_KEYS + EXTRA_DATASET_KEYS)))
    records = []
    for key in keys:
        dataset = DATASETS[key]
        X, y = dataset.load()
        for number, (train, val, test) in enumerate(datasets_splits(
                y, n_splits, dataset.sizes)):
            parts = dataset.features(X, train, val, test, PREPROCESSING)
            split = Split(parts[0], y[train], parts[1], y[val], parts[2],
                          y[test])
            for method, run_method in METHODS.items():
                with threadpool_limits(limits=1):
                    outcome = run_method(split, RANDOM_STATE + number, key)
                record = dict(dataset=key, split=number, method=method,
                              error=outcome.error,
                              fit_seconds=outcome.fit_seconds,
                              tune_seconds=outcome.tune_seconds,
                              n_active=outcome.n_active,
                              chosen=outcome.chosen)
                records.append(record)
                if progress is not None:
                    progress(record)
    rows = summarise(records)
    print("\n".join(table(rows)))
    return rows


def table(rows):
    """Markdown lines: errors (ours and the paper's), fit times and ratios."""
    seconds = {(row["dataset"], row["method"]): row["fit_seconds_median"]
               for row in rows}
    lines = []
    for row in rows:
        key = row["dataset"], "SCML-Global"
        ratio = (seconds[row["dataset"], row["method"]] / seconds[key]
                 if key in seconds else np.nan)
        lines.append([
            row["dataset"], row["method"],
            "%.1f +- %.1f" % (row["error_mean"], row["error_se"]),
            "%.1f" % PAPER[row["method"]][row["dataset"]]
            if row["dataset"] in PAPER[row["method"]] else "-",
            "%.2f" % row["fit_seconds_median"], "%.1fx" % ratio,
            "%.0f" % row["n_active_mean"], row["n_splits"], row["chosen"]])
    return markdown_table(
        ["dataset", "method", "3-NN error % (ours)", "paper", "fit s (median)",
         "fit / global", "active basis", "splits", "chosen (beta,D')"], lines)


def pairwise_seconds(repeats=3):
    """Best time of ``pairwise_distances`` of Letters queries to training points.

    A SCML-Local model is fitted on the 3,000 training points of the first
    Letters split (the paper's size); the time covers the embedding of its
    1,000 test points, their weights and the distances.

    Returns
    -------
    seconds : float
    n_active : int
        Active basis elements of the model.
    """
    from metric_learn_scml import LocalSCML_Supervised
    dataset = DATASETS["letters"]
    X, y = dataset.load()
    train, val, test = next(datasets_splits(y, 1, dataset.sizes))
    X_train, _, X_test = dataset.features(X, train, val, test, PREPROCESSING)
    with threadpool_limits(limits=1):
        model = LocalSCML_Supervised(
            embedding_dim=PAPER_EMBEDDING_DIM["letters"],
            random_state=RANDOM_STATE).fit(X_train, y[train])
        best = np.inf
        for _ in range(repeats):
            start = time.perf_counter()
            model.pairwise_distances(X_test, X_train)
            best = min(best, time.perf_counter() - start)
    return best, model.n_active_basis_


def fit_time_ratios(datasets=DATASET_KEYS, repeats=3):
    """Local over global fit time at the default parameters, per dataset.

    On the first split of each dataset, ``SCML_Supervised()`` and
    ``LocalSCML_Supervised(embedding_dim=<paper's D'>)`` (the same ``beta``)
    are fitted alternately ``repeats`` times, so that both see the same
    load of the machine; the ratio of the median times is returned.

    Returns
    -------
    ratios : dict of str to (float, float, float)
        ``(global seconds, local seconds, ratio)`` per dataset.
    """
    from metric_learn_scml import LocalSCML_Supervised, SCML_Supervised
    ratios = {}
    for key in datasets:
        dataset = DATASETS[key]
        X, y = dataset.load()
        train, val, test = next(datasets_splits(y, 1, dataset.sizes))
        X_train = dataset.features(X, train, val, test, PREPROCESSING)[0]
        times = {"global": [], "local": []}
        for _ in range(repeats):
            for name, learner in (
                    ("global", SCML_Supervised(random_state=RANDOM_STATE)),
                    ("local", LocalSCML_Supervised(
                        embedding_dim=PAPER_EMBEDDING_DIM[key],
                        random_state=RANDOM_STATE))):
                with threadpool_limits(limits=1):
                    times[name].append(_fitted(learner, Split(
                        X_train, y[train], None, None, None, None))[1])
        global_seconds, local_seconds = (np.median(times["global"]),
                                         np.median(times["local"]))
        ratios[key] = (global_seconds, local_seconds,
                       local_seconds / global_seconds)
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--splits", type=int, default=None)
    parser.add_argument("--datasets", nargs="+", default=None)
    args = parser.parse_args(argv)

    def report(record):
        print("%(dataset)s split %(split)d %(method)s: error %(error).3f, "
              "fit %(fit_seconds).2f s, chosen %(chosen)s" % record,
              file=sys.stderr, flush=True)
    run(quick=args.quick, n_splits=args.splits, datasets=args.datasets,
        progress=report)
    print("\nFit time at the default parameters (median of 3, alternated):")
    for key, (global_seconds, local_seconds, ratio) in fit_time_ratios(
            args.datasets or DATASET_KEYS).items():
        print("  %-8s global %.2f s, local %.2f s, ratio %.1fx" % (
            key, global_seconds, local_seconds, ratio))
    seconds, n_active = pairwise_seconds()
    print("\npairwise_distances, 1,000 Letters queries x 3,000 training "
          "points (%d active elements): %.3f s" % (n_active, seconds))


if __name__ == "__main__":
    main()
