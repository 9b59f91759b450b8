"""Defaults on the datasets scikit-learn ships: no download, one minute.

For each of iris, wine, breast cancer and digits: stratified 70/30 splits,
features standardised on the training part, then 3-NN test error under the
Euclidean metric, :class:`~metric_learn_scml.SCML_Supervised` and
:class:`~metric_learn_scml.LocalSCML_Supervised`, all at their default
parameters (``random_state=0``), through
:class:`~metric_learn_scml.MetricKNeighborsClassifier`. It shows what a user
gets without tuning, on data none of the defaults were chosen on; warnings
raised during the fits are counted.

Run ``python -m benchmarks.shipped [--splits N]``.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn import datasets
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from metric_learn_scml import (LocalSCML_Supervised, MetricKNeighborsClassifier,
                               SCML_Supervised)

DATASETS = {"iris": datasets.load_iris, "wine": datasets.load_wine,
            "breast_cancer": datasets.load_breast_cancer,
            "digits": datasets.load_digits}
METHODS = {
    "Euclidean": lambda: KNeighborsClassifier(n_neighbors=3),
    "SCML_Supervised": lambda: MetricKNeighborsClassifier(
        SCML_Supervised(random_state=0)),
    "LocalSCML_Supervised": lambda: MetricKNeighborsClassifier(
        LocalSCML_Supervised(random_state=0)),
}
COLUMNS = ("dataset", "method", "error_mean", "error_se", "fit_seconds_median",
           "n_warnings", "n_splits")


def run(n_splits=5, names=tuple(DATASETS)):
    """Rows of :data:`COLUMNS` (errors in percent), printed as a table."""
    rows = []
    print("%-14s %-21s %15s %9s %9s" % ("dataset", "method", "3-NN error (%)",
                                          "fit (s)", "warnings"))
    for name in names:
        X, y = DATASETS[name](return_X_y=True)
        for method, make in METHODS.items():
            errors, seconds, n_warnings = [], [], 0
            for seed in range(n_splits):
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=0.3, stratify=y, random_state=seed)
                model = make_pipeline(StandardScaler(), make())
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    start = time.perf_counter()
                    model.fit(X_train, y_train)
                    seconds.append(time.perf_counter() - start)
                n_warnings += len(caught)
                errors.append(100 * (1 - model.score(X_test, y_test)))
            row = dict(dataset=name, method=method,
                       error_mean=float(np.mean(errors)),
                       error_se=float(np.std(errors) / np.sqrt(n_splits)),
                       fit_seconds_median=float(np.median(seconds)),
                       n_warnings=n_warnings, n_splits=n_splits)
            rows.append(row)
            print("%-14s %-21s %7.2f +- %4.2f %9.2f %9d" % (
                name, method, row["error_mean"], row["error_se"],
                row["fit_seconds_median"], n_warnings), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.shipped",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        choices=list(DATASETS))
    args = parser.parse_args(argv)
    run(args.splits, tuple(args.datasets))


if __name__ == "__main__":
    main()
