"""The evaluation protocol of the benchmark tables: splits, 3-NN error, timed fits.

Every table measures a metric the same way: seeded stratified splits,
features scaled with statistics of the training part only, a metric learner
fitted on the training part, then the test error of scikit-learn's 3-NN
classifier under the learned metric. These helpers are that protocol, and
nothing else, so that every table draws the same splits for the same seed.

Errors are fractions here; tables show percent.
"""

import time

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

N_NEIGHBORS = 3


def subsample(y, max_samples, random_state=0):
    """Indices of a stratified subsample of at most ``max_samples`` points.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; every class keeps its share of the points.
    max_samples : int or None
        None, or at least ``n_samples``, keeps every point.
    random_state : int, default=0
        Seeds the choice, so a dataset is always cut the same way.

    Returns
    -------
    indices : ndarray of int, sorted
    """
    y = np.asarray(y)
    indices = np.arange(y.shape[0])
    if max_samples is None or max_samples >= y.shape[0]:
        return indices
    kept, _ = train_test_split(indices, train_size=max_samples, stratify=y,
                               random_state=random_state)
    return np.sort(kept)


def stratified_split(y, split, test_size=0.3, train_size=None):
    """Train and test indices of split number ``split`` (its own seed).

    Split ``i`` is ``StratifiedShuffleSplit(n_splits=1, random_state=i)``, so
    it is the same whatever number of splits a run asks for.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    split : int
        Split number, the seed.
    test_size, train_size : float, int or None
        As in :class:`~sklearn.model_selection.StratifiedShuffleSplit`.

    Returns
    -------
    train, test : ndarray of int, sorted
    """
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=test_size,
                                      train_size=train_size, random_state=split)
    train, test = next(splitter.split(np.zeros((len(y), 1)), y))
    return np.sort(train), np.sort(test)


def standardised(X, train, test):
    """``X[train]`` and ``X[test]`` scaled by a ``StandardScaler`` fitted on train."""
    scaler = StandardScaler().fit(X[train])
    return scaler.transform(X[train]), scaler.transform(X[test])


def knn_error(X_train, y_train, X_test, y_test, n_neighbors=N_NEIGHBORS):
    """Test error (a fraction) of scikit-learn's k-NN classifier (Euclidean)."""
    knn = KNeighborsClassifier(n_neighbors=n_neighbors).fit(X_train, y_train)
    return 1.0 - knn.score(X_test, y_test)


def timed_fit(estimator, *args, **kwargs):
    """``estimator.fit(*args, **kwargs)`` and its wall time in seconds."""
    start = time.perf_counter()
    fitted = estimator.fit(*args, **kwargs)
    return fitted, time.perf_counter() - start


def metric_error(estimator, X_train, y_train, X_test, y_test):
    """Fit a metric on the training part; 3-NN test error under it.

    Parameters
    ----------
    estimator : estimator or None
        None is the Euclidean metric (nothing is fitted). A learner with
        ``transform`` (metric-learn's, ``NeighborhoodComponentsAnalysis``,
        :class:`~metric_learn_scml.SCML_Supervised`) is scored by the 3-NN
        classifier on the transformed points; any other estimator must be a
        classifier (e.g. :class:`~metric_learn_scml.MetricKNeighborsClassifier`
        around a local metric) and is scored by its own ``score``.
    X_train, y_train, X_test, y_test : arrays

    Returns
    -------
    error : float
        Test error, a fraction.
    seconds : float
        Fit time (0 for the Euclidean metric).
    fitted : estimator or None
        The fitted estimator (None for the Euclidean metric).
    """
    if estimator is None:
        return knn_error(X_train, y_train, X_test, y_test), 0.0, None
    fitted, seconds = timed_fit(estimator, X_train, y_train)
    if hasattr(fitted, "transform"):
        error = knn_error(fitted.transform(X_train), y_train,
                          fitted.transform(X_test), y_test)
    else:
        error = 1.0 - fitted.score(X_test, y_test)
    return error, seconds, fitted
