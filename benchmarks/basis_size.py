"""Error and active basis elements against the basis size, on Segment.

The paper's figure: 3-NN test error and number of selected elements as the
basis set grows. Ours global (:class:`metric_learn_scml.SCML_Supervised`)
and, when the package has it, ours local
(:class:`metric_learn_scml.LocalSCML_Supervised`), at default parameters
apart from ``n_basis``, on the global benchmark's Segment splits.
"""

import math
import time
import warnings

import numpy as np

from .compare_global import (DATASETS, DEFAULT_PREPROCESSING, RANDOM_STATE,
                             datasets_splits, knn_error)

COLUMNS = ("dataset", "method", "n_basis", "error_mean", "error_se",
           "n_active_mean", "fit_seconds_median", "n_splits")
N_BASIS = (25, 50, 100, 200, 400, 800, 1600)
QUICK_N_BASIS = (50, 200, 800)
FULL_SPLITS = 3
QUICK_SPLITS = 1


def _models():
    import metric_learn_scml
    models = {"SCML_Supervised (ours)": metric_learn_scml.SCML_Supervised}
    local = getattr(metric_learn_scml, "LocalSCML_Supervised", None)
    if local is not None:
        models["LocalSCML_Supervised (ours)"] = local
    return models


def _fit_and_test(model, X_train, y_train, X_test, y_test):
    """Fit ``model``; return its 3-NN test error, fit seconds and active count.

    A global model is evaluated in its linear embedding, as in the global
    benchmark; a local one (no single embedding) by the package's
    :class:`~metric_learn_scml.MetricKNeighborsClassifier`, where each
    training point's own metric ranks the test points.
    """
    if hasattr(model, "local_weights"):
        from metric_learn_scml import MetricKNeighborsClassifier
        classifier = MetricKNeighborsClassifier(model, n_neighbors=3)
        start = time.perf_counter()
        classifier.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        error = float(np.mean(classifier.predict(X_test) != y_test))
        model = classifier.estimator_
    else:
        start = time.perf_counter()
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        error = knn_error(X_train, y_train, X_test, y_test, model.components_)
    return error, seconds, getattr(model, "n_active_basis_", math.nan)


def run(quick=False, n_splits=None, preprocessing=DEFAULT_PREPROCESSING,
        progress=None):
    """Fit every model at every basis size on Segment splits.

    Returns
    -------
    records : list of dict
        ``dataset, split, method, n_basis, error, fit_seconds, n_active``,
        or ``failed``.
    """
    dataset = DATASETS["segment"]
    X, y = dataset.load()
    y = np.unique(y, return_inverse=True)[1]
    if n_splits is None:
        n_splits = QUICK_SPLITS if quick else FULL_SPLITS
    records = []
    for split, (train, val, test) in enumerate(datasets_splits(y, n_splits, dataset.sizes)):
        X_train, _, X_test = dataset.features(X, train, val, test, preprocessing)
        for name, model_class in _models().items():
            for n_basis in (QUICK_N_BASIS if quick else N_BASIS):
                record = dict(dataset="segment", split=split, method=name,
                              n_basis=n_basis)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        error, seconds, n_active = _fit_and_test(
                            model_class(n_basis=n_basis,
                                        random_state=RANDOM_STATE + split),
                            X_train, y[train], X_test, y[test])
                    record.update(error=error, fit_seconds=seconds, n_active=n_active)
                except Exception as exception:  # reported, not fatal
                    record.update(failed="%s: %s" % (type(exception).__name__,
                                                     exception))
                records.append(record)
                if progress is not None:
                    progress(dict(record, method="%s K=%d" % (name, n_basis)))
    return records


def summarise(records):
    """One row per (method, n_basis): the global summary plus ``n_basis``."""
    from .cli import summarise as summarise_fits
    keyed = [dict(record, method="%s|%d" % (record["method"], record["n_basis"]))
             for record in records]
    rows = []
    for row in summarise_fits(keyed):
        method, n_basis = row["method"].rsplit("|", 1)
        rows.append(dict(row, method=method, n_basis=int(n_basis)))
    return rows


def table(rows):
    from .cli import format_error, format_number, format_seconds, markdown_table
    return markdown_table(
        ["method", "n_basis", "3-NN test error (%)", "active basis",
         "fit time (s)", "splits"],
        [[row["method"], row["n_basis"], format_error(row),
          format_number(row["n_active_mean"], 0),
          format_seconds(row["fit_seconds_median"]), row["n_splits"]]
         for row in rows])
