r"""SCML-Global: one Mahalanobis metric as a sparse combination of rank-one elements.

Shi, Bellet and Sha, *Sparse Compositional Metric Learning*, AAAI 2014,
section "Global Metric Learning". Given a basis :math:`B` of unit rows
:math:`b_k` and triplet constraints :math:`C`, SCML-Global solves

.. math::

    \min_{w \ge 0}\; \frac{1}{|C|} \sum_{(i,j,k) \in C}
    \big[1 + d_w(x_i, x_j) - d_w(x_i, x_k)\big]_+ + \beta \|w\|_1,
    \qquad d_w(x, x') = (x - x')^T \Big(\sum_k w_k b_k b_k^T\Big) (x - x'),

by regularized dual averaging (:mod:`metric_learn_scml._solvers`).
"""

import functools
import numbers
import re
import warnings

import numpy as np
from metric_learn.base_metric import MahalanobisMixin, _TripletsClassifierMixin
from metric_learn._util import ArrayIndexer, check_input
from metric_learn.exceptions import PreprocessorError
from scipy.sparse import issparse
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils import check_array, check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ._basis import default_n_basis, lda_basis, triplet_basis
from ._exact import exact_phase
from ._selection import (LabelledPath, beta_grid, held_out_scores,
                         held_out_triplets)
from ._solvers import (SquaredDifferences, components_from_weights,
                       largest_magnitude, rda, scaled_differences)
from ._triplets import pair_index, triplets_from_labels, triplets_to_indices


def single_threaded(fit):
    """Run ``fit`` with BLAS and OpenMP limited to one thread.

    SCML's linear algebra is many small problems (a Fisher analysis per
    region, a mini-batch per step), where extra threads cost more than they
    give: on a busy two-core machine, the batched SVD of the triplet basis
    took 0.29 s with one thread and 14 s with two.
    """
    @functools.wraps(fit)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return fit(*args, **kwargs)
    return wrapper


def check_number(value, name, kind, low=None, high=None, low_inclusive=True,
                 allow_none=False):
    """Validate a numeric hyper-parameter; errors name it and say what fits.

    Parameters
    ----------
    value : object
    name : str
    kind : {'int', 'float'}
    low, high : float or None
        Bounds (``high`` inclusive).
    low_inclusive : bool, default=True
    allow_none : bool, default=False

    Raises
    ------
    TypeError
        For a value of the wrong type (``bool`` is not a number here).
    ValueError
        For a value out of range or not finite.
    """
    if value is None and allow_none:
        return
    numeric = numbers.Integral if kind == "int" else numbers.Real
    if isinstance(value, bool) or not isinstance(value, numeric):
        raise TypeError("%s must be %s%s, got %r of type %s." % (
            name, "an integer" if kind == "int" else "a real number",
            " or None" if allow_none else "", value, type(value).__name__))
    if not np.isfinite(value):
        raise ValueError("%s must be finite, got %r." % (name, value))
    if low is not None and (value < low or (value == low and not low_inclusive)):
        raise ValueError("%s must be %s %s, got %r." % (
            name, ">=" if low_inclusive else ">", low, value))
    if high is not None and value > high:
        raise ValueError("%s must be <= %s, got %r." % (name, high, value))


class NegativeIndexError(ValueError):
    """A negative index into an array ``preprocessor``."""


class PointIndexer(ArrayIndexer):
    """metric-learn's array ``preprocessor``, refusing negative indices.

    numpy would take ``-1`` as the last point, silently: an index triplet
    or point with a negative entry is a user error.
    """

    def __call__(self, indices):
        indices = np.asarray(indices)
        if indices.dtype.kind in "iuf" and (indices < 0).any():
            raise NegativeIndexError(
                "Index %r in the input: with an array preprocessor, indices "
                "select its rows and must lie in 0..%d. Negative indices are "
                "not accepted (numpy would take -1 as the last row)." % (
                    indices[indices < 0].ravel()[0].item(),
                    self.X.shape[0] - 1))
        return super().__call__(indices)


def checked_input(estimator, data, **kwargs):
    """metric-learn's ``check_input`` with ``estimator``'s preprocessor.

    A negative index raises its :class:`NegativeIndexError` (a
    ``ValueError``), not the ``PreprocessorError`` that metric-learn wraps
    every failure of a preprocessor in.
    """
    try:
        return check_input(data, preprocessor=estimator.preprocessor_,
                           estimator=estimator, **kwargs)
    except PreprocessorError as error:
        if isinstance(error.__context__, NegativeIndexError):
            raise error.__context__ from None
        raise


# solver='auto' runs the exact phase up to this many triplets (about 1,650
# points at 3 x 10 per point). Its LPs grow with the triplets near the
# margin: on the KEEL ring data (1,400 points, 42,000 triplets, loss 0.47)
# it took 5 s where RDA takes 0.3 s, and nothing bounds it beyond.
EXACT_MAX_TRIPLETS = 50000


class _BaseSCML(MahalanobisMixin):
    """Shared parameters, validation and fitting of the SCML learners.

    Subclasses say how they get triplets and a basis; everything from a
    basis and index triplets onwards is :meth:`_fit_triplets`.
    """

    _tuple_size = 3
    _basis_options = ()
    # Learners that take beta='auto' (choose it on held-out points).
    _auto_beta = False
    # The exact phase and column generation serve one task (an LP); the
    # multi-task learners keep RDA, and have no such parameters.
    solver = "rda"
    max_new_elements = 0

    def __init__(self, beta=1e-5, basis="lda", n_basis=None, gamma=1.0,
                 max_iter=20000, output_iter=250, batch_size=32, tol=1e-3,
                 n_iter_no_change=4, verbose=False, preprocessor=None,
                 random_state=None):
        self.beta = beta
        self.basis = basis
        self.n_basis = n_basis
        self.gamma = gamma
        self.max_iter = max_iter
        self.output_iter = output_iter
        self.batch_size = batch_size
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.verbose = verbose
        self.preprocessor = preprocessor
        self.random_state = random_state

    def _check_params(self):
        if not (self._auto_beta and isinstance(self.beta, str)
                and self.beta == "auto"):
            try:
                check_number(self.beta, "beta", "float", low=0)
            except TypeError:
                if not self._auto_beta:
                    raise
                raise TypeError("beta must be 'auto' or a real number, got "
                                "%r." % (self.beta,)) from None
        if self.solver not in ("auto", "exact", "rda"):
            raise ValueError("solver=%r is not supported: use 'auto', 'exact' "
                             "(RDA, then the exact optimum) or 'rda'." % (
                                 self.solver,))
        check_number(self.max_new_elements, "max_new_elements", "int", low=0)
        if self.max_new_elements and self.solver == "rda":
            raise ValueError("max_new_elements=%d needs solver='exact' or "
                             "'auto': the elements are added by the exact "
                             "phase." % self.max_new_elements)
        check_number(self.gamma, "gamma", "float", low=0, low_inclusive=False)
        check_number(self.n_basis, "n_basis", "int", low=1, allow_none=True)
        check_number(self.max_iter, "max_iter", "int", low=1)
        check_number(self.output_iter, "output_iter", "int", low=1)
        check_number(self.batch_size, "batch_size", "int", low=1)
        check_number(self.tol, "tol", "float", low=0)
        check_number(self.n_iter_no_change, "n_iter_no_change", "int", low=1)
        if isinstance(self.basis, str):
            if self.basis not in self._basis_options:
                raise ValueError(
                    "basis=%r is not supported by %s: use one of %s or an "
                    "array of shape (n_basis, n_features)." % (
                        self.basis, type(self).__name__,
                        ", ".join(repr(o) for o in self._basis_options)))

    def _user_basis(self, n_features):
        """The ``basis`` array, checked, with rows scaled to unit norm."""
        basis = check_array(self.basis, dtype=np.float64, copy=True,
                            input_name="basis")
        if basis.shape[1] != n_features:
            raise ValueError(
                "basis has %d columns but the data has %d features: give an "
                "array of shape (n_basis, %d)." % (basis.shape[1], n_features,
                                                   n_features))
        norms = np.linalg.norm(basis, axis=1)
        if np.any(norms == 0):
            raise ValueError("basis has all-zero rows (%s): every basis row "
                             "must be non-zero." % np.flatnonzero(norms == 0)[:5])
        if self.n_basis is not None and self.n_basis != basis.shape[0]:
            raise ValueError(
                "n_basis=%d does not match the %d rows of the basis array: "
                "leave n_basis=None when passing an array." % (
                    self.n_basis, basis.shape[0]))
        return basis / norms[:, None]

    def _n_basis(self, n_features):
        return (default_n_basis(n_features) if self.n_basis is None
                else int(self.n_basis))

    def _batch_size(self, task_offsets):
        """``batch_size``, at most the triplets of the largest task.

        The solvers draw each batch with replacement, so a larger batch
        only repeats triplets: ``batch_size=100000`` on iris's 4,500
        triplets took 40 to 60 s instead of 0.8 s.
        """
        return int(min(self.batch_size, np.diff(task_offsets).max()))

    def _fit_triplets(self, X, triplets, basis):
        """Learn the weights of ``basis`` on index triplets into ``X``."""
        self.weights_ = self._solve(X, triplets, [0, triplets.shape[0]],
                                    basis)[0]
        self.n_active_basis_ = int(np.count_nonzero(self.weights_))
        self.components_ = components_from_weights(self.weights_, self.basis_)
        return self

    def _solve(self, X, triplets, task_offsets, basis):
        """Run RDA on index triplets grouped by task; return W (T, K).

        Task ``t`` owns ``triplets[task_offsets[t]:task_offsets[t + 1]]``
        (one task for the global model). Sets ``basis_``, ``n_iter_``,
        ``objective_`` and ``objective_history_``, and warns when the solver
        did not converge or kept no element. ``tol`` is per task: the
        objective is a sum of one mean hinge per task (``T`` at ``W = 0``),
        so the solver stops on improvements below ``T * tol``. It runs on
        the data at unit scale (:func:`scaled_differences`, with ``beta``
        rescaled to match); ``W`` is in the user's units.

        Raises a ``ValueError`` when the basis is empty: then no direction
        separates any two training points and every learnable distance is 0
        (like scikit-learn's ``VarianceThreshold`` when no feature is left).
        """
        if basis.shape[0] == 0:
            raise no_basis_error(self)
        n_tasks = len(task_offsets) - 1
        # Pairs grouped by task: the objective then computes each task's
        # distances under its own weights only (T times fewer products).
        pairs, triplet_pairs, pair_offsets = pair_index(triplets, task_offsets)
        differences, unit = scaled_differences(X, basis, pairs,
                                               pair_offsets=pair_offsets)
        result = rda(differences, triplet_pairs, task_offsets,
                     beta=self.beta_ * unit ** 2, gamma=self.gamma,
                     batch_size=self._batch_size(task_offsets),
                     max_iter=self.max_iter,
                     eval_every=self.output_iter, tol=n_tasks * self.tol,
                     n_iter_no_change=self.n_iter_no_change,
                     random_state=self._rng, verbose=self.verbose,
                     name=type(self).__name__)
        if self._exact(triplets.shape[0]):
            result, basis = exact_phase(
                X * unit, basis, differences, triplet_pairs, result,
                self.beta_ * unit ** 2, self.max_new_elements, self._rng,
                self.verbose, type(self).__name__)
        self.basis_ = basis
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        self.objective_history_ = np.array(result.history)
        self.dual_gap_ = result.dual_gap
        if not result.converged:
            warnings.warn(
                "%s did not converge in max_iter=%d iterations (objective "
                "still improving by more than tol=%g): increase max_iter or "
                "tol." % (type(self).__name__, self.max_iter, self.tol),
                ConvergenceWarning)
        if not result.weights.any():
            warnings.warn(
                "All basis weights are zero, so every distance is 0: beta=%g "
                "is too large for this data; decrease it, or standardise the "
                "features (the hinge loss has a unit margin, so the useful "
                "beta shrinks with the square of the data's scale)."
                % self.beta_,
                UserWarning)
        return result.weights * unit ** 2

    def _exact(self, n_triplets):
        """Whether the fit takes RDA's result to the exact optimum.

        Under ``'auto'``: for a given beta up to ``EXACT_MAX_TRIPLETS``;
        with ``beta='auto'`` never, since beta was chosen among RDA's models
        (on the breadth datasets the RDA refit erred less than the exact
        one, mean gain over Euclidean 2.00 against 1.88 points, and took a
        fraction of the time).
        """
        if self.solver == "auto":
            return (n_triplets <= EXACT_MAX_TRIPLETS
                    and not (isinstance(self.beta, str) and self.beta == "auto"))
        return self.solver == "exact"

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def transform(self, X):
        """Embed points linearly: ``X @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, or 1-D indices when a ``preprocessor`` was given.

        Returns
        -------
        X_embedded : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self, ["preprocessor_", "components_"])
        return self._check_points(X) @ self.components_.T

    def _check_points(self, X):
        """Validate points (or indices, with a ``preprocessor``) after fit."""
        if self.preprocessor_ is None:
            check_formed_points(self, X)
            return validate_data(self, X, reset=False)
        X = checked_input(self, X, type_of_inputs="classic")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                "X has %d features, but %s is expecting %d features as "
                "input." % (X.shape[1], type(self).__name__,
                            self.n_features_in_))
        return X

    def _check_preprocessor(self):
        super()._check_preprocessor()
        if isinstance(self.preprocessor_, ArrayIndexer):
            self.preprocessor_ = PointIndexer(self.preprocessor_.X)

    def _start_fit(self):
        self._check_params()
        self._check_preprocessor()
        self._rng = check_random_state(self.random_state)
        # 'auto' is resolved by the fit (see _FromLabels.fit).
        self.beta_ = None if isinstance(self.beta, str) else float(self.beta)


def _replace_parameter(doc, name, text):
    """``doc`` with the numpydoc entry of parameter ``name`` replaced."""
    return re.sub(r"(?ms)^    %s : .*?(?=^    \w+ : |\Z)" % name,
                  lambda match: text, doc, count=1)


_COMMON_PARAMETERS = r"""
    beta : float, default=1e-5
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. The hinge loss has a unit
        margin, so the useful range depends on the scale of the data: the
        default suits standardised features, and data scaled by ``s`` give
        the same metric with ``beta * s**2``.
    n_basis : int, default=None
        Number of basis elements to generate (ignored for an array
        ``basis``). ``None`` uses ``clip(20 * n_features, 400, 1000)``, the
        paper's sizes. Fewer are produced when the data cannot give that
        many distinct regions or regions repeat an element (each element
        is kept once).
    gamma : float, default=1.0
        RDA step parameter :math:`\gamma` (> 0): the iterate is
        :math:`w_{t+1} = \max(0, -(\sqrt{t}/\gamma)(\bar g_t + \beta))`,
        taken in units where the triplet vectors :math:`g` have mean
        absolute entry one, so the default suits data of any scale. Larger
        is slower and steadier; much smaller overshoots and gives noisy,
        less sparse iterates. (The paper's 5e-3 was in the units of its
        unit-norm data, about 1 to 10 in these.)
    max_iter : int, default=20000
        Maximum number of stochastic iterations.
    output_iter : int, default=250
        Iterations between two evaluations of the full objective (for the
        stopping rule, the best iterate and the ``verbose`` table).
    batch_size : int, default=32
        Triplets per iteration (at most the number of triplets).
    tol : float, default=1e-3
        Improvement of the best objective below which an evaluation counts
        as no progress (absolute: the objective is 1 at ``w = 0``).
    n_iter_no_change : int, default=4
        Evaluations in a row without progress that stop the solver.
    verbose : bool, default=False
        Print a progress table (iteration, objective, active elements, time).
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Turns indices into points, as in metric-learn.
    random_state : int, RandomState instance or None, default=None
        Seeds the regions of the basis and the sampling of triplets."""

_SOLVER_PARAMETERS = r"""
    solver : {'auto', 'exact', 'rda'}, default='auto'
        ``'rda'`` is the paper's regularized dual averaging. ``'exact'``
        then takes its result to the exact optimum of the same problem (a
        linear program, solved on a working set of triplets and elements
        and certified by the duality gap ``dual_gap_``; beyond the paper).
        ``'auto'`` is ``'exact'`` up to 50,000 triplets (about 1,650
        points at 3 x 10 triplets per point) and ``'rda'`` beyond, where
        the exact phase may take minutes; with ``beta='auto'`` it is
        ``'rda'``, the solver of the models beta was chosen among.
    max_new_elements : int, default=0
        Column generation in the exact phase: up to this many elements are
        added to the basis, the steepest first (top eigenvectors of the
        negative gradient of the loss in :math:`M`), until none would lower
        the objective. 0 keeps the paper's fixed basis."""

_AUTO_BETA_PARAMETERS = _replace_parameter(_COMMON_PARAMETERS, "beta", r"""    beta : 'auto' or float, default='auto'
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. ``'auto'`` chooses it on a
        stratified fifth of the training points held out: the rest (1,000
        points at most) is fitted for seven values from :math:`10^{-0.5}`
        to :math:`10^{-5}` times the smallest beta that keeps no element,
        and the least held-out 3-NN error wins (ties: the least held-out
        triplet error, then the larger beta); the model is then fitted on
        every point at that value (see :class:`SCML_SupervisedCV` for
        k-fold cross-validation). The useful value moves by orders of
        magnitude between datasets, and the rule is scale-free. A float is
        used as given (the paper's value is ``1e-5``, for standardised
        features; data scaled by ``s`` give the same metric with
        ``beta * s**2``).
""")

_AUTO_BETA_ATTRIBUTES = r"""
    beta_path_, validation_error_path_ : ndarray of shape (n_betas,)
        With ``beta='auto'``: the values tried and their held-out 3-NN
        error (empty where too few points per class could be held out;
        ``beta_`` is then 1e-5)."""

_COMMON_ATTRIBUTES = r"""
    components_ : ndarray of shape (n_components, n_features)
        Linear map :math:`L` with :math:`M = L^T L`: the rows
        :math:`\sqrt{w_k} b_k` of the active elements when there are fewer
        than ``n_features`` of them, otherwise the symmetric square root of
        :math:`M`.
    weights_ : ndarray of shape (n_basis,)
        Learned non-negative weights :math:`w`.
    basis_ : ndarray of shape (n_basis, n_features)
        The unit-norm basis rows :math:`b_k`.
    n_active_basis_ : int
        Number of elements with non-zero weight.
    beta_ : float
        The beta used (``beta``, or the one ``beta='auto'`` chose).
    dual_gap_ : float
        Duality gap of the weights, an upper bound on their distance to the
        optimal objective, where the exact phase ran; else NaN.
    n_iter_ : int
        Stochastic iterations run.
    objective_ : float
        Objective value of the returned weights.
    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, objective, n_active)`` at every evaluation.
    n_features_in_ : int
        Number of features seen during fit."""


class SCML(_BaseSCML, _TripletsClassifierMixin):
    __doc__ = r"""Sparse Compositional Metric Learning from triplets (SCML-Global).

    Learns :math:`M = \sum_k w_k b_k b_k^T` with sparse :math:`w \ge 0` so
    that for each triplet ``(a, b, c)`` the point ``b`` is closer to ``a``
    than ``c`` is, by a unit margin (Shi, Bellet and Sha, AAAI 2014,
    eq. (2)). Use it for weak supervision ("a is closer to b than to c",
    e.g. from user feedback); with labels, use :class:`SCML_Supervised`.

    Parameters
    ----------
    basis : {'triplet_diffs'} or array-like of shape (n_basis, n_features), default='triplet_diffs'
        ``'triplet_diffs'`` builds locally discriminative elements from the
        triplets themselves: the anchors are divided into regions by
        k-means and, in each, the directions that most stretch
        anchor-impostor differences relative to anchor-target differences
        are kept (a local Fisher analysis in which triplets play the role of
        labels). An array is used as given, its rows scaled to unit norm.
    """ + _COMMON_PARAMETERS + _SOLVER_PARAMETERS + """

    Attributes
    ----------""" + _COMMON_ATTRIBUTES + """

    See Also
    --------
    SCML_Supervised : the same model learned from class labels.
    metric_learn.SCML : metric-learn's implementation.

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml import SCML
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(60, 3) * [1.0, 1.0, 5.0]
    >>> # b is closer to a than c is, along the first two features only
    >>> idx = rng.randint(0, 60, size=(300, 3))
    >>> d = ((X[idx[:, [0]]] - X[idx[:, 1:]])[..., :2] ** 2).sum(-1)
    >>> idx[d[:, 0] > d[:, 1], 1:] = idx[d[:, 0] > d[:, 1], 1:][:, ::-1]
    >>> scml = SCML(random_state=0).fit(X[idx])
    >>> bool(scml.score(X[idx]) > 0.9)
    True
    """

    _basis_options = ("triplet_diffs",)

    def __init__(self, beta=1e-5, basis="triplet_diffs", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto",
                 max_new_elements=0, verbose=False, preprocessor=None,
                 random_state=None):
        self.solver = solver
        self.max_new_elements = max_new_elements
        super().__init__(
            beta=beta, basis=basis, n_basis=n_basis, gamma=gamma,
            max_iter=max_iter, output_iter=output_iter, batch_size=batch_size,
            tol=tol, n_iter_no_change=n_iter_no_change, verbose=verbose,
            preprocessor=preprocessor, random_state=random_state)

    @single_threaded
    def fit(self, triplets):
        """Learn the metric from triplets.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
            Triplets of points, or of indices when a ``preprocessor`` is
            given, ordered so that ``d(t[0], t[1]) < d(t[0], t[2])`` is
            wanted.

        Returns
        -------
        self : SCML
        """
        self._start_fit()
        indices, X = validate_triplets(self, triplets)
        if isinstance(self.basis, str):
            basis = triplet_basis(X, indices, self._n_basis(X.shape[1]),
                                  random_state=self._rng)
        else:
            basis = self._user_basis(X.shape[1])
        return self._fit_triplets(X, indices, basis)

    def __sklearn_tags__(self):
        # metric-learn's mixin order hides ClassifierMixin's tags, so
        # is_classifier() and classification scorers would not see a
        # classifier of triplets.
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.target_tags.required = False
        return tags


class _FromLabels:
    """Checks, tags and ``fit`` of the learners that build everything from labels.

    Mixed in before :class:`_BaseSCML` by the supervised global and local
    learners, which differ only in :meth:`_fit_triplets`, and by the
    supervised multi-task learner, which has its own ``fit``.
    """

    _basis_options = ("lda",)

    def _choose_beta(self, X, y):
        return choose_beta(self, X, y)

    def _check_params(self):
        super()._check_params()
        check_number(self.k_genuine, "k_genuine", "int", low=1)
        check_number(self.k_impostor, "k_impostor", "int", low=1)

    def __sklearn_tags__(self):
        # y is required: scikit-learn then checks fit(X, None) fails clearly.
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    @single_threaded
    def fit(self, X, y):
        """Build triplets and a basis from the labels, then learn the metric.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points (or 1-D indices with a ``preprocessor``).
        y : array-like of shape (n_samples,)
            Class labels, at least two classes.

        Returns
        -------
        self
        """
        self._start_fit()
        X, y = validate_supervised(self, X, y)
        if self.beta_ is None:
            (self.beta_, self.beta_path_,
             self.validation_error_path_) = self._choose_beta(X, y)
        triplets = triplets_from_labels(X, y, self.k_genuine,
                                        self.k_impostor)
        return self._fit_triplets(X, triplets, label_basis(self, X, y))


class SCML_Supervised(ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                      _FromLabels, _BaseSCML):
    __doc__ = r"""Sparse Compositional Metric Learning from class labels (SCML-Global).

    Builds triplets from the labels (for every point, its ``k_genuine``
    nearest same-class neighbours and ``k_impostor`` nearest other-class
    neighbours, all combinations) and a local discriminative basis (Fisher
    discriminant analysis in k-means regions at two neighbourhood scales),
    then learns a sparse non-negative combination
    :math:`M = \sum_k w_k b_k b_k^T` by regularized dual averaging
    (Shi, Bellet and Sha, AAAI 2014).

    Parameters
    ----------
    k_genuine : int, default=3
        Same-class neighbours ("targets") per point.
    k_impostor : int, default=10
        Other-class neighbours ("impostors") per point.
    basis : {'lda'} or array-like of shape (n_basis, n_features), default='lda'
        ``'lda'`` is the paper's local discriminative basis: for each
        k-means region centre and each scale ``J`` (10 and 20 points per
        class, 20 and 50 when ``n_features > 50``), the top
        ``n_classes - 1`` Fisher discriminant directions of the ``J``
        nearest points of every class. An array is used as given, its rows
        scaled to unit norm.
    """ + _AUTO_BETA_PARAMETERS + _SOLVER_PARAMETERS + """

    Attributes
    ----------""" + _COMMON_ATTRIBUTES + _AUTO_BETA_ATTRIBUTES + """

    See Also
    --------
    SCML : the same model learned from triplets.
    metric_learn.SCML_Supervised : metric-learn's implementation.

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import SCML_Supervised
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> scml = SCML_Supervised(random_state=0).fit(X, y)
    >>> scml.get_mahalanobis_matrix().shape
    (13, 13)
    >>> bool(scml.n_active_basis_ < scml.basis_.shape[0])
    True
    """

    _auto_beta = True

    def __init__(self, k_genuine=3, k_impostor=10, beta="auto", basis="lda",
                 n_basis=None, gamma=1.0, max_iter=20000, output_iter=250,
                 batch_size=32, tol=1e-3, n_iter_no_change=4, solver="auto",
                 max_new_elements=0, verbose=False, preprocessor=None,
                 random_state=None):
        self.k_genuine = k_genuine
        self.k_impostor = k_impostor
        self.solver = solver
        self.max_new_elements = max_new_elements
        super().__init__(
            beta=beta, basis=basis, n_basis=n_basis, gamma=gamma,
            max_iter=max_iter, output_iter=output_iter, batch_size=batch_size,
            tol=tol, n_iter_no_change=n_iter_no_change, verbose=verbose,
            preprocessor=preprocessor, random_state=random_state)


def label_basis(estimator, X, y, random_state=None):
    """The ``basis`` of a supervised learner: its array, or built from labels.

    ``'lda'`` is the local discriminative basis (:func:`lda_basis`) of
    ``estimator.n_basis`` elements, seeded by ``random_state`` (default:
    ``estimator._rng``).
    """
    if isinstance(estimator.basis, str):
        return lda_basis(X, y, estimator._n_basis(X.shape[1]),
                         random_state=(estimator._rng if random_state is None
                                       else random_state))
    return estimator._user_basis(X.shape[1])


# beta='auto': the share of the training points held out to choose beta,
# the most points its path is fitted on (the loss is a mean over triplets,
# so beta carries over to more points), and the beta used where no point
# can be held out (too few per class).
VALIDATION_FRACTION = 0.2
MAX_SELECTION_POINTS = 1000
FALLBACK_BETA = 1e-5


def choose_beta(estimator, X, y):
    """``beta='auto'``: the beta whose model does best on held-out points.

    A stratified ``VALIDATION_FRACTION`` of the points is held out; the
    rest (a stratified ``MAX_SELECTION_POINTS`` of them at most) is fitted
    along the grid of :func:`~metric_learn_scml._selection.beta_grid`
    (relative to its own ``beta_max``) and scored on the held-out points
    (:func:`held_out_path_scores`, :func:`best_beta`). Where no class can
    spare a point, or the held-out part could not contain every class,
    ``FALLBACK_BETA`` is used and the path is empty.

    Returns
    -------
    beta : float
    betas, errors : ndarray of shape (n_betas,)
        The grid and the held-out error (fraction) at each value.
    """
    classes, counts = np.unique(y, return_counts=True)
    n_held = int(np.ceil(VALIDATION_FRACTION * y.shape[0]))
    empty = (FALLBACK_BETA, np.zeros(0), np.zeros(0))
    if (counts.min() < 2 or n_held < classes.shape[0]
            or y.shape[0] - n_held < 2 * classes.shape[0]):
        return empty
    fit, held = train_test_split(np.arange(y.shape[0]), test_size=n_held,
                                 stratify=y, random_state=estimator._rng)
    # (A stratified cut must leave out at least a point of every class.)
    if fit.shape[0] >= MAX_SELECTION_POINTS + classes.shape[0]:
        fit = train_test_split(fit, train_size=MAX_SELECTION_POINTS,
                               stratify=y[fit], random_state=estimator._rng)[0]
    scores = held_out_path_scores(estimator, X, y, fit, held,
                                  random_state=estimator._rng)
    if scores is None:
        return empty
    betas, errors, triplet_errors = scores
    return best_beta(betas, errors, triplet_errors), betas, errors


def held_out_path_scores(estimator, X, y, fit, held, betas=None,
                         random_state=None):
    """Fit ``X[fit]`` along ``betas`` by RDA and score on ``X[held]``.

    ``betas`` defaults to :func:`~metric_learn_scml._selection.beta_grid`
    relative to the ``beta_max`` of the fit part. The basis, triplets and
    solver settings are the estimator's.

    Returns
    -------
    (betas, errors, triplet_errors) or None
        The held-out 3-NN and triplet errors at each beta
        (:func:`~metric_learn_scml._selection.held_out_scores`); None where
        the fit part gives no basis element or no beta keeps one.
    """
    rng = check_random_state(random_state)
    basis = label_basis(estimator, X[fit], y[fit], random_state=rng)
    if basis.shape[0] == 0:
        return None
    path = LabelledPath(X[fit], y[fit], basis, estimator.k_genuine,
                        estimator.k_impostor, rng)
    if betas is None:
        largest = path.beta_max()
        if not largest > 0:
            return None
        betas = beta_grid(largest)
    weights = path.solve_rda(
        betas, gamma=estimator.gamma,
        batch_size=estimator._batch_size([0, path.triplet_pairs.shape[0]]),
        max_iter=estimator.max_iter, eval_every=estimator.output_iter,
        tol=estimator.tol, n_iter_no_change=estimator.n_iter_no_change,
        random_state=rng)
    triplets = held_out_triplets(X[fit], y[fit], X[held], y[held],
                                 estimator.k_genuine, estimator.k_impostor)
    return (np.asarray(betas),) + held_out_scores(
        weights, basis, X[fit], y[fit], X[held], y[held], triplets)


def best_beta(betas, errors, triplet_errors):
    """The least 3-NN error; among ties the least triplet error, then the
    largest beta (the fewest elements)."""
    return float(betas[np.lexsort((np.arange(len(betas)), triplet_errors,
                                   errors))[0]])


# The range of feature magnitudes accepted. The solvers run on the data
# brought to unit scale (see unit_scale), so their float32 tables neither
# overflow nor underflow (before, iris at 1e150 overflowed them and
# wine at 1e-20 underflowed them). The basis is built from squares at the
# user's scale, which overflow beyond 1e154 (iris at 1e200 gave a
# LinAlgError) and underflow below 1e-154 (an empty basis at 1e-200), and
# the learned metric scales as 1 / scale**2: within 1e-100 to 1e100 its
# entries stay within 1e200 of those learned on standardised data.
MAX_ABS_VALUE = 1e100
MIN_ABS_VALUE = 1e-100


def no_basis_error(estimator):
    """The ``ValueError`` of a fit whose data no direction separates."""
    return ValueError(
        "%s found no basis element: no direction separates any two "
        "training points, because every feature is constant on the "
        "training data (or every triplet's points coincide), so every "
        "learnable distance is 0. fit needs training points that "
        "differ in at least one feature." % type(estimator).__name__)


def check_scale(estimator, X):
    """Raise a ``ValueError`` naming the fix when ``X`` cannot be learned on.

    Identical points (every feature constant) leave no direction to learn:
    the error of an empty basis, raised before the basis is built from
    their rounding noise. Features beyond ``MAX_ABS_VALUE`` or all below
    ``MIN_ABS_VALUE`` in absolute value are out of range.
    SCML is equivariant to the scale of the data (``X * s`` with ``beta *
    s**2`` is the same model), so rescaling loses nothing.
    """
    if (X == X[:1]).all():
        raise no_basis_error(estimator)
    largest = largest_magnitude(X)
    if largest > MAX_ABS_VALUE or largest < MIN_ABS_VALUE:
        large = largest > MAX_ABS_VALUE
        raise ValueError(
            "%s got features %s %.3g in absolute value: at that scale the "
            "squared distances it computes %s. Standardise the features "
            "(e.g. with sklearn.preprocessing.StandardScaler) or %s them "
            "by a constant; SCML learns the same metric up to scale (with "
            "beta scaled by the square of the factor)." % (
                type(estimator).__name__, "up to" if large else "of at most",
                largest, "overflow" if large else "underflow",
                "divide" if large else "multiply"))


def validate_triplets(estimator, triplets):
    """Check triplets for a weakly supervised learner; set ``n_features_in_``.

    Triplets of points, or of indices with a ``preprocessor``, go through
    metric-learn's ``check_input`` and become index triplets into their
    distinct points (``triplets_to_indices``), which :func:`check_scale`
    checks. Returns ``(indices, X)``.
    """
    triplets = checked_input(estimator, triplets, type_of_inputs="tuples",
                             tuple_size=3, dtype=np.float64)
    indices, X = triplets_to_indices(triplets)
    check_scale(estimator, X)
    estimator.n_features_in_ = X.shape[1]
    return indices, X


def check_formed_points(estimator, X):
    """Raise metric-learn's error for points that are not a 2-D array.

    Without a ``preprocessor``, scikit-learn's ``validate_data`` would say
    "Expected 2D array"; metric-learn's learners say "2D array of formed
    points expected by <Estimator>. Found 1D array instead: ...", which
    metric-learn's API tests check, so its own ``check_input`` raises here.
    """
    if issparse(X):
        return
    ndim = getattr(X, "ndim", None)
    if ndim is None:
        try:
            ndim = np.asarray(X).ndim
        except (TypeError, ValueError):
            return  # ragged nested sequences: validate_data says so
    if ndim != 2:
        check_input(X, type_of_inputs="classic", estimator=estimator)


def validate_supervised(estimator, X, y):
    """Check ``(X, y)`` for a supervised learner; set ``n_features_in_``.

    Points go through scikit-learn's ``validate_data`` (finite, 2-D, at
    least two samples, converted to float64) and :func:`check_scale`; with
    a ``preprocessor``, metric-learn's ``check_input`` first turns indices
    into points. Labels must be class labels (``type_of_target`` binary or
    multiclass, not continuous values) of at least two classes.
    """
    if y is None:
        # scikit-learn's words, which its check_requires_y_none looks for.
        raise ValueError(
            "This %s estimator requires y to be passed, but the target y is "
            "None: pass the class labels of X as y." % type(estimator).__name__)
    if estimator.preprocessor_ is None:
        check_formed_points(estimator, X)
        X, y = validate_data(estimator, X, y, dtype=np.float64,
                             ensure_min_samples=2)
    else:
        X, y = checked_input(estimator, X, y=y, type_of_inputs="classic",
                             dtype=np.float64, ensure_min_samples=2)
        estimator.n_features_in_ = X.shape[1]
    kind = type_of_target(y, input_name="y")
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            "Unknown label type %r for y: %s builds its triplets from "
            "classes, so y must hold class labels. Bin a continuous target "
            "first (e.g. with sklearn.preprocessing.KBinsDiscretizer), or give "
            "SCML triplets directly." % (kind, type(estimator).__name__))
    check_scale(estimator, X)
    if np.unique(y).shape[0] < 2:
        raise ValueError(
            "y has a single class (%r): %s needs at least two classes to "
            "build triplet constraints." % (y[0], type(estimator).__name__))
    return X, y
