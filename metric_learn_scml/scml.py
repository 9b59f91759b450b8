r"""SCML-Global: one Mahalanobis metric as a sparse combination of rank-one elements.

Shi, Bellet and Sha, *Sparse Compositional Metric Learning*, AAAI 2014,
section "Global Metric Learning". Given a basis :math:`B` of unit rows
:math:`b_k` and triplet constraints :math:`C`, SCML-Global solves

.. math::

    \min_{w \ge 0}\; \frac{1}{|C|} \sum_{(i,j,k) \in C}
    \big[1 + d_w(x_i, x_j) - d_w(x_i, x_k)\big]_+ + \beta \|w\|_1,
    \qquad d_w(x, x') = (x - x')^T \Big(\sum_k w_k b_k b_k^T\Big) (x - x'),

by regularized dual averaging (:mod:`metric_learn_scml._solvers`).

:class:`SCML` also learns from metric-learn's labelled pairs, independent
ones as quadruplets, and is then a pair classifier
(:class:`_PairsAndTriplets`, on the triplet learner of :mod:`._pipelines`).
:class:`SCML_SupervisedCV` is :class:`SCML_Supervised` with beta chosen by
cross-validation on the path (:mod:`.path`), as ``LassoCV`` beside
``Lasso``.
"""

import functools
import warnings

import numpy as np
from joblib import Parallel, delayed
from metric_learn.base_metric import (_PairsClassifierMixin,
                                      _TripletsClassifierMixin)
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ._arrays import centred, plain
from ._base import _LinearMetric, _SCMLEstimator
from ._defaults import BETA_RATIO_HIGH, DEFAULT_MEMORY, fill
from ._driver import (BetaSelection, LabelledPath, best_beta, beta_grid,
                      path_basis, path_scores)
from ._pipelines import _IncrementalFromLabels, _IncrementalFromTriplets
from ._validation import (HasMethods, Interval, IterableOf, Options,
                          check_pair_labels, check_tuples, checked_input,
                          is_pairs, keep_parameters, single_threaded,
                          validate_value)
from .path import GRID_CONSTRAINTS, check_betas, checked_beta_max, cv_splits


class _PairsAndTriplets(_IncrementalFromTriplets):
    """A learner of triplets that is also a classifier of pairs, as
    metric-learn's pair learners (ITML, MMC, SDML) are.

    ``fit(pairs, y)`` learns from independent pairs too (quadruplets,
    :func:`._triplets.quadruplets_from_pairs`) and sets ``threshold_`` by
    calibrating on the training pairs; ``predict``, ``decision_function``
    and ``score`` take pairs or triplets, told apart by the tuple size (2
    or 3). The pair methods are metric-learn's own
    (``_PairsClassifierMixin``), called on this learner, not copies.
    """

    # pair_triplets: the pairs that form no triplet give quadruplets.
    _independent_pairs = True

    @single_threaded
    def fit(self, triplets, y=None):
        """Learn the metric from triplets, or from labelled pairs.

        Pairs are metric-learn's format for ITML, MMC and SDML: pairs of
        points, or of indices with a ``preprocessor``, with ``y`` +1
        (similar) or -1 (dissimilar). Beyond the paper, a similar pair
        ``(a, b)`` and a dissimilar pair ``(a, c)`` that share the point
        ``a`` give the triplet ``(a, b, c)`` (at most 30 per point), and
        each pair that forms no such triplet (independent pairs, each of
        two points of its own, as in face verification) is compared with
        10 pairs of the other kind as a quadruplet: the similar pair
        ``(a, b)`` should be closer than the dissimilar pair ``(c, d)`` by
        the unit margin, :math:`[1 + d_w(a, b) - d_w(c, d)]_+`, the
        triplet's hinge with a fourth point. The pairs of the other kind
        are dealt out in a random order (``random_state``), so each is
        used about equally often. The solvers, the exact phase and its
        certificate are those of triplets. After a fit on pairs,
        ``threshold_`` is calibrated on them for the best accuracy
        (:meth:`calibrate_threshold`), as metric-learn's pair learners do.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3), or pairs of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Triplets of points, or of indices when a ``preprocessor`` is
            given, ordered so that ``d(t[0], t[1]) < d(t[0], t[2])`` is
            wanted; or pairs of points (of indices with a ``preprocessor``),
            at least 2 of each kind.
        y : None, or array-like of shape (n_pairs,) for pairs
            For triplets, ignored: the order within each triplet is the
            supervision (present so that ``Pipeline``, which passes ``y``,
            can fit it). For pairs, +1 (similar) or -1 (dissimilar).

        Returns
        -------
        self
        """
        super().fit(triplets, y)
        if is_pairs(triplets):
            self.calibrate_threshold(triplets, y)
        return self

    def partial_fit(self, triplets, y=None):
        """Learn from one more batch of triplets or labelled pairs.

        As :meth:`fit` builds its constraints, from this batch alone; one
        epoch of RDA steps from the running state, as described for
        learners of triplets (no exact phase). Each batch of pairs
        calibrates ``threshold_`` anew on its own pairs, so that the
        threshold follows the metric; a batch of triplets drops it, as
        :meth:`fit` on triplets does (:meth:`calibrate_threshold` sets it
        again). A later batch that gives no constraint (e.g. pairs of one
        kind) leaves the model unchanged, with a warning.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3), or pairs of shape (n_pairs, 2, n_features) or (n_pairs, 2)
        y : None, or array-like of shape (n_pairs,) for pairs
            Ignored for triplets; +1 (similar) or -1 (dissimilar) for pairs.

        Returns
        -------
        self
        """
        super().partial_fit(triplets, y)
        # (A batch of one kind of pair taught nothing, and would put the
        # threshold past every pair.)
        if is_pairs(triplets) and np.unique(np.asarray(y)).shape[0] == 2:
            self.calibrate_threshold(triplets, y)
        elif not is_pairs(triplets):
            # The metric moved, and no pair says where the threshold went.
            vars(self).pop("threshold_", None)
        return self

    def decision_function(self, tuples):
        """Minus the distance of each pair, or ``d(a, c) - d(a, b)`` of each
        triplet: larger for the more similar pair, and positive for a
        triplet whose order is kept (metric-learn's pair and triplet
        learners' decision functions).

        Parameters
        ----------
        tuples : array-like of shape (n_tuples, 2 or 3, n_features) or \
(n_tuples, 2 or 3)
            Pairs or triplets of points (of indices with a
            ``preprocessor``).

        Returns
        -------
        scores : ndarray of shape (n_tuples,)
        """
        if is_pairs(tuples):
            check_is_fitted(self)
            return self.pair_score(check_tuples(self, tuples, 2))
        return super().decision_function(tuples)

    def predict(self, tuples):
        """+1 for a similar pair (distance at most ``threshold_``) and -1
        otherwise; for triplets, +1 where ``b`` is closer to ``a`` than
        ``c`` is and -1 otherwise.

        Parameters
        ----------
        tuples : array-like of shape (n_tuples, 2 or 3, n_features) or \
(n_tuples, 2 or 3)

        Returns
        -------
        y_pred : ndarray of shape (n_tuples,)
        """
        if is_pairs(tuples):
            self._check_threshold("predict")
            return _PairsClassifierMixin.predict(self, tuples)
        return super().predict(tuples)

    def score(self, tuples, y=None):
        """The ROC AUC of :meth:`decision_function` on labelled pairs, or
        the fraction of triplets whose order the metric keeps.

        On pairs this is metric-learn's score (ITML, MMC and SDML return
        the same AUC), which does not depend on ``threshold_``; the
        accuracy at the threshold is
        ``sklearn.metrics.accuracy_score(y, predict(pairs))``.

        Parameters
        ----------
        tuples : array-like of shape (n_tuples, 2 or 3, n_features) or \
(n_tuples, 2 or 3)
        y : array-like of shape (n_pairs,) for pairs, or None for triplets
            +1 (similar) or -1 (dissimilar) for pairs; ignored for
            triplets (their order is the label).

        Returns
        -------
        score : float
        """
        if is_pairs(tuples):
            check_is_fitted(self)
            self._check_labels("score", y)
            y = column_or_1d(y)
            if np.unique(y).shape[0] < 2:
                # (roc_auc_score would warn and return NaN.)
                raise ValueError(
                    "score(pairs, y) is the ROC AUC, which needs both kinds "
                    "of pair: y holds only %r. Score on pairs of both kinds "
                    "(stratify the folds by y), or use "
                    "accuracy_score(y, predict(pairs))." % (plain(y[0]),))
            return roc_auc_score(y, self.decision_function(tuples))
        return super().score(tuples, y)

    def calibrate_threshold(self, pairs_valid, y_valid, strategy="accuracy",
                            min_rate=None, beta=1.0):
        """Set ``threshold_`` from labelled pairs (metric-learn's method).

        The threshold of the learned distance at which :meth:`predict`
        best classifies ``pairs_valid``, by metric-learn's own
        ``_PairsClassifierMixin.calibrate_threshold`` (as ITML, MMC and
        SDML calibrate theirs). A fit on pairs calls it on the training
        pairs with ``strategy='accuracy'``.

        Parameters
        ----------
        pairs_valid : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Pairs of points, or of indices with a ``preprocessor``.
        y_valid : array-like of shape (n_pairs,)
            +1 (similar) or -1 (dissimilar).
        strategy : {'accuracy', 'f_beta', 'max_tpr', 'max_tnr'}, default='accuracy'
            The best accuracy; the best F-beta score; the highest true
            positive rate with a true negative rate of at least
            ``min_rate``; the highest true negative rate with a true
            positive rate of at least ``min_rate``.
        min_rate : float in [0, 1], default=None
            For ``'max_tpr'`` and ``'max_tnr'``.
        beta : float, default=1.0
            The beta of ``'f_beta'`` (not SCML's ``beta``).

        Returns
        -------
        self
        """
        check_is_fitted(self)
        self._check_labels("calibrate_threshold", y_valid)
        return _PairsClassifierMixin.calibrate_threshold(
            self, check_tuples(self, pairs_valid, 2), y_valid,
            strategy=strategy, min_rate=min_rate, beta=beta)

    def set_threshold(self, threshold):
        """Set ``threshold_``, the distance at or below which :meth:`predict`
        calls a pair similar (metric-learn's method).

        Parameters
        ----------
        threshold : float
            A finite distance. One below every distance calls every pair
            dissimilar; where that is the most accurate choice,
            :meth:`calibrate_threshold` (metric-learn's) sets the smallest
            distance minus 1, which is negative for distances below 1.

        Returns
        -------
        self
        """
        validate_value("threshold", threshold, [Interval("float")])
        return _PairsClassifierMixin.set_threshold(self, threshold)

    _validate_calibration_params = staticmethod(
        _PairsClassifierMixin._validate_calibration_params)

    def _check_labels(self, method, y):
        """Refuse missing pair labels, or labels other than +1 and -1, for
        ``method(pairs, y)``."""
        if y is None:
            raise ValueError(
                "%s(pairs, y) needs the labels of the pairs: y, +1 for a "
                "similar pair and -1 for a dissimilar one." % method)
        check_pair_labels(self, y, first=False)

    def _check_threshold(self, method):
        """Raise, naming the fix, when there is no ``threshold_`` (a model
        fitted on triplets) for ``method`` on pairs."""
        check_is_fitted(self)
        if "threshold_" not in vars(self):
            # AttributeError, as metric-learn's pair learners raise it.
            raise AttributeError(
                "%s.%s(pairs) needs a distance threshold, threshold_, which "
                "a fit on pairs sets; this model was last fitted on "
                "triplets. Call calibrate_threshold(pairs, y) with labelled "
                "pairs (y +1 for similar, -1 for dissimilar) or "
                "set_threshold(distance) first; decision_function(pairs) "
                "needs no threshold." % (
                    type(self).__name__, method))

    def _prepare_inputs(self, X, y=None, type_of_inputs="classic", **kwargs):
        """metric-learn's input check, at the tuples' own size.

        metric-learn's pair methods (:meth:`calibrate_threshold`) check
        their tuples against ``_tuple_size``, which is 3 (triplets) for
        this learner; their callers here have checked that they are pairs.
        """
        if type_of_inputs != "tuples":
            return super()._prepare_inputs(X, y, type_of_inputs, **kwargs)
        return checked_input(self, X, y=y, type_of_inputs="tuples",
                             tuple_size=2 if is_pairs(X) else 3, **kwargs)


class _GlobalSCML(ClassNamePrefixFeaturesOutMixin, _LinearMetric,
                  _SCMLEstimator):
    """SCML-Global: one metric, ``components_``, for all the data."""


class SCML(_PairsAndTriplets, _GlobalSCML, _TripletsClassifierMixin):
    r"""Sparse Compositional Metric Learning from triplets (SCML-Global).

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
    beta : float, default=1e-5
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. The hinge loss has a unit
        margin, so the useful range depends on the scale of the data: the
        default suits standardised features, and data scaled by ``s`` give
        the same metric with ``beta * s**2``.
    basis : {'triplet_diffs'} or array-like of shape (n_basis, n_features), default='triplet_diffs'
        ``'triplet_diffs'`` builds locally discriminative elements from the
        triplets themselves: the anchors are divided into regions by
        k-means and, in each, the directions that most stretch
        anchor-impostor differences relative to anchor-target differences
        are kept (a local Fisher analysis in which triplets play the role of
        labels). An array is used as given, its rows scaled to unit norm.
    n_basis : int, default=None
        Number of basis elements to generate (with an array ``basis``,
        None or its number of rows). ``None`` uses
        ``clip(20 * n_features, 400, 1000)``, the paper's sizes. Fewer are
        produced when the data cannot give that many distinct regions or
        regions repeat an element (each element is kept once).
    gamma, max_iter, output_iter, batch_size, tol, n_iter_no_change, solver, verbose, preprocessor, random_state, n_components
        As in :class:`SCML_Supervised`.

    Attributes
    ----------
    components_, weights_, basis_, n_active_basis_, beta_, dual_gap_, n_iter_, objective_, objective_history_, fit_stages_, n_features_in_
        As in :class:`SCML_Supervised`.
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
    __doc__ = fill(__doc__)

    def __init__(self, beta=1e-5, basis="triplet_diffs", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto", verbose=False,
                 preprocessor=None, random_state=None, n_components=None):
        keep_parameters(self, locals())


class SCML_Supervised(TransformerMixin, _IncrementalFromLabels, _GlobalSCML):
    r"""Sparse Compositional Metric Learning from class labels (SCML-Global).

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
        Same-class neighbours ("targets") per point (all of them where its
        class has fewer; a value larger than any point has warns).
    k_impostor : int or 'auto', default='auto'
        Other-class neighbours ("impostors") per point (likewise): its
        ``k_impostor`` nearest. 'auto': its 10 nearest, except with more
        than 10 classes (``C``) where a class's nearest impostors mostly
        lie closer than its targets: its points then take 10 spread over
        their ``C`` nearest, which reach the targets' scale (beyond the
        paper, see :func:`~metric_learn_scml.triplets_from_labels`).
    beta : 'auto' or float, default='auto'
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. ``'auto'`` chooses it on a
        stratified fifth of the training points held out ({{MAX_VALIDATION_POINTS}} points at
        most are scored): a part of the rest (a fifth of all the points,
        at least {{MIN_SELECTION_POINTS}} and at most {{MAX_SELECTION_POINTS}}, but five
        points a class at least) is fitted for
        {{N_BETAS}} values from :math:`10^{-0.5}`
        to :math:`10^{-5}` times the smallest beta that keeps no element,
        and each is scored by the 3-NN error of the held-out points; the
        next fifth is held out in turn (a stratified 5-fold) until
        {{MIN_SCORED_POINTS}} points are scored, so that small data are scored on every
        point (where a fifth cannot hold a point of every class, the folds
        hold out one point of each in turn). Among the values whose error
        is within {{ERROR_BAND}} paired standard error of the least, the
        smallest (the densest model) wins below {{SPARSE_CHOICE_MIN_POINTS}} training
        points: there a sparser model within the noise is a choice made on
        noise. From {{SPARSE_CHOICE_MIN_POINTS}} points on, the largest (the sparsest)
        wins, the one-standard-error rule: the part is then a fifth of the
        points or fewer, and the best multiple of that smallest beta grows
        with the points fitted. The model is then fitted on every point
        at the same multiple of their own smallest beta that keeps no
        element (which falls as the points grow denser: on 60,000
        generated points, to a third of the value on 1,000 of them; see
        :class:`SCML_SupervisedCV` for k-fold cross-validation). Where
        the Euclidean metric errs less than every value on the held-out
        points, no value keeps an element on the points the choice fits,
        the chosen value keeps no element, or the learned metric maps distinct
        training points onto one (on discrete data), the Euclidean metric
        is returned (``euclidean_fallback_``; beyond the paper: on data
        such as the KEEL titanic and marketing sets the learned metric was
        worse, or zero). The useful value moves by orders of
        magnitude between datasets, and the rule is scale-free (up to
        rounding: the user guide's "Choosing the parameters"). A float is
        used as given (the paper's value is ``1e-5``, for standardised
        features; data scaled by ``s`` give the same metric with
        ``beta * s**2``).
    basis : {'lda', 'triplet_diffs'} or array-like of shape (n_basis, n_features), default='lda'
        ``'lda'`` is the paper's local discriminative basis: for each
        k-means region centre and each scale ``J`` (10 and 20 points per
        class, 20 and 50 when ``n_features > 50``), the top
        ``n_classes - 1`` Fisher discriminant directions of the ``J``
        nearest points of every class. ``'triplet_diffs'`` builds the
        basis of :class:`SCML` from the triplets mined from the labels
        (as metric-learn's ``SCML_Supervised`` accepts it). An array is
        used as given, its rows scaled to unit norm.
    n_basis : int, default=None
        Number of basis elements to generate (with an array ``basis``,
        None or its number of rows). ``None`` uses
        ``clip(20 * n_features, 400, 1000)``, the paper's sizes. Fewer are
        produced when the data cannot give that many distinct regions or
        regions repeat an element (each element is kept once).
    gamma : float, default=1.0
        RDA step parameter :math:`\gamma` (at least 1e-5): the iterate is
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
        Triplets per iteration. A batch of every triplet or more is one
        pass over all of them per iteration (full-batch dual averaging,
        with no draws).
    tol : float, default=1e-3
        Improvement of the best objective below which an evaluation counts
        as no progress (absolute: the objective is 1 at ``w = 0``).
    n_iter_no_change : int, default=4
        Evaluations in a row without progress that stop the solver.
    solver : {'auto', 'exact', 'rda'}, default='auto'
        ``'rda'`` is the paper's regularized dual averaging. ``'exact'``
        then takes its result to the exact optimum of the same problem (a
        linear program, solved on a working set of triplets and elements
        and certified by the duality gap ``dual_gap_``; beyond the paper).
        ``'auto'`` runs the exact phase up to {{EXACT_MAX_TRIPLETS}} triplets (a thirtieth as
        many points at 3 x 10 triplets per point), at a given beta or one chosen
        by ``beta='auto'``, within a budget of {{EXACT_WORK_RATIO}} times RDA's work
        (in entries of triplets x elements: about its time, the same on any
        machine and under any load; below {{EXACT_FLOOR_TRIPLETS}} triplets,
        {{EXACT_MIN_WORK}} entries at least): out of budget, it keeps its best point
        (RDA's, or a better round's) and reports the duality gap in
        ``dual_gap_`` and ``fit_stages_``. It is ``'rda'`` beyond that size and
        at ``beta=0`` (no bound on the weights then keeps the linear program
        well scaled). ``'exact'`` has no budget: the certified optimum,
        whatever it costs. A duality gap above ``{{EXACT_GAP_TOL}}`` times the
        objective after the phase has ended is not a certificate: the fit then
        warns (``ConvergenceWarning``).
    partial_fit_memory : int, default={{DEFAULT_MEMORY:d}}
        The most points ``partial_fit`` remembers: a uniform random sample
        of the points its calls have seen (reservoir sampling; ``fit``'s
        points are not kept), kept with their
        labels and tasks, ``8 * partial_fit_memory * (n_features + 2)``
        bytes at most (20 MB for 50,000 points of 50 features). Each batch's
        points are the anchors of its triplets, their targets and
        impostors the nearest among the batch and the memory (within
        their task; a point seen again counts once), as ``fit`` finds them
        among all its points; and when
        the batch and the memory hold twice the points the basis was
        drawn from, a generated basis is drawn anew from them, its
        elements of zero weight replaced by new ones and new ones added up
        to the size ``fit`` would draw from those points (those in use
        are kept, with their solver state). 0 remembers nothing: each
        batch mines its own triplets and the first batch's basis is kept.
        ``fit`` ignores it.
        Beyond the paper.
    verbose : bool, default=False
        Print what the fit does, stage by stage, with each stage's time:
        the choice of beta (each held-out cut, the values tried, their
        held-out errors and the chosen one), the triplets, the basis, the
        solvers' progress tables (iteration, objective, active elements,
        time), the exact phase and its duality gap, and a fallback to the
        Euclidean metric with its reason. ``fit_stages_`` keeps the same
        record.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Turns indices into points, as in metric-learn.
    random_state : int, RandomState instance or None, default=None
        Seeds the regions of the basis and the sampling of triplets.
    n_components : int, default=None
        Width of the embedding ``transform`` gives. ``None`` keeps the
        learned metric whole: one row of ``components_`` per active element
        when fewer than ``n_features`` are active (so the width depends on
        the data, as in metric-learn's SCML), ``n_features`` otherwise. An
        int ``k`` (at most ``n_features``) keeps the top ``k``
        eigen-directions of :math:`M`, each scaled by the square root of
        its eigenvalue, as scikit-learn's ``NeighborhoodComponentsAnalysis``
        and metric-learn's ``components_from_metric``: ``transform`` then
        has exactly ``k`` columns, the last ones zero where :math:`M` has
        rank below ``k``, and ``get_mahalanobis_matrix()`` is
        :math:`L^T L`, the rank-``k`` truncation of :math:`M`, which every
        distance then uses. The weights, ``beta`` and the Euclidean
        fallback are those of the whole metric (the fallback, with equal
        eigenvalues, keeps ``k`` coordinate axes). Beyond the paper.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Linear map :math:`L` with :math:`M = L^T L`: with
        ``n_components=None``, the rows :math:`\sqrt{w_k} b_k` of the
        active elements when there are fewer than ``n_features`` of them,
        otherwise the symmetric square root of :math:`M`; with an int, the
        top eigen-directions of :math:`M` scaled by the square roots of
        their eigenvalues, in decreasing order.
    weights_ : ndarray of shape (n_basis,)
        Learned non-negative weights :math:`w`.
    basis_ : ndarray of shape (n_basis, n_features)
        The unit-norm basis rows :math:`b_k`.
    n_active_basis_ : int
        Number of elements with non-zero weight.
    beta_ : float
        The beta used (``beta``, or, for the learners that take
        ``beta='auto'``, the one it chose).
    dual_gap_ : float
        Duality gap of the weights, an upper bound on their distance to the
        optimal objective, where the exact phase ran; else NaN.
    n_iter_ : int
        Stochastic iterations run.
    objective_ : float
        Objective value of the returned weights.
    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, objective, n_active)`` at every evaluation.
    fit_stages_ : list of dict
        The stages of the last fit (or ``partial_fit`` call), in order,
        each a dict with ``stage`` (its name), ``seconds`` and what it found
        (counts, the values of beta tried and their held-out errors, the
        rule and the chosen beta, a duality gap, the reason of a fallback;
        for RDA and the exact phase, their ``work`` in triplet-element
        entries, the unit of the phase's ``budget``), as ``verbose`` prints
        them.
    n_features_in_ : int
        Number of features seen during fit.
    beta_path_, validation_error_path_ : ndarray of shape (n_betas,)
        With ``beta='auto'``: the values tried (as the same multiples of
        the smallest beta that keeps no element on all the training
        points; ``fit_stages_`` has the values on the points fitted), and
        the held-out 3-NN error under each (empty where
        too few points per class could be held out, and ``beta_`` is then {{FALLBACK_BETA}}).
    euclidean_fallback_ : bool
        With ``beta='auto'`` and a generated basis: True when the model is
        the Euclidean metric (``basis_`` the coordinate axes, ``weights_``
        ones; ``n_iter_`` 0, ``objective_`` and ``dual_gap_`` NaN),
        because it did better on the held-out points, no beta kept an
        element on the points the choice fitted (with a warning), no basis
        element separated the points the triplets of all the points compare
        (points repeated many times with noisy labels), the chosen beta
        kept no element, or the learned metric mapped distinct training
        points onto one.

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
    __doc__ = fill(__doc__)

    _parameter_constraints = {
        "beta": [Options("auto"), Interval("float", low=0)],
    }
    # Named here so that set_output wraps it: scikit-learn wraps only the
    # methods a TransformerMixin subclass defines itself.
    transform = _LinearMetric.transform

    def __init__(self, k_genuine=3, k_impostor="auto", beta="auto",
                 basis="lda", n_basis=None, gamma=1.0, max_iter=20000,
                 output_iter=250, batch_size=32, tol=1e-3,
                 n_iter_no_change=4, solver="auto",
                 partial_fit_memory=DEFAULT_MEMORY,
                 verbose=False, preprocessor=None, random_state=None,
                 n_components=None):
        keep_parameters(self, locals())


class SCML_SupervisedCV(SCML_Supervised):
    r"""SCML_Supervised with beta chosen by cross-validation (like LassoCV).

    The grid is ``n_betas`` values from ``10**-0.5`` to ``eps`` times
    ``beta_max`` of the whole training set (the smallest beta that keeps no
    element), unless ``betas`` is given. Each split of ``cv`` (by default
    three stratified folds) builds its basis and triplets from its training
    part, fits the grid by RDA, and scores each value by the 3-NN error of
    its test part, point by point; the smallest value (the densest model)
    whose error is within one paired standard error of the least wins, as
    for ``beta='auto'`` below {{SPARSE_CHOICE_MIN_POINTS}} points, at any size (each
    training part is most of the points, not a part whose choice is carried
    over to five times as many). The model is then
    fitted on all the points at that value, as
    ``SCML_Supervised(beta=beta_)`` with the same ``random_state`` fits it
    (the certified optimum at that beta). The first call of
    ``partial_fit`` chooses beta by the same cross-validation on its batch
    (without ``groups``).

    Parameters
    ----------
    betas : array-like, default=None
    n_betas : int, default=7
    eps : float, default=1e-5
        The smallest value of the grid over ``beta_max``, in
        ``(0, 10**-0.5]``.
    cv : int, cross-validation splitter or iterable, default=3
        The splits that score each beta, as in ``LassoCV``:

        - an int: the number of stratified folds, shuffled with a seed drawn
          from ``random_state`` (at least 2, and at most the number of
          points of the smallest class);
        - a splitter, an object with ``split`` and ``get_n_splits`` such as
          ``KFold(5)``, ``StratifiedKFold`` or ``GroupKFold`` (whose groups
          are given to :meth:`fit`), used as given;
        - an iterable of ``(train, test)`` pairs of index arrays into the
          points given to :meth:`fit`, used as given (so not inside a
          search that fits on subsets: give a splitter there). A generator
          is consumed by the first fit: give a list to fit or clone again.

        Every training part needs points of two classes or more.
    n_jobs : int, default=None
        Splits of ``cv`` fitted in parallel (joblib).
    k_genuine, k_impostor, basis, n_basis, gamma, max_iter, output_iter, batch_size, tol, n_iter_no_change, solver, partial_fit_memory, verbose, preprocessor, random_state, n_components
        As in :class:`~metric_learn_scml.SCML_Supervised` (the refit uses
        them all; the folds use all but ``solver``).

    Attributes
    ----------
    beta_ : float
        The chosen beta.
    betas_ : ndarray of shape (n_betas,)
    error_path_ : ndarray of shape (n_betas, n_splits)
        Held-out 3-NN error (fraction) of each beta on the test part of
        each split of ``cv``.
    beta_path_, validation_error_path_ : ndarray of shape (n_betas,)
        ``betas_`` and the mean of ``error_path_`` over the splits (as
        ``SCML_Supervised(beta='auto')`` names them).
    euclidean_fallback_ : bool
        Whether the model is the Euclidean metric (the coordinate axes,
        each of weight one), as ``SCML_Supervised(beta='auto')`` returns it
        where the chosen beta keeps no element or the learned metric maps
        distinct training points onto one. (The folds do not score the
        Euclidean metric itself.)
    components_, weights_, basis_, n_active_basis_, dual_gap_, n_iter_, objective_, objective_history_, fit_stages_, n_features_in_
        Those of the refit, as in
        :class:`~metric_learn_scml.SCML_Supervised`.

    See Also
    --------
    metric_learn_scml.knn_scorer : to tune ``SCML_Supervised`` with
        ``GridSearchCV`` or score it with ``cross_val_score`` instead, as
        ``scoring=knn_scorer`` with ``cv=StratifiedKFold(n_splits,
        shuffle=True)``: for a transformer ``cv=int`` is unshuffled
        ``KFold``, whose folds hold one class on data sorted by class.

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
    __doc__ = fill(__doc__)

    # Not a parameter: chosen by cross-validation, as alpha in LassoCV.
    beta = "auto"

    def __init__(self, betas=None, n_betas=7, eps=1e-5, cv=3, n_jobs=None,
                 k_genuine=3, k_impostor="auto", basis="lda", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto",
                 partial_fit_memory=DEFAULT_MEMORY,
                 verbose=False, preprocessor=None, random_state=None,
                 n_components=None):
        keep_parameters(self, locals())

    _parameter_constraints = {
        **GRID_CONSTRAINTS,
        "cv": [Interval("int", low=2),
               HasMethods("split", "get_n_splits",
                          what="a cross-validation splitter"),
               IterableOf("(train, test) index arrays")],
        "n_jobs": [Interval("int"), None],
    }

    def _check_params(self):
        super()._check_params()
        if self.betas is not None:
            check_betas(self.betas)
        if self.n_jobs == 0:
            raise ValueError(
                "n_jobs=0 runs no job: give None or 1 (one job), a number of "
                "jobs, or -1 (one per core), as in scikit-learn.")

    @single_threaded
    def fit(self, X, y, groups=None):
        """Choose beta by cross-validation, then fit the metric on all points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points (or 1-D indices with a ``preprocessor``).
        y : array-like of shape (n_samples,)
            Class labels, at least two classes.
        groups : array-like of shape (n_samples,), default=None
            Group labels of the points, for a ``cv`` splitter that takes
            them (such as ``GroupKFold``); an int or an iterable ``cv``
            ignores them.

        Returns
        -------
        self
        """
        self._start_fit()
        return self._fit_problem(*self._labels_problem(
            X, y, choose=functools.partial(self._cross_validate,
                                           groups=groups)))

    def _choose_beta(self, X, y, min_scored_points=None):
        # partial_fit's first call chooses as fit does (without groups).
        # (cv's folds score every point: there is no share to honour.)
        return self._cross_validate(X, y)

    def _cross_validate(self, X, y, min_scored_points=None, groups=None):
        """Cross-validate the grid on the points ``X``; set ``betas_`` and
        ``error_path_``, and return the choice as a ``BetaSelection``."""
        # The int folds' seed is drawn whatever cv is, so that the draws
        # after it (the basis, each split's seed) match for the same splits.
        rng = self._selection_random_state()
        splits = cv_splits(self.cv, X, y, groups, rng.randint(2 ** 31),
                           type(self).__name__)
        settings = self._path_settings(X.shape[1])
        if self.betas is None:
            path = LabelledPath(X, y, path_basis(settings, X, y, rng),
                                self.k_genuine, self.k_impostor, rng)
            betas = beta_grid(checked_beta_max(path, self), self.n_betas,
                              BETA_RATIO_HIGH, self.eps)
        else:
            betas = check_betas(self.betas)
        seeds = rng.randint(2 ** 31, size=len(splits))
        # (Far from the origin the folds' held-out neighbours would lose
        # the offset's digits.)
        scored = centred(X)
        scores = Parallel(n_jobs=self.n_jobs)(
            delayed(single_threaded(path_scores))(
                scored, y, fit, held, settings, betas, seed)
            for (fit, held), seed in zip(splits, seeds))
        if any(score is None for score in scores):
            raise ValueError(
                "A training part of cv gives %s no basis element (constant "
                "features on it): use fewer folds, or larger training "
                "parts." % type(self).__name__)
        self.betas_ = betas
        self.error_path_ = np.column_stack([score[1] for score in scores])
        if not any(score[3].any() for score in scores):
            warnings.warn(
                "%s: no beta of the grid kept a basis element on any training "
                "part of cv, so the choice among them rests on no learned "
                "metric. Either the betas %s are too large for this data "
                "(give smaller ones%s), or max_iter=%d RDA steps are too few "
                "to move from W = 0 (raise it)."
                % (type(self).__name__, np.array2string(betas, precision=3),
                   "" if self.betas is None else
                   ", or betas=None for a grid from the data", self.max_iter),
                UserWarning)
        errors = self.error_path_.mean(axis=1)
        # The spread of the mean error is that of the points behind it,
        # each counted once (all of them for k folds; a point scored in
        # several splits brings no new evidence).
        n_scored = np.unique(np.concatenate([held for _, held in splits]
                                            )).shape[0]
        mistakes = np.hstack([score[2] for score in scores])
        return BetaSelection(
            best_beta(betas, mistakes), betas, errors, False, float("nan"),
            n_scored, mistakes=mistakes)
