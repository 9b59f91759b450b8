r"""SCML-Local: a metric for every point of the feature space.

Shi, Bellet and Sha, *Sparse Compositional Metric Learning*, AAAI 2014,
section "Local Metric Learning". Every point :math:`x` gets the metric

.. math::

    T(x) = \sum_{k=1}^{K} w_{x,k}\, b_k b_k^T, \qquad
    w_x = (A^T z_x + c)^2 \ \text{(elementwise)},

where :math:`z_x \in \mathbb{R}^{D'}` is a kernel PCA embedding of
:math:`x` (:mod:`metric_learn_scml._local`), so the weights vary
smoothly over the space and exist for points never seen in training.
Distances from :math:`x` use :math:`x`'s own metric,
:math:`d(x, x') = \sqrt{(x - x')^T T(x) (x - x')}`, so :math:`d` is not
symmetric. :math:`A` (``D' x K``) and :math:`c` (``K``) minimise

.. math::

    \frac{1}{|C|} \sum_{(i,j,k) \in C}
    \big[1 + d^2(x_i, x_j) - d^2(x_i, x_k)\big]_+
    + \beta \sum_k \|(a_k, c_k)\|_2,

by stochastic forward-backward splitting
(``_local.forward_backward``) started from the
SCML-Global solution :math:`w^*` as :math:`A = 0`, :math:`c = \sqrt{w^*}`,
where both models coincide. With :math:`A = 0` the model *is* SCML-Global.
"""

import copy
import warnings

import numpy as np
from metric_learn.base_metric import _TripletsClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._base import _SCMLEstimator, warn_not_converged
from ._defaults import fill
from ._driver import held_out_anchor_triplets
from ._local import (KernelPCAEmbedding, forward_backward, local_kkt_residual,
                     local_objective, local_pairwise_distances, local_weights,
                     oriented_pairs)
from ._pipelines import _FromLabels, _FromTriplets
from ._problem import pair_index, report, scaled_differences
from ._validation import (Interval, Options, check_index_triplets,
                          check_metric_points, check_parameter_array,
                          check_tuples, keep_parameters, refuse_pairs,
                          warn_score_pairs)


class _LocalModel(_SCMLEstimator):
    """SCML-Local on top of the global model's triplets and basis.

    ``fit`` (from triplets or labels, as for the global model) ends in
    :meth:`_fit_problem`, which fits the global stage, the embedding and
    then the local parameters. A local metric has no single linear map, so
    this is not a metric-learn ``MahalanobisMixin``: the metric methods
    take the points (``get_mahalanobis_matrix(X)``, ``local_weights(X)``,
    ``pairwise_distances(X, Y)``), and ``pair_distance``,
    ``pair_score`` and ``get_metric`` keep metric-learn's signatures.
    """

    _parameter_constraints = {
        "global_beta": [Interval("float", low=0), None],
        "embedding_dim": [Interval("int", low=1)],
        "learning_rate": [Interval("float", low=0, low_inclusive=False)],
        "embedding_method": [Options("auto", "exact", "nystroem")],
        "n_landmarks": [Interval("int", low=1)],
    }

    def _fit_problem(self, X, triplets, task_offsets, basis):
        """Global stage, kernel PCA embedding, then forward-backward.

        (No ``partial_fit``: the kernel PCA embedding is fitted on the
        training points, so the local stage needs them all at once.)
        """
        name = type(self).__name__
        # Set by the choice of the global beta: the held-out points preferred
        # the Euclidean metric to every global model.
        held_out_euclidean = getattr(self, "euclidean_fallback_", False)
        global_weights = self._solve_global(X, triplets, task_offsets, basis)
        basis = self.basis_
        self.global_weights_ = global_weights
        self.global_objective_ = self.objective_
        self.global_n_iter_ = self.n_iter_
        # From here on beta_ is the local stage's.
        self.global_beta_ = self.beta_
        if not (isinstance(self.beta, str) and self.beta == "auto"):
            self.beta_ = float(self.beta)
        elif global_weights.any():
            # With w = c**2, an element's global optimality condition
            # dL/dw_k = -beta_g reads dL/dc_k = -2 beta_g c_k: at A = 0 the
            # global optimum is a stationary point of the local objective
            # for the elements with 2 beta_g c_k = beta. The median active
            # element sets it; like c it scales as the data (beta_g as
            # their square), so the model is the same in any units.
            self.beta_ = 2.0 * self.global_beta_ * float(
                np.median(np.sqrt(global_weights[global_weights > 0])))
        with self._log.stage("kernel PCA embedding") as facts:
            self.embedding_ = KernelPCAEmbedding(
                self.embedding_dim, random_state=self._rng,
                method=self.embedding_method,
                n_landmarks=self.n_landmarks).fit(X)
            self.embedding_dim_ = self.embedding_.n_components_
            facts.update(dimensions=self.embedding_dim_,
                         method=self.embedding_.method_)
        embedding = np.column_stack([self.embedding_.embedding_,
                                     np.ones(X.shape[0])])
        pairs, triplet_pairs = pair_index(triplets)
        # No table here: the solver tabulates the live columns only. The
        # data are at unit scale (factor f), where the weights are 1 / f**2
        # and their roots [A; c] 1 / f times the user's, and the group
        # penalty on the roots is beta * f.
        differences, unit = scaled_differences(X, basis, pairs, max_bytes=0)
        start = np.zeros((self.embedding_dim_ + 1, basis.shape[0]))
        start[-1] = np.sqrt(global_weights) / unit
        # Early stopping on triplets anchored at held-out points (beyond the
        # paper): the local stage is kept only where it does better there
        # than its start (see forward_backward).
        held_out = (None if held_out_euclidean
                    else held_out_anchor_triplets(triplets[:, 0], self._rng))
        with self._log.stage("local stage at beta=%.3g" % self.beta_) \
                as facts:
            result = forward_backward(
                differences, triplet_pairs, triplets[:, 0], embedding, start,
                beta=self.beta_ * unit, learning_rate=self.learning_rate,
                batch_size=self.batch_size,
                # Where the held-out points preferred the Euclidean metric
                # to every global model, the more flexible local one keeps
                # its Euclidean start (beyond the paper; measured on the
                # breadth table, where the local stage lost up to 3 points
                # there).
                max_iter=0 if held_out_euclidean else self.max_iter,
                eval_every=self.output_iter, tol=self.tol,
                n_iter_no_change=self.n_iter_no_change,
                random_state=self._rng, verbose=self.verbose, name=name,
                held_out=held_out)
            facts.update(iterations=result.n_iter)
        self.start_objective_ = result.history[0][1]
        self.objective_ = result.objective
        if held_out is not None:
            # The solver kept the best iterate on the held-out triplets; the
            # objective is over all of them, and a best iterate above the
            # start's (the training objective did not follow) gives way.
            couples = oriented_pairs(triplets[:, 0], triplet_pairs)
            self.start_objective_, self.objective_ = (
                local_objective(differences, *couples, embedding, coef,
                                self.beta_ * unit)[0]
                for coef in (start, result.weights))
            if not self.objective_ <= self.start_objective_:
                result.weights, self.objective_ = start, self.start_objective_
        self.coef_ = result.weights[:-1] * unit
        self.intercept_ = result.weights[-1] * unit
        if not self.coef_.any():
            self._log.note("global metric kept", reason=(
                "the held-out points preferred the Euclidean metric, "
                "which the local stage keeps" if held_out_euclidean else
                "no local iterate did better than the global start on the "
                "held-out triplets, so every point has the global metric"))
        self.objective_history_ = np.array(result.history)
        self.n_iter_ = result.n_iter
        self.n_active_basis_ = int(np.count_nonzero(result.weights.any(0)))
        # In the solver's units the gradient is f times the user's (its
        # roots [A; c] are 1 / f times theirs).
        self.kkt_residual_ = local_kkt_residual(
            differences, triplet_pairs, triplets[:, 0], embedding,
            result.weights, self.beta_ * unit) / unit
        report(name, self.verbose, "local stage: KKT residual %.3g "
               "(beta %.3g; 0 at a stationary point)" % (
                   self.kkt_residual_, self.beta_))
        if not np.isfinite(self.objective_history_[:, 1]).all():
            warnings.warn(
                "%s's local stage diverged (learning_rate=%g is too large for "
                "this data); the best iterate before that was kept. Decrease "
                "learning_rate." % (name, self.learning_rate),
                ConvergenceWarning)
        elif not (result.converged or held_out_euclidean):
            warn_not_converged(self, "'s local stage")
        if self.n_active_basis_ == 0 and global_weights.any():
            # (A global stage with no element has warned already.)
            warnings.warn(
                "%s's local stage kept no basis element, so every distance "
                "is 0 (the global stage kept %d): beta=%g is too large for "
                "the local stage's group penalty; decrease it. That penalty "
                "acts on the square roots of the weights, so for data scaled "
                "by s it needs beta * s where the global stage needs "
                "beta * s**2." % (name, np.count_nonzero(global_weights),
                                  self.beta_),
                UserWarning)
        return self

    def __sklearn_is_fitted__(self):
        return hasattr(self, "kkt_residual_")

    def _stage_name(self):
        # The global stage's beta: global_beta, or beta where it is None.
        return "beta" if self.global_beta is None else "global_beta"

    def training_objective(self, X, triplets, coef=None, intercept=None):
        """The local objective on index triplets into points ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        triplets : array-like of shape (n_triplets, 3) of int
        coef : float or ndarray of shape (embedding_dim\\_, n_basis), default=None
            :math:`A` to evaluate (default: the fitted ``coef_``); a
            number is broadcast to that shape, so ``coef=0`` and
            ``intercept=sqrt(global_weights_)`` is the global start.
        intercept : float or ndarray of shape (n_basis,), default=None
            :math:`c` to evaluate (default: the fitted ``intercept_``); a
            number is broadcast to that shape.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            For a ``coef`` or ``intercept`` of another shape than the
            fitted one (and not a number), or with NaN or infinity.
        """
        check_is_fitted(self)
        X = self._check_points(X)
        triplets = check_index_triplets(triplets, X.shape[0])
        coef = self.coef_ if coef is None else check_parameter_array(
            "coef", coef, self.coef_.shape, "(embedding_dim_, n_basis)")
        intercept = (self.intercept_ if intercept is None
                     else check_parameter_array(
                         "intercept", intercept, self.intercept_.shape,
                         "(n_basis,)"))
        pairs, triplet_pairs = pair_index(triplets)
        couples, triplet_couples = oriented_pairs(triplets[:, 0],
                                                  triplet_pairs)
        embedding = np.column_stack([self.embedding_.transform(X),
                                     np.ones(X.shape[0])])
        # At unit scale, as in fit: tiny data would underflow the table.
        differences, unit = scaled_differences(X, self.basis_, pairs)
        return local_objective(
            differences, couples, triplet_couples, embedding,
            np.vstack([coef, intercept]) / unit, self.beta_ * unit)[0]

    def _weights_of(self, X):
        embedding = self.embedding_.transform(X)
        return local_weights(
            np.column_stack([embedding, np.ones(embedding.shape[0])]),
            np.vstack([self.coef_, self.intercept_]))

    def local_weights(self, X):
        r"""The weights :math:`w_x = (A^T z_x + c)^2` of each point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        weights : ndarray of shape (n_samples, n_basis)
            Non-negative; column ``k`` weighs :math:`b_k b_k^T`.
        """
        check_is_fitted(self)
        return self._weights_of(self._check_points(X))

    def get_mahalanobis_matrix(self, X=None):
        r"""The metric :math:`T(x) = \sum_k w_{x,k} b_k b_k^T` at each point.

        Parameters
        ----------
        X : array-like of shape (n_features,) or (n_samples, n_features)
            One point or several (indices with a ``preprocessor``).

        Returns
        -------
        M : ndarray of shape (n_features, n_features) for one point, (n_samples, n_features, n_features) for several
            Symmetric positive semi-definite.
        """
        check_is_fitted(self)
        if X is None:
            raise TypeError(
                "%s learns a different metric at every point: pass the points "
                "whose metrics you want, get_mahalanobis_matrix(X) (a global "
                "learner's takes none)." % type(self).__name__)
        # One point: a 1-D point, or one index with a preprocessor.
        single = np.ndim(X) == (1 if self.preprocessor_ is None else 0)
        if single and self.preprocessor_ is not None:
            X = np.reshape(X, (1,))
        elif single:
            # A pandas row (df.iloc[i]) becomes a one-row frame, so that its
            # feature names are checked as a frame's are.
            X = X.to_frame().T if hasattr(X, "to_frame") else np.reshape(
                X, (1, -1))
        X = self._check_points(X)
        weights = self._weights_of(X)
        active = np.flatnonzero(weights.any(axis=0))
        basis = self.basis_[active]
        metrics = np.einsum("nk,kd,ke->nde", weights[:, active], basis, basis)
        # (Exactly symmetric: einsum's summation order differs between the
        # (d, e) and (e, d) entries in the last bits.)
        metrics = metrics + np.swapaxes(metrics, 1, 2)
        metrics *= 0.5
        return metrics[0] if single else metrics

    def pairwise_distances(self, X, Y=None, squared=False):
        r"""Distances from every row of ``X`` to every row of ``Y``.

        Row ``i`` uses the metric of ``X[i]``:
        :math:`d(x, y)^2 = \sum_k w_{x,k} (p_{x,k} - p_{y,k})^2` with
        :math:`p = B x`, expanded into three matrix products, so no
        ``D x D`` matrix is built.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
        Y : array-like of shape (n_samples_Y, n_features), default=None
            ``None`` means ``X`` (the diagonal is then exactly 0).
        squared : bool, default=False

        Returns
        -------
        distances : ndarray of shape (n_samples_X, n_samples_Y)
        """
        check_is_fitted(self)
        if not isinstance(squared, (bool, np.bool_)):
            raise TypeError("squared must be a bool, got %r." % (squared,))
        X = self._check_points(X)
        Y = None if Y is None else self._check_points(Y, "Y")
        return local_pairwise_distances(self._weights_of(X), self.basis_, X,
                                        Y, squared)

    def pair_distance(self, pairs):
        """Distance of each pair under the metric of its first point.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Pairs of points, or of indices with a ``preprocessor``.

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
            :math:`\\sqrt{(x - x')^T T(x) (x - x')}` for each pair
            :math:`(x, x')`; not symmetric.
        """
        check_is_fitted(self)
        return self._distances(check_tuples(self, pairs, 2))

    def _distances(self, pairs):
        """:meth:`pair_distance` of checked pairs (n, 2, n_features)."""
        projected = (pairs[:, 0] - pairs[:, 1]) @ self.basis_.T
        return np.sqrt(np.einsum("nk,nk->n", self._weights_of(pairs[:, 0]),
                                 projected * projected))

    def pair_score(self, pairs):
        """Opposite of :meth:`pair_distance` (higher means more similar).

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)

        Returns
        -------
        scores : ndarray of shape (n_pairs,)
        """
        return -self.pair_distance(pairs)

    def score_pairs(self, pairs):
        """Deprecated in metric-learn; use :meth:`pair_distance`.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
        """
        warn_score_pairs()
        return self.pair_distance(pairs)

    def get_metric(self):
        """A function ``metric(u, v, squared=False)`` on two points.

        The distance uses the metric at ``u``; it can be passed to
        scikit-learn estimators that take a callable metric (which then
        call it in either order, so prefer :meth:`pairwise_distances`).

        Returns
        -------
        metric : callable
        """
        check_is_fitted(self)
        # The metric of this fit: a refit gives the model new arrays, not
        # new values in these (as metric-learn's get_metric, which copies).
        fitted = copy.copy(self)

        def metric_fun(u, v, squared=False):
            distance = fitted._distances(
                np.stack(check_metric_points(fitted, u, v))[None])[0]
            return distance ** 2 if squared else distance
        return metric_fun

    def __getattr__(self, name):
        # No transform: a local metric has no single linear embedding. The
        # error says what to use instead (hasattr(model, "transform") stays
        # False, so scikit-learn does not take the model for a transformer).
        if name == "transform":
            raise AttributeError(
                "%s learns a different metric at every point, so there is "
                "no single linear map L with d(x, y) = ||L x - L y|| to "
                "transform X with. Use pairwise_distances(X, Y) or "
                "pair_distance(pairs) for distances, "
                "get_mahalanobis_matrix(X) for the metric at each point, or "
                "MetricKNeighborsClassifier for k-NN classification."
                % type(self).__name__)
        raise AttributeError("%r object has no attribute %r" % (
            type(self).__name__, name))

class LocalSCML(_FromTriplets, _LocalModel, _TripletsClassifierMixin):
    r"""SCML-Local from triplets: a metric that varies over the space.

    Learns :math:`T(x) = \sum_k (a_k^T z_x + c_k)^2 b_k b_k^T` so that for
    each triplet ``(a, b, c)``, ``b`` is closer to ``a`` than ``c`` is
    under ``a``'s metric (Shi, Bellet and Sha, AAAI 2014, section "Local
    Metric Learning"). The basis is built from the triplets as in
    :class:`SCML`. With labels, use :class:`LocalSCML_Supervised`.

    ``fit(pairs, y)`` learns from metric-learn's labelled pairs too, as the
    triplets they form (:meth:`fit`). Whatever the fit, ``predict``,
    ``decision_function`` and ``score`` take triplets, and refuse pairs
    with a ``ValueError``: a local metric measures a pair under the metric
    of its first point, so :math:`d(a, b) \ne d(b, a)`, and the model is
    no classifier of pairs (no ``threshold_``, unlike :class:`SCML`).
    Measure pairs with :meth:`pair_distance` or :meth:`pair_score`, and
    evaluate a model fitted on pairs with, e.g.,
    ``sklearn.metrics.roc_auc_score(y, model.pair_score(pairs))``, or on
    triplets with ``score``.

    Parameters
    ----------
    beta : float, default=1e-5
        Strength of the local stage's group penalty
        :math:`\beta \sum_k \|(a_k, c_k)\|_2`.
    global_beta : float or None, default=None
        Strength of the :math:`\ell_1` penalty of the global stage, the
        SCML-Global model the local stage starts from. ``None``: ``beta``,
        one value for both stages, as in the paper.
    basis : {'triplet_diffs'} or array-like of shape (n_basis, n_features), default='triplet_diffs'
        As in :class:`SCML`.
    n_basis : int, default=None
        As in :class:`SCML`.
    embedding_dim : int, default=40
        Dimension :math:`D'` of the kernel PCA embedding :math:`z_x` (the
        paper uses 40, and 100 for its larger datasets). At most
        ``n_samples - 1`` components exist (``n_landmarks`` through the
        Nyström approximation), so fewer are used on small data
        (``embedding_dim_``).
    learning_rate : float, default=0.3
        Step of forward-backward splitting, in units where the triplet
        vectors :math:`g` are of order one (the step on :math:`[A; c]` is
        ``learning_rate`` divided by their mean absolute entry).
    embedding_method : {'auto', 'exact', 'nystroem'}, default='auto'
        The kernel PCA of :math:`z_x`: ``'exact'`` on the
        ``n_samples x n_samples`` kernel; ``'nystroem'`` through a Nyström
        approximation on ``n_landmarks`` points (scikit-learn's
        ``Nystroem``, then PCA), whose memory grows as ``n_samples``;
        ``'auto'`` is exact below {{NYSTROEM_MIN_SAMPLES}} points, where
        both cost about the same; beyond, the exact kernel's time and
        memory grow as ``n_samples`` squared. Beyond the paper.
    n_landmarks : int, default=1000
        Landmark points of the Nyström approximation.
    gamma, max_iter, output_iter, batch_size, tol, n_iter_no_change, solver, verbose, preprocessor, random_state
        As in :class:`SCML`; ``max_iter`` to ``n_iter_no_change`` apply to
        both stages, ``solver`` to the global stage.

    Attributes
    ----------
    coef_ : ndarray of shape (embedding_dim\_, n_basis)
        :math:`A`.
    intercept_ : ndarray of shape (n_basis,)
        :math:`c`; with ``coef_ = 0`` the model is SCML-Global (where the
        local stage kept its start, as ``fit_stages_`` says).
    global_weights_ : ndarray of shape (n_basis,)
        The SCML-Global solution :math:`w^*` the local stage starts from.
    basis_ : ndarray of shape (n_basis, n_features)
        Unit-norm basis rows :math:`b_k`.
    embedding_ : KernelPCAEmbedding
        The fitted kernel PCA.
    embedding_dim_ : int
        Components actually used.
    n_active_basis_ : int
        Elements whose column :math:`(a_k, c_k)` is non-zero.
    objective_ : float
        Local objective of the returned parameters.
    start_objective_ : float
        Local objective at the start :math:`A = 0, c = \sqrt{w^*}`
        (never below ``objective_``).
    global_objective_ : float
        SCML-Global objective of :math:`w^*`.
    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, held-out triplet error, n_active)`` of the local
        stage: the fraction of the triplets anchored at a held-out fifth
        of the points that its metric orders wrongly. The stage steps on
        the other triplets, keeps its best iterate there (the start
        included, so it never ends worse than its start on them) and
        stops when it has not improved for ``n_iter_no_change``
        evaluations (early stopping; beyond the paper). Where fewer than
        two anchors leave nothing to hold out, or the start is the
        Euclidean metric kept by the held-out points, ``(iteration,
        objective, n_active)`` over all triplets.
    n_iter_, global_n_iter_ : int
        Iterations of the local and global stages.
    beta_, global_beta_ : float
        The betas of the local and global stages (as given, or chosen).
    dual_gap_ : float
        Duality gap of the global stage's weights where its exact phase
        ran; else NaN.
    kkt_residual_ : float
        How far the local parameters are from a stationary point of the
        local objective: the largest violation, over the non-zero columns
        :math:`(a_k, c_k)`, of their first-order condition
        :math:`\nabla_k f + \beta (a_k, c_k) / \|(a_k, c_k)\| = 0`
        (``_local.local_kkt_residual``), in the
        units of ``beta``. The problem is not convex, so this certifies a
        stationary point, not the optimum (the global models' counterpart
        is ``dual_gap_``). The stochastic solver stops on held-out
        triplets, not on this value. Beyond the paper.
    fit_stages_ : list of dict
        The stages of the last fit, each with ``stage``, ``seconds`` and
        what it found, as ``verbose`` prints them.
    n_features_in_ : int

    Notes
    -----
    The solver takes mini-batch steps with a prox at every step and stops
    on triplets of held-out points (``objective_history_``), instead of the paper's 200,001 single-triplet steps
    of 0.7 with a prox every 5,000 (see
    ``_local.forward_backward``). An element whose
    global weight is zero starts with a zero column, where the gradient of
    the loss vanishes, so the local model uses a subset of the elements of
    the global one. :class:`LocalSCML` uses one ``beta`` for both stages
    by default, as the authors' code does; :class:`LocalSCML_Supervised`
    chooses the global stage's from the data (``global_beta``). Kernel
    PCA stores the ``n_samples x n_features`` training points and needs
    an ``n_samples x n_samples`` kernel at fit time (over 600 points
    that hold at most 600 distinct ones: those, and a kernel between
    them). There is no ``n_components``: the metric changes from point to
    point, so no single linear map of fewer dimensions preserves it (the
    global learners' ``n_components`` truncates their one metric).

    See Also
    --------
    LocalSCML_Supervised, SCML, MetricKNeighborsClassifier

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml import LocalSCML
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(80, 2))
    >>> # left half: feature 0 matters; right half: feature 1 matters
    >>> relevant = (X[:, 0] > 0).astype(int)
    >>> idx = rng.randint(0, 80, size=(600, 3))
    >>> gap = np.abs(X[idx[:, 1:]] - X[idx[:, [0]]])
    >>> d = np.take_along_axis(gap, relevant[idx[:, 0]][:, None, None], 2)[..., 0]
    >>> idx[d[:, 0] > d[:, 1], 1:] = idx[d[:, 0] > d[:, 1], 1:][:, ::-1]
    >>> model = LocalSCML(embedding_dim=5, random_state=0).fit(X[idx])
    >>> model.get_mahalanobis_matrix(X[0]).shape
    (2, 2)
    >>> bool(model.score(X[idx]) >= 0.8)
    True
    """
    __doc__ = fill(__doc__)

    def __init__(self, beta=1e-5, global_beta=None, basis="triplet_diffs",
                 n_basis=None,
                 embedding_dim=40, learning_rate=0.3, embedding_method="auto",
                 n_landmarks=1000, gamma=1.0,
                 max_iter=20000, output_iter=250, batch_size=32, tol=1e-3,
                 n_iter_no_change=4, solver="auto", verbose=False,
                 preprocessor=None, random_state=None):
        keep_parameters(self, locals())

    def decision_function(self, triplets):
        """``d(a, c) - d(a, b)`` of each triplet, under the metric of ``a``
        (positive where its order is kept).

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
            Triplets only, also after a fit on pairs: pairs raise a
            ``ValueError`` that names :meth:`pair_score`.

        Returns
        -------
        scores : ndarray of shape (n_triplets,)
        """
        check_is_fitted(self)
        refuse_pairs(self, triplets, "decision_function")
        return super().decision_function(triplets)

    def predict(self, triplets):
        """+1 for each triplet ``(a, b, c)`` whose ``b`` is closer to ``a``
        than ``c`` is, under the metric of ``a``; -1 otherwise.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
            Triplets only, also after a fit on pairs: pairs raise a
            ``ValueError`` that names :meth:`pair_score`.

        Returns
        -------
        predictions : ndarray of shape (n_triplets,)
        """
        check_is_fitted(self)
        refuse_pairs(self, triplets, "predict")
        return super().predict(triplets)

    def score(self, triplets, y=None):
        """The fraction of ``triplets`` whose order the metric keeps.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
            Triplets only, also after a fit on pairs: pairs raise a
            ``ValueError`` that names :meth:`pair_score` and how to
            cross-validate a model fitted on pairs.
        y : None
            Ignored (as in :meth:`fit`).

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        refuse_pairs(self, triplets, "score")
        return super().score(triplets, y)


class LocalSCML_Supervised(_FromLabels, _LocalModel):
    r"""SCML-Local from class labels: a metric that varies over the space.

    Builds triplets and the local discriminative basis from the labels as
    :class:`SCML_Supervised` does, fits SCML-Global, then learns
    :math:`T(x) = \sum_k (a_k^T z_x + c_k)^2 b_k b_k^T` starting from it
    (Shi, Bellet and Sha, AAAI 2014, section "Local Metric Learning").
    Classify with :class:`MetricKNeighborsClassifier`.

    Parameters
    ----------
    k_genuine : int, default=3
        Same-class neighbours ("targets") per point (all of them where its
        class has fewer; a value larger than any point has warns).
    k_impostor : int or 'auto', default='auto'
        Other-class neighbours ("impostors") per point (likewise; 'auto' as
        in :class:`~metric_learn_scml.SCML_Supervised`).
    beta : 'auto' or float, default=1e-5
        Strength of the local stage's group penalty
        :math:`\beta \sum_k \|(a_k, c_k)\|_2` (the paper's value).
        ``'auto'``: the value at which the global optimum :math:`w^*` is
        a stationary point of the local objective at :math:`A = 0` for its
        median active element, :math:`2 \beta_g \operatorname{median}_k
        \sqrt{w^*_k}` (:math:`\beta_g` the global stage's beta; with
        :math:`w = c^2` the global condition :math:`\partial L / \partial
        w_k = -\beta_g` reads :math:`\partial L / \partial c_k = -2
        \beta_g c_k`). Like the roots it acts on, it scales as the data, so
        the model is the same in any units. Beyond the paper.
    global_beta : 'auto', float or None, default='auto'
        Strength of the :math:`\ell_1` penalty of the global stage, the
        SCML-Global model the local stage starts from. ``'auto'`` chooses
        it from held-out points as :class:`SCML_Supervised` does; where
        the held-out points prefer the Euclidean metric to every global
        model, the model is the Euclidean metric (the local stage, more
        flexible, keeps that start: on the breadth table it erred up to 3
        points more there); where the chosen model keeps no element or
        maps distinct training points onto one, the local stage starts
        from the Euclidean metric (the coordinate axes as the basis, each
        of weight one; ``euclidean_fallback_`` in both cases). A zero start is a stationary point the
        local stage cannot leave: every distance would be 0. ``None``:
        ``beta``, one value for both stages, as in the paper (with
        ``beta='auto'``: the global stage chooses it as ``'auto'`` does, and
        the local stage maps it to its own penalty, as above). Beyond the
        paper: the two penalties act on the weights and on their roots,
        so one value rarely suits both (measured in the user guide's
        SCML-Local page).
    basis : {'lda', 'triplet_diffs'} or array-like of shape (n_basis, n_features), default='lda'
        As in :class:`SCML_Supervised`.
    n_basis : int, default=None
        As in :class:`SCML_Supervised`.
    embedding_dim, learning_rate, embedding_method, n_landmarks
        As in :class:`LocalSCML`.
    gamma, max_iter, output_iter, batch_size, tol, n_iter_no_change, solver, verbose, preprocessor, random_state
        As in :class:`SCML_Supervised`; ``max_iter`` to
        ``n_iter_no_change`` apply to both stages, ``solver`` to the global
        stage.

    Attributes
    ----------
    coef_, intercept_, global_weights_, basis_, embedding_, embedding_dim_, n_active_basis_, objective_, start_objective_, global_objective_, objective_history_, n_iter_, global_n_iter_, beta_, global_beta_, dual_gap_, kkt_residual_, fit_stages_, n_features_in_
        As in :class:`LocalSCML`.
    beta_path_, validation_error_path_ : ndarray of shape (n_betas,)
        When the global stage's beta is chosen: the values tried and their
        held-out 3-NN errors (empty where too few points per class could be
        held out).
    euclidean_fallback_ : bool
        Whether the global stage is the Euclidean metric (see
        ``global_beta``): then ``basis_`` is the coordinate axes and
        ``global_weights_`` is all ones.

    Notes
    -----
    The solver takes mini-batch steps with a prox at every step and stops
    on triplets of held-out points (``objective_history_``), instead of the paper's 200,001 single-triplet steps
    of 0.7 with a prox every 5,000 (see
    ``_local.forward_backward``). An element whose
    global weight is zero starts with a zero column, where the gradient of
    the loss vanishes, so the local model uses a subset of the elements of
    the global one. :class:`LocalSCML` uses one ``beta`` for both stages
    by default, as the authors' code does; :class:`LocalSCML_Supervised`
    chooses the global stage's from the data (``global_beta``). Kernel
    PCA stores the ``n_samples x n_features`` training points and needs
    an ``n_samples x n_samples`` kernel at fit time (over 600 points
    that hold at most 600 distinct ones: those, and a kernel between
    them). There is no ``n_components``: the metric changes from point to
    point, so no single linear map of fewer dimensions preserves it (the
    global learners' ``n_components`` truncates their one metric).

    See Also
    --------
    LocalSCML, SCML_Supervised, MetricKNeighborsClassifier

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import LocalSCML_Supervised
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> model = LocalSCML_Supervised(embedding_dim=10, random_state=0).fit(X, y)
    >>> model.local_weights(X[:3]).shape == (3, model.basis_.shape[0])
    True
    >>> model.get_mahalanobis_matrix(X[:3]).shape
    (3, 4, 4)
    >>> bool(model.objective_ <= model.start_objective_)
    True
    """
    __doc__ = fill(__doc__)

    _parameter_constraints = {
        "beta": [Options("auto"), Interval("float", low=0)],
        "global_beta": [Options("auto"), Interval("float", low=0), None],
    }

    def __init__(self, k_genuine=3, k_impostor="auto", beta=1e-5,
                 global_beta="auto", basis="lda",
                 n_basis=None, embedding_dim=40, learning_rate=0.3,
                 embedding_method="auto", n_landmarks=1000,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="auto", verbose=False,
                 preprocessor=None, random_state=None):
        keep_parameters(self, locals())
