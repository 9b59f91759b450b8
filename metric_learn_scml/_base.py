r"""The estimator layer every SCML learner is built on.

How data flows from ``fit`` to ``components_``:

1. ``fit`` validates the hyper-parameters (one declarative table per class,
   :mod:`._validation`) and the data, and builds its problem
   (:mod:`._pipelines`: ``_labels_problem`` for labels, ``_triplet_problem``
   for triplets; both take optional tasks).
2. The problem is a value (:class:`._pipelines.Problem`): a set of points
   ``X``, index triplets into them grouped by task (``task_offsets``) and
   a basis, the user's array or the union of one generated basis per task
   (:func:`._triplets.task_basis_size`; a single task for the global and
   local models).
3. :meth:`_SCMLEstimator._solve` runs the solver on the data at unit scale
   (:func:`._solvers.rda`, then the exact phase of :mod:`._exact` for one
   task) and returns the weights :math:`W` (``T x K``) in the user's units.
4. Each model turns :math:`W` into its metric: ``components_`` for the
   global model (:class:`_LinearMetric`), one per task for mt-SCML, and a
   local stage started from :math:`w` for SCML-Local.
"""

import warnings
from typing import NamedTuple

import numpy as np
from metric_learn._util import ArrayIndexer
from metric_learn.base_metric import BaseMetricLearner, MahalanobisMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import TransformerTags
from sklearn.utils.validation import check_is_fitted

from ._arrays import centred, checked_random_state, largest_magnitude
from ._defaults import EXACT_GAP_TOL
from ._driver import FitLog, merges_points, pair_problem, solve_path
from ._exact import beta_max
from ._problem import HingeProblem
from ._solvers import RDAState, components_from_weights
from ._validation import (ArrayLike, Flag, Interval, Options, PointIndexer,
                          RowsChecked, check_metric_points, check_points,
                          check_same_label_type, check_tuples, forget_fit,
                          no_basis_error, parameter_constraints, task_labels,
                          validate_parameters)

# The iterates are of order sqrt(t) / gamma: below this gamma, w . g in the
# float32 triplet table (7 digits) no longer resolves the hinge's unit
# margin, and far below it overflows. 3e-6 turned breast cancer's and 1e-6
# wine's default fits Euclidean (the selection saw only noise); 1e-5 fitted
# both, and iris.
# Evidence: a range check only; the default is 1.
MIN_GAMMA = 1e-5

# Below this gamma, RDA's first steps overshoot so far that a zero model can
# come from gamma rather than from beta (1e-5 zeroed 60 points in 3 dimensions
# that gamma=1e-4 fitted); the zero-weights warning then names it too.
# Evidence: a warning's wording only.
SMALL_GAMMA = 1e-3

# partial_fit warns when a batch's largest value is this many times larger
# or smaller than the first batch's (a metric learned in the first batch's
# units; the largest value of batches of one distribution moves far less).
# Evidence: a warning only.
BATCH_SCALE_RATIO = 100.0


def warn_batch_scale(estimator, X):
    """Warn when ``X`` (a later ``partial_fit`` batch) is at another scale
    than the batch that set the model's units."""
    # _unit brought the first batch's largest value into [0.5, 1).
    ratio = largest_magnitude(centred(X)) * estimator._unit
    if not 0.5 / BATCH_SCALE_RATIO <= ratio <= BATCH_SCALE_RATIO:
        warnings.warn(
            "%s.partial_fit: this batch's values are about %.0e times those "
            "of the first batch, whose units the model keeps (its distances "
            "scale with the square of the data). Scale every batch alike, "
            "for instance with a StandardScaler fitted on the first." % (
                type(estimator).__name__, ratio), UserWarning)


class SolverRun(NamedTuple):
    """How :meth:`_SCMLEstimator._solve` runs the solver: RDA's ``schedule``
    (``max_iter``, ``eval_every``, ...), the ``solver`` after it, and for a
    ``partial_fit`` call (``continued``) the ``state`` and ``unit`` of the
    earlier calls it continues (None on a first call)."""

    schedule: dict
    solver: str
    state: object = None
    unit: object = None
    continued: bool = False


# The parameters the first call of a run (fit, or partial_fit on an unfitted
# model) settles for the later partial_fit calls: the basis and the
# preprocessor it is drawn from, and beta='auto' with its cross-validation.
FIRST_CALL = ("basis", "n_basis", "preprocessor", "beta", "betas", "n_betas",
              "cv", "eps")


def same_setting(first, now):
    """Whether a parameter's value is the one of the first call (arrays by
    identity or equal values)."""
    if first is now:
        return True
    if isinstance(first, np.ndarray) or isinstance(now, np.ndarray):
        return (isinstance(first, np.ndarray) and isinstance(now, np.ndarray)
                and np.array_equal(first, now))
    try:
        return bool(first == now)
    except (TypeError, ValueError):
        return False


def warn_changed_settings(estimator):
    """Warn when a later ``partial_fit`` call finds a parameter of
    :data:`FIRST_CALL` set anew: it keeps the first call's (a float beta
    alone applies from the next call, as a learning rate does)."""
    now = estimator.get_params(deep=False)
    changed = [name for name, first in estimator._first_settings.items()
               if not same_setting(first, now[name])
               and not (name == "beta" and not isinstance(now[name], str))]
    if not changed:
        return
    others = [name for name in changed if name != "beta"]
    said = []
    if others:
        said.append(
            "%s %s set anew since the first call of this run, which settles "
            "%s: this call keeps the first call's." % (
                ", ".join(others), "were" if len(others) > 1 else "was",
                "them" if len(others) > 1 else "it"))
    if "beta" in changed:
        said.append(
            "beta='auto' is resolved by the first call of a run only: this "
            "call keeps beta_=%g (a float beta applies from the next call)."
            % estimator.beta_)
    warnings.warn(
        "%s.partial_fit: %s Call fit, or partial_fit on a clone, to start a "
        "run with the new settings." % (type(estimator).__name__,
                                        " ".join(said)), UserWarning)


def warn_not_converged(estimator, stage=""):
    """The ``ConvergenceWarning`` of a solver stopped by ``max_iter``."""
    warnings.warn(
        "%s%s did not converge in max_iter=%d iterations (objective still "
        "improving by more than tol=%g): increase max_iter or tol." % (
            type(estimator).__name__, stage, estimator.max_iter,
            estimator.tol),
        ConvergenceWarning)


class _MetricLearner(BaseMetricLearner):
    """metric-learn's base with this package's input checks.

    An array ``preprocessor`` refuses indices that are not its rows
    (:class:`._validation.PointIndexer`), a callable one must give one
    point per index (:class:`._validation.RowsChecked`), and points given
    after ``fit`` are checked against it (:func:`._validation.check_points`).
    """

    def _check_preprocessor(self):
        super()._check_preprocessor()
        if isinstance(self.preprocessor_, ArrayIndexer):
            shape = np.shape(self.preprocessor_.X)
            if len(shape) != 2:
                raise ValueError(
                    "An array preprocessor holds the points as rows, so it "
                    "must be 2-D (n_points, n_features), got shape %s; for "
                    "one feature use preprocessor.reshape(-1, 1)." % (shape,))
            if 0 in shape:
                raise ValueError(
                    "An array preprocessor holds the points as rows, so it "
                    "needs at least one point of one feature, got shape %s."
                    % (shape,))
            self.preprocessor_ = PointIndexer(self.preprocessor_.X)
        elif callable(self.preprocessor_):
            self.preprocessor_ = RowsChecked(self.preprocessor_)

    def _check_points(self, X, name="X"):
        return check_points(self, X, name)


class _SCMLEstimator(_MetricLearner):
    """Parameters, validation and solving shared by every SCML learner.

    A subclass declares its extra parameters (and the values of ``basis``
    and ``beta`` it takes) in ``_parameter_constraints``, and turns the
    solved weights into its metric in ``_fit_problem``.
    """

    # mt-SCML has no single metric for its choice of beta to replace.
    _keeps_euclidean = True

    _tuple_size = 3
    # The local learners have no linear embedding to truncate.
    n_components = None

    _parameter_constraints = {
        "beta": [Interval("float", low=0)],
        "basis": [Options("triplet_diffs"), ArrayLike("(n_basis, n_features)")],
        "n_basis": [Interval("int", low=1), None],
        "gamma": [Interval("float", low=MIN_GAMMA)],
        "max_iter": [Interval("int", low=1)],
        "output_iter": [Interval("int", low=1)],
        "batch_size": [Interval("int", low=1)],
        "tol": [Interval("float", low=0)],
        "n_iter_no_change": [Interval("int", low=1)],
        "solver": [Options("auto", "exact", "rda")],
        "verbose": [Flag(), Interval("int", low=0)],
        # In [1, n_features], checked with the data (check_n_components,
        # in metric-learn's words).
        "n_components": [Interval("int"), None],
    }

    def __sklearn_is_fitted__(self):
        # Set last by a successful fit (a fit that raised may leave beta_ or
        # n_features_in_ behind).
        return hasattr(self, "components_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Every learner with a transform maps float64 points to float64
        # (the multi-task ones per task).
        if hasattr(self, "transform") and tags.transformer_tags is None:
            tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        return tags

    def _check_params(self):
        constraints = parameter_constraints(type(self))
        validate_parameters(constraints, {name: getattr(self, name)
                                          for name in constraints})

    def _start_fit(self):
        self._check_params()
        # A refit starts afresh (once its parameters are known to be valid):
        # no fitted attribute of an earlier fit (a beta_path_ of
        # beta='auto', a kkt_residual_ of the local model) outlives it, and
        # partial_fit then starts a new run.
        forget_fit(self, ("_rda_state", "_unit", "_memory", "_basis_points",
                          "_selection"))
        self._check_preprocessor()
        self._rng = checked_random_state(self.random_state)
        self._start_log()
        # 'auto' is resolved by the fit (see _pipelines._labels_problem).
        self.beta_ = self._given_beta()
        params = self.get_params(deep=False)
        self._first_settings = {name: params[name] for name in FIRST_CALL
                                if name in params}

    def _start_log(self):
        """A new :class:`~metric_learn_scml._driver.FitLog`, kept as
        ``fit_stages_`` (filled as the fit goes)."""
        self._log = FitLog(type(self).__name__, self.verbose)
        self.fit_stages_ = self._log.stages

    def _fit_run(self):
        """A fit's :class:`SolverRun`: up to ``max_iter`` RDA steps from
        zero, then the ``solver``'s exact phase."""
        return SolverRun(dict(max_iter=self.max_iter,
                              eval_every=self.output_iter), self.solver)

    def _batch_run(self, X, task_offsets):
        """A ``partial_fit`` call's :class:`SolverRun` on the batch ``X``:
        RDA continues from the state of the earlier calls (``_rda_state``,
        kept by every fit) in the same units, for one epoch over the
        batch's triplets, as scikit-learn's SGD ``partial_fit`` (one step
        where ``batch_size`` exceeds them: ``rda`` caps the batch); the
        result is the last iterate, and the exact phase, which needs every
        triplet, is skipped."""
        state = getattr(self, "_rda_state", None)
        if state is not None:
            warn_batch_scale(self, X)
        n_steps = -(-int(np.diff(task_offsets).max()) // self.batch_size)
        return SolverRun(dict(max_iter=n_steps, eval_every=n_steps,
                              keep_best=False), "rda", state,
                         None if state is None else self._unit, True)

    def _solve(self, X, triplets, task_offsets, basis, run=None,
               warn_empty=True):
        """Solve at ``beta_`` on index triplets grouped by task: the path of
        :func:`._driver.solve_path` at one point; return W (T, K).

        Task ``t`` owns ``triplets[task_offsets[t]:task_offsets[t + 1]]``.
        Sets ``basis_``, ``n_iter_``, ``objective_``,
        ``objective_history_`` and ``dual_gap_``, and warns when the solver
        did not converge or kept no element. ``tol`` is per task: the
        objective is a sum of one mean hinge per task (``T`` at ``W = 0``),
        so the solver stops on improvements below ``T * tol``. ``W`` is in
        the user's units. ``run`` (:class:`SolverRun`) says how the solver
        runs: a fit's (None) or a ``partial_fit`` call's.

        Raises a ``ValueError`` when the basis is empty: then no direction
        separates any two training points and every learnable distance is 0
        (like scikit-learn's ``VarianceThreshold`` when no feature is left).
        """
        if basis.shape[0] == 0:
            raise no_basis_error(self)
        run = run or self._fit_run()
        n_tasks = len(task_offsets) - 1
        with self._log.stage("pair table") as facts:
            problem = pair_problem(X, basis, triplets, task_offsets,
                                   unit=run.unit)
            facts.update(pairs=problem.differences.pairs.shape[0],
                         elements=basis.shape[0])
        chosen = self.__dict__.pop("_selection", None)
        selection = chosen and chosen.for_problem(problem)
        if selection is not chosen:
            self.beta_, self.beta_path_ = selection.beta, selection.betas
            self._log.note("beta for all the points", chosen=selection.beta,
                           values_tried=selection.betas,
                           beta_max=selection.beta_max)
        result, = solve_path(
            problem, [self.beta_], dict(
                gamma=self.gamma, batch_size=self.batch_size,
                tol=n_tasks * self.tol,
                n_iter_no_change=self.n_iter_no_change, **run.schedule),
            solver=run.solver, state=run.state, random_state=self._rng,
            verbose=self.verbose, name=type(self).__name__, log=self._log,
            rerun=not run.continued)
        self._rda_state, self._unit = result.state, problem.unit
        relative_gap = result.dual_gap / max(result.objective, 1e-300)
        if result.loose and not result.out_of_budget:
            warnings.warn(
                "%s's exact phase stopped with a relative duality gap of %.2g "
                "(above %g): the weights are the best found, not certified "
                "optimal. A beta far below the useful range (beta acts on "
                "squared distances: standardise the features) leaves the "
                "certificate loose; use solver='rda' to skip the phase." % (
                    type(self).__name__, relative_gap, EXACT_GAP_TOL),
                ConvergenceWarning)
        self.basis_ = basis
        self.n_iter_ = int(result.n_iter)
        self.objective_ = float(result.objective)
        self.objective_history_ = np.array(result.history)
        self.dual_gap_ = float(result.dual_gap)
        if not (result.converged or run.continued):
            warn_not_converged(self)
        if warn_empty and not result.weights.any():
            # beta_max: the smallest beta that keeps no element (0 when no
            # element lowers the loss of these triplets at all).
            if not (result.converged or run.continued):
                # (RDA's best point is then W = 0, where it started.)
                cause = (
                    "the solver stopped at max_iter=%d iterations before any "
                    "point did better than no metric at all; raise max_iter"
                    % self.max_iter)
            elif run.continued and self._given_beta() is None:
                cause = (
                    "%s_=%g was chosen from the first partial_fit batch "
                    "(%s='auto') and keeps no element on this one; set a "
                    "float %s, for instance one that fit or "
                    "SCML_SupervisedCV chooses on a sample holding every "
                    "class" % ((self._stage_name(), self.beta_)
                               + (self._stage_name(),) * 2))
            elif self.beta_ > 0 and n_tasks == 1 and beta_max(HingeProblem(
                    problem.differences, problem.triplet_pairs)) > 0:
                cause = (
                    "%s=%g is too large for this data; decrease it, or "
                    "standardise the features (the hinge loss has a unit "
                    "margin, so the useful beta shrinks with the square of "
                    "the data's scale)" % (self._stage_name(), self.beta_))
            elif self.beta_ > 0 and n_tasks > 1:
                cause = (
                    "%s=%g is too large for this data, or the triplets carry "
                    "no order the basis can express" % (self._stage_name(),
                                                        self.beta_))
            else:
                cause = (
                    "no basis element lowers the loss at any %s, so the "
                    "triplets carry no order the basis can express (for "
                    "instance, each compares two equal points)"
                    % self._stage_name())
            if self.gamma < SMALL_GAMMA:
                cause += (" (or gamma=%g is too small: RDA's steps then "
                          "overshoot; keep it near its default of 1)"
                          % self.gamma)
            warnings.warn("All basis weights are zero, so every distance "
                          "of %s is 0: %s." % (type(self).__name__, cause),
                          UserWarning)
        return result.weights

    def _given_beta(self):
        """The (global stage's) beta as a float; None for ``'auto'``."""
        value = getattr(self, self._stage_name())
        return None if isinstance(value, str) else float(value)

    def _stage_name(self):
        """The parameter that sets the (global stage's) beta."""
        return "beta"

    def _solve_global(self, X, triplets, task_offsets, basis, run=None):
        """One task's weights, or the Euclidean metric's; return w (K,).

        With beta chosen from the data and a generated basis, the result
        is the Euclidean metric (``basis_`` the coordinate axes, each of
        weight one, so ``M = I``; ``euclidean_fallback_``) when the
        held-out points preferred it (the flag set by the choice of beta),
        when the basis is empty (points repeated with noisy labels: every
        triplet's points coincide), when the chosen beta keeps no element,
        or when the learned metric maps distinct training points onto one
        (:func:`~metric_learn_scml._driver.merges_points`; a zero metric
        does), not a worse, zero or merging one. Beyond the paper.
        The Euclidean model comes from no solver: ``n_iter_`` 0,
        ``objective_`` and ``dual_gap_`` NaN, no state for ``partial_fit``.
        """
        fallback = (run is None and self._given_beta() is None
                    and isinstance(self.basis, str))
        chosen = fallback and getattr(self, "euclidean_fallback_", False)
        if chosen or (fallback and not basis.shape[0]):
            reason = ("no basis element" if not chosen else "the held-out "
                      "points preferred it to every beta's model"
                      if len(self.beta_path_) else "no element lowers the "
                      "loss where beta was chosen")
            self.euclidean_fallback_ = True
        else:
            # (partial_fit never falls back: its batches need a state. The
            # learners from labels, which take beta='auto', report it.)
            if hasattr(self, "k_genuine"):
                self.euclidean_fallback_ = False
            weights = self._solve(X, triplets, task_offsets, basis,
                                  run, warn_empty=not fallback)[0]
            if not fallback:
                return weights
            if not weights.any():
                reason = "the chosen beta keeps no element"
            elif merges_points(X, components_from_weights(weights,
                                                          self.basis_)):
                reason = ("the learned metric maps distinct training points "
                          "onto one")
            else:
                return weights
            self.euclidean_fallback_ = True
        self._log.note("Euclidean metric kept", reason=reason)
        self.n_iter_, self.objective_, self.dual_gap_ = 0, np.nan, np.nan
        self.objective_history_ = np.zeros((0, 3))
        for name in ("_rda_state", "_unit"):
            self.__dict__.pop(name, None)
        self.basis_ = np.eye(X.shape[1])
        return np.ones(X.shape[1])

    def _partial_fit(self, build, *data, **options):
        """One ``partial_fit`` call: the method ``build`` (its name) builds
        the batch's :class:`._pipelines.Problem` from ``data``.

        The first call (on an unfitted model) validates the parameters,
        resolves ``beta='auto'`` and draws the basis from its batch, as
        ``fit`` does; every call mines the triplets of its batch (against
        the points remembered, for the learners from labels) and takes
        RDA steps from the running state of the calls (and fits) before
        it. Later calls validate the parameters again, and a float
        beta set between calls applies from the next one, as a learning
        rate does in ``SGDClassifier.partial_fit``. A later call builds
        its new state on a copy of the model and assigns it once it is
        done, so one that raises leaves the model as it was.
        """
        first = not hasattr(self, "_rda_state")
        if first and getattr(self, "euclidean_fallback_", False):
            warnings.warn(
                "%s.partial_fit: the fit kept the Euclidean metric, which has "
                "no solver state to continue, so this call starts a new run "
                "from its batch (with a new basis)." % type(self).__name__,
                UserWarning)
        if first:
            model = self
            model._start_fit()
        else:
            # (Shallow: the attributes' values are replaced, never changed
            # in place.)
            model = object.__new__(type(self))
            vars(model).update(vars(self))
            model._check_params()
            model._start_log()
            warn_changed_settings(model)
            if model._given_beta() is not None:
                model.beta_ = model._given_beta()
        X, triplets, offsets, basis = getattr(model, build)(
            *data, partial=not first, **options)
        if triplets.shape[0] == 0:
            # (The copy, with any task this batch added, is dropped.)
            warnings.warn(
                "%s.partial_fit: this batch gives no triplet (%s), so the "
                "model is unchanged." % (type(self).__name__, (
                    "pairs give triplets where the batch holds similar "
                    "(y=+1) and dissimilar (y=-1) pairs both"
                    if build == "_triplet_problem" else "a triplet needs two "
                    "points of a class and one of another, within a task")),
                UserWarning)
            return self
        model._fit_problem(X, triplets, offsets, basis,
                           model._batch_run(X, offsets))
        if model is not self:
            vars(self).update(vars(model))
        return self

    # Tasks (the multi-task learners); a single task elsewhere.

    def _encode_tasks(self, tasks, n_expected, what, extend=False):
        """Set ``tasks_`` and return each sample's (or triplet's) task index.

        With ``extend`` (later batches of ``partial_fit``), tasks seen for
        the first time join ``tasks_`` (kept sorted), and the rows of the
        solver's state and weights move to their new places; a new task
        starts from zero weights.
        """
        tasks = task_labels(tasks, n_expected, what)
        if extend:
            check_same_label_type(tasks, self.tasks_)
        try:
            known = self.tasks_ if extend else tasks[:0]
            merged = np.unique(np.concatenate([known, tasks]))
            codes = np.searchsorted(merged, tasks)
        except TypeError as error:
            raise TypeError("tasks must be sortable labels of one type (like "
                            "class labels): %s" % error) from None
        if extend and merged.shape[0] > known.shape[0]:
            rows = np.searchsorted(merged, known)
            state = self._rda_state
            grown = np.zeros((merged.shape[0], state.mean_gradient.shape[1]))
            grown[rows] = state.mean_gradient
            # (A new task has taken no step yet.)
            steps = np.zeros(merged.shape[0])
            steps[rows] = state.steps()
            self._rda_state = RDAState(grown, state.iteration, state.scale,
                                       steps)
        self.tasks_ = merged
        return codes.reshape(-1)


class _LinearMetric(MahalanobisMixin):
    """A learner of one Mahalanobis metric :math:`M = L^T L`.

    ``components_`` is :math:`L`; ``transform``, ``pair_distance``,
    ``get_metric`` and ``get_mahalanobis_matrix`` are metric-learn's.
    """

    def pair_distance(self, pairs):
        """Distances :math:`\\sqrt{(x - x')^T M (x - x')}` between the points
        of each pair (metric-learn's, on points taken as floats: a
        difference of integer points would wrap around).

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Pairs of points, or of indices with a ``preprocessor``.

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
        """
        # (metric-learn's order: the pairs' shape, then the fitted metric.)
        check_is_fitted(self, ["preprocessor_"])
        pairs = check_tuples(self, pairs, 2)
        check_is_fitted(self, ["components_"])
        embedded = (pairs[:, 1, :] - pairs[:, 0, :]) @ self.components_.T
        return np.sqrt(np.sum(embedded ** 2, axis=-1))

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
        return check_points(self, X) @ self.components_.T

    def get_metric(self):
        """metric-learn's ``metric(u, v, squared=False)`` on two points.

        Points of another length than the training data's raise a
        ``ValueError`` that names both lengths.
        """
        metric = super().get_metric()

        def metric_fun(u, v, squared=False):
            return metric(*check_metric_points(self, u, v), squared=squared)
        return metric_fun

    def _fit_problem(self, X, triplets, task_offsets, basis, run=None):
        """Learn the weights of ``basis`` (or fall back to the Euclidean
        metric, :meth:`_SCMLEstimator._solve_global`); set ``components_``."""
        self.weights_ = self._solve_global(X, triplets, task_offsets, basis,
                                           run)
        self.n_active_basis_ = int(np.count_nonzero(self.weights_))
        # (The Euclidean fallback's weights and basis are ones and the axes.)
        self.components_ = (
            np.eye(X.shape[1]) if self.n_components is None and getattr(
                self, "euclidean_fallback_", False)
            else components_from_weights(self.weights_, self.basis_,
                                         self.n_components))
        return self
