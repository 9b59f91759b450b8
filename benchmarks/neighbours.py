"""Mining triplets: the package's neighbour search against scikit-learn's choice.

The supervised learners mine their triplets by exact neighbour search
(``triplets_from_labels``). Left to itself (``algorithm='auto'``),
scikit-learn searches a k-d tree up to 15 features, whose cost grows
quickly with the features; the package compares every pair instead
(``'brute'``) on searches among 5,000 points or more over more than 8
features (``metric_learn_scml._arrays.search_algorithm``). This table
times ``triplets_from_labels`` (one thread, CPU seconds) both ways on
generated data, ``make_classification(n, d, n_classes=5, random_state=0)``
with ``max(4, d // 2)`` informative and ``d // 4`` redundant features
(fewer if ``d`` is small), standardised, and
checks that both give the same triplets (data without repeated points
have no ties to order).
"""

import time
from unittest import mock

import numpy as np
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from metric_learn_scml import triplets_from_labels
from metric_learn_scml import _arrays

SIZES = (20_000, 100_000)
QUICK_SIZES = (20_000,)
FEATURES = (4, 8, 10, 12, 15)
COLUMNS = ("n_samples", "n_features", "package_algorithm", "package_s", "sklearn_auto_s",
           "same_triplets")


def generated(n_samples, n_features):
    """The table's data: ``n_samples`` points on ``n_features`` features."""
    informative = max(4, n_features // 2)
    X, y = make_classification(n_samples, n_features, n_informative=informative,
                               n_redundant=min(n_features // 4, n_features - informative),
                               n_classes=5, random_state=0)
    return StandardScaler().fit_transform(X), y


def _mined(X, y):
    start = time.process_time()
    with threadpool_limits(limits=1):
        triplets = triplets_from_labels(X, y, random_state=0)
    return triplets, time.process_time() - start


def measure(n_samples, n_features):
    """One row of :data:`COLUMNS`."""
    X, y = generated(n_samples, n_features)
    ours, ours_s = _mined(X, y)
    with mock.patch.object(_arrays, "search_algorithm", lambda points: "auto"):
        theirs, theirs_s = _mined(X, y)
    return dict(n_samples=n_samples, n_features=n_features,
                package_algorithm=_arrays.search_algorithm(X), package_s=ours_s,
                sklearn_auto_s=theirs_s, same_triplets=bool(np.array_equal(ours, theirs)))


def run(sizes=SIZES, features=FEATURES, progress=None):
    """:func:`measure` every size and number of features."""
    rows = []
    for n_samples in sizes:
        for n_features in features:
            rows.append(measure(n_samples, n_features))
            if progress is not None:
                progress("%d points, %d features: %.2f s (scikit-learn's choice %.2f s)" % (
                    n_samples, n_features, rows[-1]["package_s"], rows[-1]["sklearn_auto_s"]))
    return rows


def table(rows):
    """The rows as a labelled text table."""
    header = ("points", "features", "package's search", "mining, package (s)",
              "mining, scikit-learn's choice (s)", "scikit-learn's / package's",
              "same triplets")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| %s | %d | %s | %.2f | %.2f | %.1fx | %s |" % (
            "{:,}".format(row["n_samples"]), row["n_features"], row["package_algorithm"],
            row["package_s"], row["sklearn_auto_s"], row["sklearn_auto_s"] / row["package_s"],
            "yes" if row["same_triplets"] else "no"))
    return "\n".join(lines)
