"""SCML's pairs: independent pairs as quadruplets, and metric-learn's
pair-classifier interface (:class:`_PairsAndTriplets`).

Split from :mod:`._pipelines`, whose triplet learner it extends.
"""

import numpy as np
from metric_learn.base_metric import _PairsClassifierMixin
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ._base import single_threaded
from ._pipelines import _IncrementalFromTriplets
from ._validation import (check_pair_labels, check_tuples, checked_input,
                          is_pairs)


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
        threshold follows the metric. A later batch that gives no
        constraint (e.g. pairs of one kind) leaves the model unchanged,
        with a warning.

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
            return roc_auc_score(column_or_1d(y),
                                 self.decision_function(tuples))
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

        Returns
        -------
        self
        """
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
                "a fit on pairs sets; this model was fitted on triplets. Call "
                "calibrate_threshold(pairs, y) with labelled pairs (y +1 for "
                "similar, -1 for dissimilar) or set_threshold(distance) "
                "first; decision_function(pairs) needs no threshold." % (
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
