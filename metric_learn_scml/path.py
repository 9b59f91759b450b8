r"""The regularisation path of SCML-Global, and the folds of its CV learner.

:func:`scml_path` follows scikit-learn's ``lasso_path``: the exact optima
for a decreasing grid of :math:`\beta`, each warm-started from RDA's
iterate or the last optimum, with their duality gaps, on the driver that a
fit runs at one point (``_driver.solve_path``).
:class:`~metric_learn_scml.SCML_SupervisedCV` follows ``LassoCV``: the grid
is relative to :math:`\beta_{\max}` of the whole training set, the training
part of every split of ``cv`` (:func:`cv_splits`, here) is fitted along it
and scored by the 3-NN error of its test part, and the model is refitted on
all the points at the best :math:`\beta`. It lives in :mod:`.scml`, beside
the learner it refits, as ``LassoCV`` beside ``Lasso``: the path sits
below the estimators.
"""

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, check_cv

from ._arrays import checked_random_state
from ._base import _SCMLEstimator
from ._defaults import BETA_RATIO_HIGH, EXACT_GAP_TOL
from ._driver import LabelledPath, beta_grid, path_basis
from ._pipelines import _FromLabels, path_settings
from ._validation import (Interval, name_of, no_basis_error,
                          parameter_constraints, plain,
                          validate_labelled_points, validate_parameters,
                          validate_value)

# The grid parameters shared by scml_path and SCML_SupervisedCV.
GRID_CONSTRAINTS = {
    "n_betas": [Interval("int", low=1)],
    # The grid runs from 10**-0.5 down to eps times beta_max.
    "eps": [Interval("float", low=0, high=BETA_RATIO_HIGH, low_inclusive=False)],
}


def check_betas(betas):
    """A given grid as a float array sorted in decreasing order."""
    try:
        grid = np.asarray(betas, dtype=float)
    except (TypeError, ValueError):
        grid = None
    if grid is None or grid.ndim != 1 or grid.size == 0 or not np.all(
            np.isfinite(grid) & (grid >= 0)):
        raise ValueError("betas must be a non-empty 1-D array of "
                         "non-negative numbers, got %r." % (betas,))
    return np.sort(grid)[::-1]


# scml_path's RDA runs only start its exact phases (its certified optima do
# not depend on them): SCML_Supervised's default settings.
PATH_RDA = dict(gamma=1.0, batch_size=32, max_iter=20000, eval_every=250,
                tol=1e-3, n_iter_no_change=4)


def scml_path(X, y, *, betas=None, n_betas=7, eps=1e-5, basis="lda",
              n_basis=None, k_genuine=3, k_impostor="auto",
              random_state=None):
    r"""The exact SCML-Global optima along a decreasing grid of beta.

    Triplets and the basis are built from the labels as in
    :class:`~metric_learn_scml.SCML_Supervised`; then, for each
    :math:`\beta` from the largest, the optimum of

    .. math:: \frac{1}{|C|} \sum_C [1 + d_w(x_i, x_j) - d_w(x_i, x_k)]_+
              + \beta \|w\|_1, \qquad w \ge 0,

    is found by the exact phase a fit runs (the working-set LP), started
    from RDA's iterate at that beta, or from the previous optimum where
    its objective is lower (as ``lasso_path`` warm-starts coordinate
    descent); all the betas' RDA runs share their batches. A fit at
    ``beta`` with ``solver='exact'`` is this path at ``[beta]``
    (``_driver.solve_path``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    betas : array-like, default=None
        The grid (sorted in decreasing order). None: ``n_betas`` values
        from ``10**-0.5`` to ``eps`` times ``beta_max``, the smallest beta
        that keeps no element.
    n_betas : int, default=7
    eps : float, default=1e-5
        The smallest value of the grid over ``beta_max``, in
        ``(0, 10**-0.5]``.
    basis : {'lda', 'triplet_diffs'} or array-like of shape (n_basis, n_features), default='lda'
    n_basis : int, default=None
    k_genuine : int, default=3
    k_impostor : int or 'auto', default='auto'
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    betas : ndarray of shape (n_betas,)
    weights : ndarray of shape (n_betas, n_basis_out)
        ``weights[i]`` is the optimum at ``betas[i]``, on ``basis_out``.
    dual_gaps : ndarray of shape (n_betas,)
        The duality gap that certifies each (an upper bound on its distance
        to the optimal objective).
    basis_out : ndarray of shape (n_basis_out, n_features)

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import scml_path
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> betas, weights, gaps, basis = scml_path(X, y, n_betas=4,
    ...                                         random_state=0)
    >>> weights.shape == (4, basis.shape[0])
    True
    >>> bool(gaps.max() < 1e-6)
    True
    """
    for name, value in (("n_betas", n_betas), ("eps", eps)):
        validate_value(name, value, GRID_CONSTRAINTS[name])
    if betas is not None:
        betas = check_betas(betas)
    # (SCML_Supervised's: the estimators' table of n_basis, the labelled
    # learners' of the rest.)
    constraints = {**parameter_constraints(_SCMLEstimator),
                   **_FromLabels._parameter_constraints}
    given = dict(basis=basis, n_basis=n_basis, k_genuine=k_genuine,
                 k_impostor=k_impostor)
    validate_parameters({name: constraints[name] for name in given}, given)
    rng = checked_random_state(random_state)
    X, y = validate_labelled_points(X, y, "scml_path")
    settings = path_settings(basis, n_basis, k_genuine, k_impostor,
                             X.shape[1], PATH_RDA)
    path = LabelledPath(X, y, path_basis(settings, X, y, rng), k_genuine,
                        k_impostor, rng)
    basis = path.basis
    largest = checked_beta_max(path, "scml_path")
    if betas is None:
        # Sorted: with eps above 10**-0.5 the grid would increase.
        betas = np.sort(beta_grid(largest, n_betas, BETA_RATIO_HIGH,
                                  eps))[::-1]
    # The driver a fit runs at one beta, along the grid: RDA at every beta
    # on shared batches, then each exact phase to its end.
    weights, results = path.solve(betas, settings.rda, "exact", rng)
    gaps = np.array([result.dual_gap for result in results])
    loose = np.array([result.loose for result in results])
    if loose.any():
        warnings.warn(
            "scml_path: the duality gap does not certify the optimum at "
            "beta=%s (relative gap above %g): at beta=0, or far below the "
            "useful range, no bound on the weights keeps the linear program "
            "well scaled." % (", ".join("%.3g" % b for b in betas[loose]),
                             EXACT_GAP_TOL), ConvergenceWarning)
    return betas, weights, gaps, basis


def checked_beta_max(path, who):
    """The ``beta_max`` of a ``LabelledPath``, the top of its grid.

    An empty basis raises the error of :func:`no_basis_error`; a
    ``beta_max`` of 0 (no beta keeps an element) warns. ``who`` names the
    estimator or function in both.
    """
    if path.basis.shape[0] == 0:
        raise no_basis_error(who)
    largest = path.beta_max()
    if not largest > 0:
        warnings.warn(
            "%s: no basis element lowers the loss of the triplets (beta_max "
            "is 0), so every optimum is w = 0: the labels' neighbourhoods "
            "carry no order the basis can express." % name_of(who),
            UserWarning)
    return largest


def cv_splits(cv, X, y, groups, seed, name="SCML_SupervisedCV"):
    """The ``(fit, held)`` index arrays of ``cv`` on ``(X, y)``, checked.

    An int is that many stratified folds, shuffled with ``seed``; a
    splitter or an iterable of pairs goes through scikit-learn's
    ``check_cv`` and is used as given (``groups`` reach the splitter's
    ``split``). Errors name ``cv``, warnings the learner ``name``.
    """
    if isinstance(cv, numbers.Integral):
        classes, counts = np.unique(y, return_counts=True)
        if cv > counts.min():
            raise ValueError(
                "cv=%d stratified folds need at least %d points of every "
                "class, but class %r has %d: use fewer folds, or a "
                "splitter (e.g. KFold) or (train, test) pairs." % (
                    cv, cv, plain(classes[counts.argmin()]), counts.min()))
        cv = StratifiedKFold(cv, shuffle=True, random_state=seed)
    elif not hasattr(cv, "split"):
        # Read once (it may be a generator) and checked here: scikit-learn's
        # wrapper fails on an item that is not a pair with a bare TypeError.
        cv = [pair_of(split, number) for number, split in enumerate(cv)]
    splitter = check_cv(cv, y, classifier=True)
    try:
        splits = list(splitter.split(X, y, groups))
    except ValueError as error:
        raise ValueError("cv could not split the %d points given to fit: %s"
                         % (y.shape[0], error)) from error
    if not splits:
        raise ValueError(
            "cv gave no (train, test) split (an iterator that an earlier fit "
            "used up gives none): pass a splitter such as "
            "StratifiedKFold(5), or a list of (train, test) pairs.")
    checked = [tuple(split_part(part, kind, number, y) for part, kind in zip(
        pair_of(split, number), ("train", "test")))
        for number, split in enumerate(splits)]
    for number, (train, test) in enumerate(checked):
        check_test_classes(train, test, number, y, name)
    return checked


def check_test_classes(train, test, number, y, name):
    """Refuse a split whose test points all belong to classes its training
    part lacks (the 3-NN error is then 1 at every beta: the split scores
    nothing), and warn where some do (they count as errors at every beta).
    """
    tested = np.unique(y[test])
    missing = np.setdiff1d(tested, y[train])
    if missing.shape[0] == 0:
        return
    classes = [plain(label) for label in missing]
    if missing.shape[0] == tested.shape[0]:
        raise ValueError(
            "The test part of split %d of cv holds only classes that its "
            "train part lacks (%s): no metric classifies its points, so it "
            "cannot score beta. Give a cv that shuffles the points and "
            "keeps every class on both sides, such as an int (stratified "
            "folds) or StratifiedKFold(shuffle=True)." % (number, classes))
    warnings.warn(
        "%s: the test part of split %d of cv holds classes that its train "
        "part lacks (%s): their points count as errors at every beta. A "
        "stratified cv (an int cv is) keeps every class on both sides."
        % (name, number, classes), UserWarning)


def pair_of(split, number):
    """``split`` as a (train, test) pair; anything else raises."""
    if isinstance(split, str) or not hasattr(split, "__len__") or len(
            split) != 2:
        raise ValueError("cv must give (train, test) pairs of index arrays: "
                         "split %d is %r." % (number, split))
    return split


def split_part(part, kind, number, y):
    """One side of a split as indices into the points, checked.

    A boolean mask over the points is taken as its indices. The indices
    are sorted: a part is a set of points, and the order a splitter lists
    them in (``ShuffleSplit`` shuffles) would otherwise change the fit.
    The training side needs two classes, SCML's triplets compare them,
    and a class of two points or more, whose pairs are the targets.
    """
    indices = np.asarray(part)
    n_samples = y.shape[0]
    if indices.dtype == bool and indices.shape == (n_samples,):
        indices = np.flatnonzero(indices)
    if (indices.ndim != 1 or indices.shape[0] == 0
            or indices.dtype.kind not in "iu" or indices.min() < 0
            or indices.max() >= n_samples):
        raise ValueError(
            "The %s part of split %d of cv must be a non-empty 1-D array of "
            "indices in 0..%d (or a boolean mask of the %d points), got %r."
            % (kind, number, n_samples - 1, n_samples, part))
    if kind == "train":
        classes, counts = np.unique(y[indices], return_counts=True)
        if classes.shape[0] < 2:
            raise ValueError(
                "The train part of split %d of cv holds a single class (%r): "
                "every training part needs two classes to build triplets."
                % (number, plain(classes[0])))
        if counts.max() < 2:
            raise ValueError(
                "The train part of split %d of cv holds a single point of "
                "each class, so no triplet can be built on it: use fewer "
                "folds, or more points per class." % number)
    return np.sort(indices)


