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
FULL_SPLITS = 5
QUICK_SPLITS = 1


def _models():
    import metric_learn_scml
    models = {"SCML_Supervised (ours)": metric_learn_scml.SCML_Supervised}
    local = getattr(metric_learn_scml, "LocalSCML_Supervised", None)
    if local is not None:
        models["LocalSCML_Supervised (ours)"] = local
    return models


def _test_error(model, split_data):
    X_train, y_train, X_test, y_test = split_data
    if hasattr(model, "predict_knn"):
        return float(np.mean(model.predict_knn(X_test) != y_test))
    try:
        components = model.components_
    except AttributeError:
        # A local metric has no single linear map: use its own 3-NN.
        from metric_learn_scml import KNeighborsClassifier
        predicted = KNeighborsClassifier(model, n_neighbors=3).fit(
            X_train, y_train).predict(X_test)
        return float(np.mean(predicted != y_test))
    return knn_error(X_train, y_train, X_test, y_test, components)


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
        split_data = (X_train, y[train], X_test, y[test])
        for name, model_class in _models().items():
            for n_basis in (QUICK_N_BASIS if quick else N_BASIS):
                record = dict(dataset="segment", split=split, method=name,
                              n_basis=n_basis)
                start = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = model_class(n_basis=n_basis,
                                            random_state=RANDOM_STATE + split)
                        model.fit(X_train, y[train])
                    seconds = time.perf_counter() - start
                    record.update(error=_test_error(model, split_data),
                                  fit_seconds=seconds,
                                  n_active=getattr(model, "n_active_basis_", math.nan))
                except Exception as error:  # reported, not fatal
                    record.update(failed="%s: %s" % (type(error).__name__, error))
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
