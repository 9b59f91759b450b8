"""
=====================================================
Incremental fitting: partial_fit, and dask clusters
=====================================================

:meth:`~metric_learn_scml.SCML_Supervised.partial_fit` learns from one batch
at a time: the first batch fixes ``beta='auto'`` and draws the basis, and
each call takes one epoch of RDA steps from the running average of the
gradients of all the batches before it (regularized dual averaging is
built on that average). The model also remembers a uniform sample of the
points seen, at most ``partial_fit_memory`` of them: each batch's points
find their triplets' targets and impostors among the batch and that
sample, as ``fit`` finds them among all its points, and the basis is
drawn anew from it as it grows (the elements in use are kept). The data
never has to fit in memory at once.

Below, 16,000 points of a 10-class problem arrive in ten batches. The test
3-NN error after each batch is set against the model fitted on all the
points at once and against the Euclidean distance.

The same model runs past one machine with dask-ml's ``Incremental``
wrapper, which calls ``partial_fit`` on every block of a dask array in
turn, on the cluster's workers; ``ParallelPostFit`` then transforms a dask
array block by block. (Install the extra: ``pip install
"metric-learn-scml[dask]"``.)
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from metric_learn_scml import SCML_Supervised, knn_scorer

X, y = make_classification(20000, 20, n_informative=10, n_classes=10,
                           n_clusters_per_class=2, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.2, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)


def knn_error(transform=lambda Z: Z):
    knn = KNeighborsClassifier(3).fit(transform(X_train), y_train)
    return 100 * (1 - knn.score(transform(X_test), y_test))


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    full = SCML_Supervised(random_state=0).fit(X_train, y_train)
    model = SCML_Supervised(random_state=0)
    errors = []
    for batch in np.array_split(np.arange(len(y_train)), 10):
        model.partial_fit(X_train[batch], y_train[batch])
        errors.append(knn_error(model.transform))

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(range(1, 11), errors, "o-", label="partial_fit, after each batch")
ax.axhline(knn_error(full.transform), color="C1", label="fit on all points")
ax.axhline(knn_error(), color="grey", ls="--", label="Euclidean")
ax.set_xlabel("batches seen (1,600 points each)")
ax.set_ylabel("3-NN test error (%)")
ax.legend()
fig.tight_layout()
print("partial_fit: %.1f %%, fit: %.1f %%, Euclidean: %.1f %%" % (
    errors[-1], knn_error(full.transform), knn_error()))

# %%
# On a dask cluster
# -----------------
# ``Incremental`` needs a score for its ``score`` method; SCML_Supervised
# is a transformer, so pass :func:`~metric_learn_scml.knn_scorer`, and
# score NumPy arrays (on dask arrays dask-ml takes a callable ``scoring``
# for a metric of predictions, which a transformer has not). With
# ``shuffle_blocks=False`` the blocks are learned in order, and the model
# is the one of the ``partial_fit`` loop above over the same batches.
# (Here an in-process cluster; a ``LocalCluster`` or a remote scheduler is
# used the same way.) ``Incremental`` passes fit keyword arguments to every
# block unchanged, so a multi-task model, whose ``tasks`` follow the
# samples, is fitted by a loop over the blocks instead:
# ``for Xb, yb, tb in zip(dX.blocks, dy.blocks, dt.blocks):
# model.partial_fit(Xb.compute(), yb.compute(), tb.compute())``.

import dask.array as da  # noqa: E402
from dask_ml.wrappers import Incremental, ParallelPostFit  # noqa: E402
from distributed import Client  # noqa: E402

with Client(processes=False, n_workers=2, threads_per_worker=1,
            dashboard_address=None) as client, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    dX = da.from_array(X_train, chunks=(1600, X_train.shape[1]))
    dy = da.from_array(y_train, chunks=1600)
    incremental = Incremental(SCML_Supervised(random_state=0),
                              scoring=knn_scorer, shuffle_blocks=False)
    incremental.fit(dX, dy)
    embedded = ParallelPostFit(incremental.estimator_).transform(
        da.from_array(X_test, chunks=(2000, X_test.shape[1])))
    print("dask Incremental: %.1f %% (same weights as the loop: %s)" % (
        knn_error(incremental.estimator_.transform),
        np.allclose(incremental.estimator_.weights_, model.weights_)))
    print("embedded test points:", embedded.compute().shape)
