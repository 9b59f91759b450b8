"""dask-ml's Incremental and ParallelPostFit on a two-worker LocalCluster.

Needs the ``dask`` extra (``pip install "metric-learn-scml[dask]"``).
"""

import numpy as np
import pytest

dask_array = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
wrappers = pytest.importorskip("dask_ml.wrappers")

from sklearn.datasets import make_classification  # noqa: E402

from metric_learn_scml import SCML_Supervised, knn_scorer  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(3000, 8, n_informative=6, n_redundant=0,
                               n_classes=4, random_state=0)
    return (X - X.mean(0)) / X.std(0), y


def test_incremental_is_partial_fit_over_the_blocks(client, data):
    X, y = data
    blocks = 600
    dX = dask_array.from_array(X, chunks=(blocks, X.shape[1]))
    dy = dask_array.from_array(y, chunks=blocks)
    incremental = wrappers.Incremental(
        SCML_Supervised(beta=1e-4, random_state=0), scoring=knn_scorer,
        shuffle_blocks=False).fit(dX, dy)
    local = SCML_Supervised(beta=1e-4, random_state=0)
    for start in range(0, X.shape[0], blocks):
        local.partial_fit(X[start:start + blocks], y[start:start + blocks])
    np.testing.assert_allclose(incremental.estimator_.weights_,
                               local.weights_, rtol=1e-6,
                               atol=1e-9 * np.abs(local.weights_).max())
    # ParallelPostFit: transform blockwise on the workers.
    embedded = wrappers.ParallelPostFit(incremental.estimator_).transform(dX)
    np.testing.assert_allclose(embedded.compute(), local.transform(X),
                               rtol=1e-9, atol=1e-12)
    # The documented score: NumPy arrays, the same number as knn_scorer.
    assert incremental.score(X[:500], y[:500]) == pytest.approx(
        knn_scorer(incremental.estimator_, X[:500], y[:500]))
