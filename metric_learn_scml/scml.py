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

from metric_learn.base_metric import _TripletsClassifierMixin
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin

from ._defaults import DEFAULT_MEMORY
from ._base import _LinearMetric, _SCMLEstimator
from ._pairs import _PairsAndTriplets
from ._pipelines import _IncrementalFromLabels
from ._docs import (AUTO_BETA_ATTRIBUTES, COMMON, LINEAR_ATTRIBUTES, SOLVER,
                    attributes, fill, parameters)
from ._constraints import Interval, Options


class _GlobalSCML(ClassNamePrefixFeaturesOutMixin, _LinearMetric,
                  _SCMLEstimator):
    """SCML-Global: one metric, ``components_``, for all the data."""


class SCML(_PairsAndTriplets, _GlobalSCML, _TripletsClassifierMixin):
    __doc__ = r"""Sparse Compositional Metric Learning from triplets (SCML-Global).

    Learns :math:`M = \sum_k w_k b_k b_k^T` with sparse :math:`w \ge 0` so
    that for each triplet ``(a, b, c)`` the point ``b`` is closer to ``a``
    than ``c`` is, by a unit margin (Shi, Bellet and Sha, AAAI 2014,
    eq. (2)). Use it for weak supervision ("a is closer to b than to c",
    e.g. from user feedback); with labels, use :class:`SCML_Supervised`.
    It also learns from metric-learn's labelled pairs (``fit(pairs, y)``,
    ``y`` +1 for similar and -1 for dissimilar, as ITML, MMC and SDML take
    them), through the triplets that a similar and a dissimilar pair
    sharing a point make and, for pairs that share no point, quadruplets:
    a similar pair should be closer than a dissimilar pair by the unit
    margin (both beyond the paper; see :meth:`fit`). It is then a
    classifier of pairs as those learners are (``predict``,
    ``decision_function``, ``score`` and ``calibrate_threshold`` on pairs,
    ``threshold_``), and stays a classifier of triplets: the methods take
    either, told apart by the tuple size.

    Parameters
    ----------
    basis : {'triplet_diffs'} or array-like of shape (n_basis, n_features), default='triplet_diffs'
        ``'triplet_diffs'`` builds locally discriminative elements from the
        triplets themselves: the anchors are divided into regions by
        k-means and, in each, the directions that most stretch
        anchor-impostor differences relative to anchor-target differences
        are kept (a local Fisher analysis in which triplets play the role of
        labels). An array is used as given, its rows scaled to unit norm.
    """ + parameters("beta", *COMMON, *SOLVER, "n_components") + """

    Attributes
    ----------""" + attributes(*LINEAR_ATTRIBUTES) + """
    threshold_ : float
        After a fit on pairs: the distance at or below which :meth:`predict`
        calls a pair similar, calibrated on the training pairs for the best
        accuracy (:meth:`calibrate_threshold`; :meth:`set_threshold` sets
        it). Absent after a fit on triplets.

    See Also
    --------
    SCML_Supervised : the same model learned from class labels.
    metric_learn.ITML, metric_learn.MMC : metric-learn's pair learners.
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

    def __init__(self, beta=1e-5, basis="triplet_diffs", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto", verbose=False,
                 preprocessor=None, random_state=None, n_components=None):
        self.beta = beta
        self.basis = basis
        self.n_basis = n_basis
        self.gamma = gamma
        self.max_iter = max_iter
        self.output_iter = output_iter
        self.batch_size = batch_size
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.solver = solver
        self.verbose = verbose
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.n_components = n_components


class SCML_Supervised(TransformerMixin, _IncrementalFromLabels, _GlobalSCML):
    __doc__ = fill(r"""Sparse Compositional Metric Learning from class labels (SCML-Global).

    Builds triplets from the labels (for every point, its ``k_genuine``
    nearest same-class neighbours and ``k_impostor`` nearest other-class
    neighbours, all combinations, searched exactly; beyond {{MAX_ANCHORS}}
    points, those of a stratified random {{MAX_ANCHORS}} of them, as
    :func:`~metric_learn_scml.triplets_from_labels` mines them) and a local
    discriminative basis (Fisher discriminant analysis in k-means regions
    at two neighbourhood scales), then learns a sparse non-negative combination
    :math:`M = \sum_k w_k b_k b_k^T` by regularized dual averaging
    (Shi, Bellet and Sha, AAAI 2014).

    Parameters
    ----------
    k_genuine : int, default=3
        Same-class neighbours ("targets") per point.
    k_impostor : int, default=10
        Other-class neighbours ("impostors") per point.
    basis : {'lda', 'triplet_diffs'} or array-like of shape (n_basis, n_features), default='lda'
        ``'lda'`` is the paper's local discriminative basis: for each
        k-means region centre and each scale ``J`` (10 and 20 points per
        class, 20 and 50 when ``n_features > 50``), the top
        ``n_classes - 1`` Fisher discriminant directions of the ``J``
        nearest points of every class. ``'triplet_diffs'`` builds the
        basis of :class:`SCML` from the triplets mined from the labels
        (as metric-learn's ``SCML_Supervised`` accepts it). An array is
        used as given, its rows scaled to unit norm.
    """) + parameters("beta:auto", *COMMON, *SOLVER, "partial_fit_memory",
                     "n_components") + """

    Attributes
    ----------""" + attributes(*LINEAR_ATTRIBUTES, *AUTO_BETA_ATTRIBUTES) + """

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

    _parameter_constraints = {
        "beta": [Options("auto"), Interval("float", low=0)],
    }
    # Named here so that set_output wraps it: scikit-learn wraps only the
    # methods a TransformerMixin subclass defines itself.
    transform = _LinearMetric.transform

    def __init__(self, k_genuine=3, k_impostor=10, beta="auto", basis="lda",
                 n_basis=None, gamma=1.0, max_iter=20000, output_iter=250,
                 batch_size=32, tol=1e-3, n_iter_no_change=4, solver="auto",
                 partial_fit_memory=DEFAULT_MEMORY,
                 verbose=False, preprocessor=None, random_state=None,
                 n_components=None):
        self.k_genuine = k_genuine
        self.k_impostor = k_impostor
        self.beta = beta
        self.basis = basis
        self.n_basis = n_basis
        self.gamma = gamma
        self.max_iter = max_iter
        self.output_iter = output_iter
        self.batch_size = batch_size
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.solver = solver
        self.partial_fit_memory = partial_fit_memory
        self.verbose = verbose
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.n_components = n_components
