"""The evaluation protocol of every table: splits, the 3-NN error, tuning, timed fits.

Every table measures a metric the same way: seeded stratified splits,
features fitted on the training part only, a metric learner fitted on the
training part, then the error of scikit-learn's 3-NN classifier under the
learned metric. Split ``i`` is the same whatever the number of splits a run
asks for, so every method and every run sees the same splits.

Errors are fractions here; tables show percent.
"""

import time

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import check_random_state

# Fits and the splits of the paper's protocol are seeded from this.
RANDOM_STATE = 0
N_NEIGHBORS = 3


def subsample(y, max_samples, random_state=0):
    """Sorted indices of a stratified subsample of at most ``max_samples`` points.

    None, or at least ``len(y)``, keeps every point.
    """
    y = np.asarray(y)
    indices = np.arange(y.shape[0])
    if max_samples is None or max_samples >= y.shape[0]:
        return indices
    kept, _ = train_test_split(indices, train_size=max_samples, stratify=y,
                               random_state=random_state)
    return np.sort(kept)


def stratified_split(y, split, test_size=0.3, train_size=None):
    """Sorted train and test indices of split number ``split`` (its own seed).

    ``test_size`` and ``train_size`` are those of
    :class:`~sklearn.model_selection.StratifiedShuffleSplit`.
    """
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=test_size,
                                      train_size=train_size, random_state=split)
    train, test = next(splitter.split(np.zeros((len(y), 1)), y))
    return np.sort(train), np.sort(test)


def _split_counts(n_samples, sizes):
    """Absolute (train, validation, test) sizes from counts or fractions."""
    sizes = (0.6, 0.2, 0.2) if sizes is None else tuple(sizes)
    if len(sizes) != 3:
        raise ValueError(f"sizes must have 3 entries (train, val, test), got {sizes}")
    if all(isinstance(size, (int, np.integer)) for size in sizes):
        counts = sizes
    else:
        if sum(sizes) > 1 + 1e-9:
            raise ValueError(f"fractions in sizes must sum to at most 1, got {sizes}")
        n_val, n_test = (int(round(size * n_samples)) for size in sizes[1:])
        # Fractions that cover the data give the rounding remainder to train.
        n_train = (n_samples - n_val - n_test if np.isclose(sum(sizes), 1)
                   else int(round(sizes[0] * n_samples)))
        counts = (n_train, n_val, n_test)
    if min(counts) < 1 or sum(counts) > n_samples:
        raise ValueError(
            f"split sizes {counts} must be positive and fit in {n_samples} samples")
    return tuple(int(count) for count in counts)


def paper_splits(y, n_splits=20, random_state=RANDOM_STATE, sizes=None):
    """Random stratified train/validation/test splits of the paper's protocol.

    The paper draws 20 random 60%/20%/20% splits, except for Letters and
    USPS where it takes 3,000/1,000/1,000 samples; each part keeps the class
    proportions of ``y``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    n_splits : int, default=20
    random_state : int, RandomState instance or None, default=0
        Seeds the sequence of splits.
    sizes : tuple of 3 ints or 3 floats, default=None
        Sizes of (train, validation, test): absolute counts if all are
        integers (samples beyond their sum are left out), else fractions of
        ``n_samples`` summing to at most 1. None means ``(0.6, 0.2, 0.2)``.

    Yields
    ------
    train, val, test : ndarray of int
        Disjoint, sorted indices into ``y``.

    Examples
    --------
    >>> y = np.repeat([0, 1], 50)
    >>> train, val, test = next(paper_splits(y, n_splits=1))
    >>> len(train), len(val), len(test)
    (60, 20, 20)
    """
    y = np.asarray(y)
    n_train, n_val, n_test = _split_counts(len(y), sizes)
    rng = check_random_state(random_state)
    indices = np.arange(len(y))
    for _ in range(n_splits):
        seed = rng.randint(np.iinfo(np.int32).max)
        rest, test = train_test_split(indices, train_size=n_train + n_val,
                                      test_size=n_test, stratify=y, random_state=seed)
        train, val = train_test_split(rest, train_size=n_train, test_size=n_val,
                                      stratify=y[rest], random_state=seed)
        yield np.sort(train), np.sort(val), np.sort(test)


def knn_error(X_train, y_train, X_test, y_test):
    """Test error (a fraction) of scikit-learn's 3-NN classifier on these vectors."""
    knn = KNeighborsClassifier(n_neighbors=N_NEIGHBORS).fit(X_train, y_train)
    return 1.0 - knn.score(X_test, y_test)


def model_error(model, X_train, y_train, X_test, y_test):
    """Test error of a fitted model: 3-NN on its ``transform``, else its own ``score``.

    A metric learner with ``transform`` (metric-learn's, scikit-learn's NCA,
    :class:`~metric_learn_scml.SCML_Supervised`) is scored by the 3-NN
    classifier on the transformed points; a classifier (an SVM,
    :class:`~metric_learn_scml.MetricKNeighborsClassifier`) by its ``score``.
    None is the Euclidean metric.
    """
    if model is None:
        return knn_error(X_train, y_train, X_test, y_test)
    if hasattr(model, "transform"):
        return knn_error(model.transform(X_train), y_train, model.transform(X_test), y_test)
    return 1.0 - model.score(X_test, y_test)


def timed_fit(estimator, *args, **kwargs):
    """``estimator.fit(*args, **kwargs)`` and its wall time in seconds."""
    start = time.perf_counter()
    fitted = estimator.fit(*args, **kwargs)
    return fitted, time.perf_counter() - start


def metric_error(estimator, X_train, y_train, X_test, y_test):
    """Fit a metric (None: Euclidean) on the training part; its 3-NN test error.

    Returns the error (a fraction), the fit time (0 for the Euclidean
    metric) and the fitted estimator (None for the Euclidean metric).
    """
    fitted, seconds = (None, 0.0) if estimator is None else timed_fit(
        estimator, X_train, y_train)
    return model_error(fitted, X_train, y_train, X_test, y_test), seconds, fitted


def tune(fit, score, grid):
    """Fit every value of ``grid``; keep the one of lowest validation error.

    ``fit(value)`` returns a fitted model and its fit time, ``score(model)``
    its validation error. A tie goes to the later value of the grid (for an
    increasing ``beta``, the sparser model).

    Returns
    -------
    chosen : the value picked
    fits : dict of value to (model, seconds)
        Every fit, in the order of the grid.
    """
    best, fits = None, {}
    for value in grid:
        fits[value] = fit(value)
        error = score(fits[value][0])
        if best is None or error <= best[0]:
            best = (error, value)
    return best[1], fits


def n_active(model):
    """Active basis elements of a fitted model (or of the metric inside a classifier)."""
    return getattr(getattr(model, "estimator_", model), "n_active_basis_", np.nan)


class UnknownNameError(ValueError):
    """A dataset or method name that no registry holds (the command line
    reports it as a usage error)."""


def lookup(names, registry, kind):
    """Keys of ``registry`` for command-line names: keys or ``name`` attributes.

    None selects every key; an unknown name raises an
    :class:`UnknownNameError` (a ``ValueError``).
    """
    if names is None:
        return list(registry)
    by_name = {}
    for key, entry in registry.items():
        by_name[key.lower()] = key
        by_name[getattr(entry, "name", key).lower()] = key
    unknown = [name for name in names if name.lower() not in by_name]
    if unknown:
        raise UnknownNameError("unknown %s %s: choose from %s" % (
            kind, ", ".join(map(repr, unknown)), ", ".join(registry)))
    return [by_name[name.lower()] for name in names]
