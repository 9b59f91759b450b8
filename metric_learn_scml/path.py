r"""The regularisation path of SCML-Global and the cross-validated learner.

:func:`scml_path` follows scikit-learn's ``lasso_path``: the exact optima
for a decreasing grid of :math:`\beta`, each warm-started from the last
(:func:`metric_learn_scml._exact.exact_path`), with their duality gaps.
:class:`SCML_SupervisedCV` follows ``LassoCV``: the grid is relative to
:math:`\beta_{\max}` of the whole training set, every fold is fitted along
it and scored by the 3-NN error of its held-out points, and the model is
refitted on all the points at the best :math:`\beta`.
"""

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold

from ._base import single_threaded, store_parameters
from ._selection import (BETA_RATIO_HIGH, LabelledPath, beta_grid, best_beta,
                         held_out_path_scores, labelled_basis)
from ._validation import Interval, validate_supervised, validate_value
from .scml import SCML_Supervised

# The grid parameters shared by scml_path and SCML_SupervisedCV.
GRID_CONSTRAINTS = {
    "n_betas": [Interval("int", low=1)],
    "eps": [Interval("float", low=0, low_inclusive=False)],
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


def scml_path(X, y, *, betas=None, n_betas=7, eps=1e-5, basis="lda",
              n_basis=None, k_genuine=3, k_impostor=10, neighbors="auto",
              random_state=None):
    r"""The exact SCML-Global optima along a decreasing grid of beta.

    Triplets and the basis are built from the labels as in
    :class:`~metric_learn_scml.SCML_Supervised`; then, for each
    :math:`\beta` from the largest, the optimum of

    .. math:: \frac{1}{|C|} \sum_C [1 + d_w(x_i, x_j) - d_w(x_i, x_k)]_+
              + \beta \|w\|_1, \qquad w \ge 0,

    is found by the working-set LP started from the previous optimum (as
    ``lasso_path`` warm-starts coordinate descent).

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
    basis : {'lda'} or array-like of shape (n_basis, n_features), default='lda'
    n_basis : int, default=None
    k_genuine, k_impostor : int, default=3, 10
    neighbors : 'auto', None or KNeighborsTransformer, default='auto'
        As in :class:`~metric_learn_scml.SCML_Supervised`.
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
    model = SCML_Supervised(basis=basis, n_basis=n_basis, k_genuine=k_genuine,
                            k_impostor=k_impostor, neighbors=neighbors,
                            random_state=random_state)
    model._start_fit()
    X, y = validate_supervised(model, X, y)
    basis = labelled_basis(model, X, y, model._rng)
    path = LabelledPath(X, y, basis, k_genuine, k_impostor, model._rng,
                        neighbors)
    if betas is None:
        # Sorted: with eps above 10**-0.5 the grid would increase.
        betas = np.sort(beta_grid(path.beta_max(), n_betas, BETA_RATIO_HIGH,
                                  eps))[::-1]
    weights, gaps = path.solve(betas)
    return betas, weights, gaps, basis


class SCML_SupervisedCV(SCML_Supervised):
    r"""SCML_Supervised with beta chosen by cross-validation (like LassoCV).

    The grid is ``n_betas`` values from ``10**-0.5`` to ``eps`` times
    ``beta_max`` of the whole training set (the smallest beta that keeps no
    element), unless ``betas`` is given. Each of the ``cv`` stratified folds
    builds its basis and triplets from its training part, fits the grid by
    RDA, and scores each value by the 3-NN error of its held-out points;
    among the values whose mean error is within half a standard error of
    the least, the least mean error on held-out triplets wins (then the
    larger beta), as for ``beta='auto'``. The model is then fitted on all
    the points at that value, as
    ``SCML_Supervised(beta=beta_)``.

    Parameters
    ----------
    betas : array-like, default=None
    n_betas : int, default=7
    eps : float, default=1e-5
    cv : int, default=3
        Number of stratified folds.
    n_jobs : int, default=None
        Folds fitted in parallel (joblib).
    k_genuine, k_impostor, neighbors, basis, n_basis, gamma, max_iter, output_iter, batch_size, tol, n_iter_no_change, solver, max_new_elements, verbose, preprocessor, random_state
        As in :class:`~metric_learn_scml.SCML_Supervised` (the refit uses
        them all; the folds use all but ``solver`` and
        ``max_new_elements``).

    Attributes
    ----------
    beta_ : float
        The chosen beta.
    betas_ : ndarray of shape (n_betas,)
    error_path_ : ndarray of shape (n_betas, cv)
        Held-out 3-NN error (fraction) of each beta on each fold.
    components_, weights_, basis_, n_active_basis_, dual_gap_, n_iter_, objective_, objective_history_, n_features_in_
        Those of the refit, as in
        :class:`~metric_learn_scml.SCML_Supervised`.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import SCML_SupervisedCV
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> model = SCML_SupervisedCV(cv=3, random_state=0).fit(X, y)
    >>> model.error_path_.shape
    (7, 3)
    >>> bool(model.beta_ in model.betas_)
    True
    """

    # Not a parameter: chosen by cross-validation, as alpha in LassoCV.
    beta = "auto"

    def __init__(self, betas=None, n_betas=7, eps=1e-5, cv=3, n_jobs=None,
                 k_genuine=3, k_impostor=10, neighbors="auto",
                 basis="lda", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto",
                 max_new_elements=0, verbose=False, preprocessor=None,
                 random_state=None):
        store_parameters(self, locals())

    _parameter_constraints = {
        **GRID_CONSTRAINTS,
        "cv": [Interval("int", low=2)],
        "n_jobs": [Interval("int"), None],
    }

    def _check_params(self):
        super()._check_params()
        if self.betas is not None:
            check_betas(self.betas)

    def _choose_beta(self, X, y):
        """Cross-validate the grid; set ``betas_`` and ``error_path_``."""
        folds = StratifiedKFold(self.cv, shuffle=True,
                                random_state=self._rng.randint(2 ** 31))
        splits = list(folds.split(X, y))
        if self.betas is None:
            path = LabelledPath(X, y, labelled_basis(self, X, y, self._rng),
                                self.k_genuine, self.k_impostor, self._rng,
                                self.neighbors)
            betas = beta_grid(path.beta_max(), self.n_betas,
                              BETA_RATIO_HIGH, self.eps)
        else:
            betas = check_betas(self.betas)
        seeds = self._rng.randint(2 ** 31, size=len(splits))
        scores = Parallel(n_jobs=self.n_jobs)(
            delayed(single_threaded(held_out_path_scores))(
                self, X, y, fit, held, betas, seed)
            for (fit, held), seed in zip(splits, seeds))
        if any(score is None for score in scores):
            raise ValueError(
                "A fold of %s gives no basis element (constant features on "
                "its training part): use fewer folds." % type(self).__name__)
        self.betas_ = betas
        self.error_path_ = np.column_stack([score[1] for score in scores])
        triplet_errors = np.column_stack([score[2] for score in scores])
        # Every point is held out once: the mean error is over all of them.
        return (best_beta(betas, self.error_path_.mean(axis=1),
                          triplet_errors.mean(axis=1), y.shape[0]),
                betas, self.error_path_.mean(axis=1), False)
