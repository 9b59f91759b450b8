r"""mt-SCML: one Mahalanobis metric per task over a shared, group-sparse basis.

Shi, Bellet and Sha, *Sparse Compositional Metric Learning*, AAAI 2014,
section "Multi-Task Metric Learning". With tasks :math:`t = 1..T`, triplet
sets :math:`C_t` and a basis :math:`B` that is the union of per-task bases
:math:`B_1, \dots, B_T`, mt-SCML learns one weight row per task,
:math:`W \in \mathbb{R}_+^{T \times K}`, by solving

.. math::

    \min_{W \ge 0}\; \sum_{t=1}^{T} \frac{1}{|C_t|}
    \sum_{(i,j,k) \in C_t}
    \big[1 + d_{W_t}(x_i, x_j) - d_{W_t}(x_i, x_k)\big]_+
    \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2,

where :math:`d_{W_t}(x, x') = (x - x')^T M_t (x - x')` and
:math:`M_t = \sum_k W_{tk} b_k b_k^T`. The :math:`\ell_{2,1}` penalty over
columns makes a basis element either unused by every task or available to
all of them, so the task metrics share one small active set while keeping
their own weights. The solver is the regularized dual averaging of
:func:`metric_learn_scml._solvers.rda` with its exact non-negative group
soft-threshold; each iteration draws a mini-batch from every task, so a
small task weighs in the gradient as it does in the objective.

:class:`TaskMetric` is one task's metric as a plain metric-learn
estimator (what ``for_task`` returns).
"""

import warnings

import numpy as np
from metric_learn.base_metric import _TripletsClassifierMixin
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ._arrays import plain
from ._base import _LinearMetric, _MetricLearner, _SCMLEstimator
from ._defaults import DEFAULT_MEMORY, fill
from ._pipelines import _BuildsProblems, _IncrementalFromLabels
from ._solvers import components_from_weights
from ._validation import (Interval, Options, checked_input, keep_parameters,
                          require_tasks, single_threaded, task_codes,
                          triplet_classifier_tags, warn_score_pairs)


class _BaseMultiTaskSCML(_SCMLEstimator):
    """Per-task fitting and the per-task metric interface of mt-SCML.

    There is no single metric, so every metric method takes the task (and
    this is not a metric-learn ``MahalanobisMixin``); :meth:`for_task`
    gives one task's metric as one.
    """

    _keeps_euclidean = False

    def __sklearn_is_fitted__(self):
        return hasattr(self, "components_per_task_")

    def _fit_problem(self, X, triplets, task_offsets, basis, run=None):
        """Learn ``W`` on index triplets grouped by task (see ``_solve``)."""
        self.weights_ = self._solve(X, triplets, task_offsets, basis, run)
        active = self.weights_.any(axis=0)
        self.active_basis_ = np.flatnonzero(active)
        self.n_active_basis_ = int(active.sum())
        self.n_active_basis_per_task_ = np.count_nonzero(self.weights_, axis=1)
        self.components_per_task_ = [
            components_from_weights(row, self.basis_, self.n_components)
            for row in self.weights_]
        empty = ~self.weights_.any(axis=1)
        # (A model with no element at all has had its warning from _solve.)
        if empty.any() and not empty.all():
            warnings.warn(
                "%s: the metric of task%s %s is zero, so every distance "
                "within %s is 0: its triplets carry no order the basis can "
                "express (for instance, its points are identical), or beta=%g "
                "is too large for it." % (
                    type(self).__name__, "s" if empty.sum() > 1 else "",
                    ", ".join(repr(plain(task)) for task in self.tasks_[empty]),
                    "them" if empty.sum() > 1 else "it", self.beta_),
                UserWarning)
        return self

    def _task_index(self, task):
        check_is_fitted(self)
        if task is None:
            raise ValueError(
                "%s learns one metric per task: pass task=<one of %s>, or use "
                "for_task(task) for a plain estimator of that task's metric."
                % (type(self).__name__, self.tasks_.tolist()))
        if np.ndim(task) != 0:
            raise ValueError(
                "task must be one task id (one of %s), not an array of %d: "
                "the points of several tasks are transformed one task at a "
                "time, e.g. transform(X[tasks == t], task=t) for each t."
                % (self.tasks_.tolist(), np.size(task)))
        try:
            found = np.flatnonzero(self.tasks_ == task)
        except TypeError:
            found = ()  # pandas.NA: its comparisons are NA
        if len(found) != 1:
            raise ValueError("Unknown task %r: the known tasks are %s." % (
                plain(task), self.tasks_.tolist()))
        return int(found[0])

    def _task_codes(self, tasks, n_expected, what):
        """Each label's index in ``tasks_``; unknown labels raise."""
        check_is_fitted(self)
        return task_codes(tasks, self.tasks_, n_expected, what)

    def for_task(self, task):
        """The metric of one task as a fitted plain estimator.

        Parameters
        ----------
        task : label
            One of ``tasks_``.

        Returns
        -------
        metric : TaskMetric
            A metric-learn ``MahalanobisMixin`` with this task's
            ``components_`` (and the ``preprocessor``), usable alone or as the
            first step of a ``Pipeline``.
        """
        index = self._task_index(task)
        components = self.components_per_task_[index]
        metric = TaskMetric(components.copy(),
                            preprocessor=self.preprocessor)._set_metric()
        if hasattr(self, "feature_names_in_"):
            # Fitted on a DataFrame: the task metric expects its columns.
            metric.feature_names_in_ = self.feature_names_in_
        return metric

    def _on_task(self, task, method, *data, **options):
        """``for_task(task).method(*data)``, its input errors naming this
        learner and the task rather than the internal ``TaskMetric``."""
        return self._naming_task(task, getattr(self.for_task(task), method),
                                 *data, **options)

    def _naming_task(self, task, function, *data, **options):
        """``function(*data, **options)`` of the task's ``TaskMetric``, its
        errors and warnings naming this learner and the task instead."""
        name = "%s (task %r)" % (type(self).__name__, plain(task))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = function(*data, **options)
            except ValueError as error:
                raise ValueError(str(error).replace(TaskMetric.__name__,
                                                    name)) from None
            finally:
                messages = list(caught)
        for message in messages:
            warnings.warn(str(message.message).replace(TaskMetric.__name__,
                                                       name),
                          message.category, stacklevel=3)
        return result

    def get_mahalanobis_matrix(self, task=None):
        """The matrix :math:`M_t = \\sum_k W_{tk} b_k b_k^T` of one task.

        Parameters
        ----------
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        M : ndarray of shape (n_features, n_features)
        """
        return self.for_task(task).get_mahalanobis_matrix()

    def get_metric(self, task=None):
        """A function ``metric(u, v, squared=False)`` for one task's metric.

        Parameters
        ----------
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        metric : callable
        """
        metric = self.for_task(task).get_metric()

        def task_metric(u, v, squared=False):
            return self._naming_task(task, metric, u, v, squared=squared)
        return task_metric

    def transform(self, X, task=None):
        """Embed points with one task's linear map :math:`L_t`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, or 1-D indices when a ``preprocessor`` was given.
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        X_embedded : ndarray of shape (n_samples, n_components_t)
        """
        return self._on_task(task, "transform", X)

    def pair_distance(self, pairs, task=None):
        """Distances :math:`\\sqrt{d_{W_t}}` between pairs under one task's metric.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
        """
        return self._on_task(task, "pair_distance", pairs)

    def pair_score(self, pairs, task=None):
        """The opposite of :meth:`pair_distance` (higher is more similar).

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        scores : ndarray of shape (n_pairs,)
        """
        return -self.pair_distance(pairs, task=task)

    def score_pairs(self, pairs, task=None):
        """Deprecated in metric-learn; use :meth:`pair_distance`.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
        task : label
            One of ``tasks_`` (required).

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
        """
        warn_score_pairs()
        return self.pair_distance(pairs, task=task)


class MultiTaskSCML_Supervised(_IncrementalFromLabels, _BaseMultiTaskSCML):
    r"""Multi-task Sparse Compositional Metric Learning from labels (mt-SCML).

    Learns one metric :math:`M_t = \sum_k W_{tk} b_k b_k^T` per task from
    class labels, with a group-sparsity penalty on the columns of
    :math:`W \ge 0` so that all tasks draw on one small shared set of basis
    elements (Shi, Bellet and Sha, AAAI 2014, eq. (3)). Each task gets its
    own triplets (its ``k_genuine`` nearest same-class and ``k_impostor``
    nearest other-class neighbours, within the task) and its own local
    discriminative basis; the basis is their union.

    Every metric method takes the task: ``get_mahalanobis_matrix(task)``,
    ``get_metric(task)``, ``transform(X, task=...)``,
    ``pair_distance(pairs, task=...)``, ``pair_score(pairs, task=...)``;
    without one they raise a ``ValueError`` (there is no sensible global
    metric). ``for_task(task)`` returns the task's metric as a plain
    :class:`~metric_learn_scml.multitask.TaskMetric`.

    Parameters
    ----------
    k_genuine : int, default=3
        Same-class neighbours ("targets") per point, within its task (all
        of them where its class has fewer; a value larger than any point
        has warns).
    k_impostor : int or 'auto', default='auto'
        Other-class neighbours ("impostors") per point, within its task
        (likewise; 'auto' as in :class:`~metric_learn_scml.SCML_Supervised`,
        with the task's classes).
    beta : 'auto' or float, default='auto'
        Strength of the group penalty
        :math:`\beta \sum_k \|W_{:,k}\|_2` (>= 0). Larger values keep
        fewer basis elements, and an element is dropped for all tasks at
        once. ``'auto'`` runs on each task the choice of
        :class:`~metric_learn_scml.SCML_Supervised`'s ``beta='auto'`` (the
        same grid and rule; each task's folds are held out in turn until
        its share of the {{MIN_SCORED_POINTS}} points, in proportion to its
        points, is scored), chooses from the tasks'
        held-out mistakes pooled at each multiple of :math:`\beta_{\max}`
        (the sparsest value within the band where every task has
        {{SPARSE_CHOICE_MIN_POINTS}} points or more, else the densest),
        and applies the chosen multiple to the norm of the
        tasks' :math:`\beta_{\max}`: for :math:`T` like tasks that is
        :math:`\sqrt{T}` times the single-task value, as the group norm of
        a column they share is :math:`\sqrt{T}` times one task's weight.
        Beyond the paper; there is no Euclidean fallback. A float is used
        as given (the paper's value is ``1e-5``, for standardised
        features).
    basis : {'lda', 'triplet_diffs'} or array-like of shape (n_basis, n_features), default='lda'
        ``'lda'`` builds the paper's local discriminative basis (as in
        :class:`~metric_learn_scml.SCML_Supervised`) on each task's data
        and stacks them; ``'triplet_diffs'`` the basis of
        :class:`MultiTaskSCML` from each task's mined triplets. An array is shared by all tasks as given, its rows
        scaled to unit norm.
    n_basis : int, default=None
        Number of basis elements to generate *per task* (ignored for an
        array ``basis``); the basis is the union of the task bases, each
        element kept once (see :class:`SCML_Supervised`). ``None`` uses
        ``K = clip(20 * n_features, 400, 1000)`` per task for up to four
        tasks (the paper: 400 for each of its four tasks, 1,600 in the
        union), and beyond that splits the same union budget ``4 * K``
        evenly, ``max(n_features, ceil(4 * K / n_tasks))`` per task, so
        that the cost of a step grows linearly with the number of tasks,
        not quadratically.
    gamma, max_iter, output_iter
        As in :class:`~metric_learn_scml.SCML_Supervised`.
    batch_size : int, default=32
        Triplets drawn from every task at each iteration. A batch that
        covers the largest task is one pass over every triplet per
        iteration (each task's expected batch, with no draws).
    tol : float, default=1e-3
        Improvement of the best objective, per task, below which an
        evaluation counts as no progress: the objective is a sum of one
        mean hinge per task (``n_tasks`` at ``W = 0``), so the solver stops
        on improvements below ``n_tasks * tol``, the rule a single-task
        model applies to each task.
    n_iter_no_change : int, default=4
        Evaluations in a row without progress that stop the solver.
    solver : {'rda', 'exact', 'auto'}, default='rda'
        ``'rda'`` is the paper's regularized dual averaging, run again
        from zero on the elements that carry its iterate's weight, and
        again from each point kept, while that lowers the objective and
        narrows the elements, the runs together within as much work as
        the first RDA run did (beyond the paper: RDA's iterate averages
        every gradient since ``W = 0``, and keeps many small weights that
        the optimum drops); ``fit_stages_`` records every run
        (``partial_fit`` keeps RDA's own iterate). ``'exact'``
        then takes its result to the exact optimum of the same problem
        (column generation over the directions of the group norm, each
        round a linear program, certified by the duality gap
        ``dual_gap_``; beyond the paper). Its linear programs are dense in
        tasks x triplets, so it can take minutes where RDA takes seconds,
        hence not the default (measured in :doc:`/multitask`). ``'auto'``
        runs the exact phase up to {{EXACT_MAX_TRIPLETS}} triplets in all, within a budget of {{EXACT_WORK_RATIO}} times RDA's work (counted
        in entries of triplets x elements, so that a fit is the same on any
        machine; below {{EXACT_FLOOR_TRIPLETS}} triplets in all,
        {{EXACT_MIN_WORK}} entries at least; out of budget it keeps its best point and reports the
        duality gap), and is ``'rda'`` beyond (and at ``beta=0``). A duality
        gap above ``{{EXACT_GAP_TOL}}`` times the objective after the phase has ended is
        not a certificate: the fit then warns (``ConvergenceWarning``).
    partial_fit_memory, verbose, preprocessor, random_state
        As in :class:`~metric_learn_scml.SCML_Supervised`.
    n_components : int, default=None
        Width of each task's embedding (``transform(X, task=...)`` and
        ``for_task(task)``): ``None`` keeps each task metric whole, an int
        ``k`` (at most ``n_features``) its top ``k`` eigen-directions, as
        ``n_components`` of :class:`~metric_learn_scml.SCML_Supervised`
        does; ``get_mahalanobis_matrix(task)`` is then the rank-``k``
        truncation of :math:`M_t`. Beyond the paper.

    Attributes
    ----------
    tasks_ : ndarray of shape (n_tasks,)
        The task ids, sorted as by :func:`numpy.unique`; row ``t`` of
        ``weights_`` belongs to ``tasks_[t]``.
    beta_ : float
        The beta used (``beta``, or, for the learners that take
        ``beta='auto'``, the one it chose).
    weights_ : ndarray of shape (n_tasks, n_basis)
        Learned non-negative weights :math:`W`.
    basis_ : ndarray of shape (n_basis, n_features)
        The unit-norm basis rows :math:`b_k` (task bases stacked in the
        order of ``tasks_``, an element repeated in a later task's basis
        kept once).
    active_basis_ : ndarray of int
        Indices of the basis elements used by at least one task (the
        shared active set).
    n_active_basis_ : int
        Size of the shared active set.
    n_active_basis_per_task_ : ndarray of shape (n_tasks,)
        Elements with non-zero weight in each task.
    components_per_task_ : list of ndarray of shape (n_components_t, n_features)
        Linear map :math:`L_t` of each task (:math:`M_t = L_t^T L_t`). There
        is no single ``components_``: use ``for_task(task)`` for a plain
        estimator of one task's metric.
    n_iter_ : int
        Stochastic iterations run: those of every RDA run whose point was
        kept (``solver``), so it can exceed ``max_iter``.
    objective_ : float
        Objective value of the returned weights (``n_tasks`` at ``W = 0``).
    objective_history_, dual_gap_, fit_stages_, n_features_in_, beta_path_, validation_error_path_
        As in :class:`~metric_learn_scml.SCML_Supervised`.

    See Also
    --------
    MultiTaskSCML : the same model learned from triplets.
    metric_learn_scml.SCML_Supervised : one metric for all the data; with a
        single task, this model gives the same result for the same seed as
        ``SCML_Supervised(beta=..., solver='rda')`` (both RDA alone).

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import MultiTaskSCML_Supervised
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> tasks = np.where(X[:, 0] > 0, "high alcohol", "low alcohol")
    >>> mt = MultiTaskSCML_Supervised(n_basis=100, random_state=0)
    >>> mt = mt.fit(X, y, tasks)
    >>> mt.weights_.shape
    (2, 200)
    >>> mt.get_mahalanobis_matrix("low alcohol").shape
    (13, 13)
    >>> mt.transform(X[:2], task="high alcohol").shape[0]
    2
    """
    __doc__ = fill(__doc__)

    _parameter_constraints = {
        "beta": [Options("auto"), Interval("float", low=0)],
    }

    def __init__(self, k_genuine=3, k_impostor="auto", beta="auto",
                 basis="lda", n_basis=None, gamma=1.0, max_iter=20000,
                 output_iter=250, batch_size=32, tol=1e-3,
                 n_iter_no_change=4, solver="rda",
                 partial_fit_memory=DEFAULT_MEMORY, verbose=False,
                 preprocessor=None, random_state=None, n_components=None):
        keep_parameters(self, locals())

    @single_threaded
    def fit(self, X, y, tasks):
        """Build each task's triplets and basis, then learn the task metrics.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points of all tasks (or 1-D indices with a
            ``preprocessor``).
        y : array-like of shape (n_samples,)
            Class labels; every task needs at least two classes.
        tasks : array-like of shape (n_samples,)
            The task of each sample (any labels, like class labels).

        Returns
        -------
        self : MultiTaskSCML_Supervised
        """
        require_tasks(self, tasks, "sample", "SCML_Supervised")
        self._start_fit()
        return self._fit_problem(*self._labels_problem(X, y, tasks))

    @single_threaded
    def partial_fit(self, X, y, tasks):
        """Learn from one more batch of labelled points (incremental fitting).

        As :meth:`SCML_Supervised.partial_fit`, with each task's triplets
        mined among the batch's and the remembered points of the task. A
        task seen first in a later batch joins ``tasks_`` with zero
        weights (its points enter the basis when it is drawn anew). A task
        absent from a batch takes no step: RDA averages each task's
        subgradients over the steps it took (beyond the paper, which has
        no batches), so its metric moves only where the group penalty
        couples it to the tasks that stepped.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        tasks : array-like of shape (n_samples,)

        Returns
        -------
        self : MultiTaskSCML_Supervised
        """
        require_tasks(self, tasks, "sample", "SCML_Supervised")
        return self._partial_fit("_labels_batch", X, y, tasks)


class MultiTaskSCML(_BuildsProblems, _BaseMultiTaskSCML,
                    _TripletsClassifierMixin):
    r"""Multi-task Sparse Compositional Metric Learning from triplets (mt-SCML).

    Learns one metric :math:`M_t = \sum_k W_{tk} b_k b_k^T` per task from
    triplets ``(a, b, c)`` ("b is closer to a than c is"), each belonging
    to one task, with a group-sparsity penalty on the columns of
    :math:`W \ge 0` so that all tasks share one small set of basis elements
    (Shi, Bellet and Sha, AAAI 2014, eq. (3)). With labels, use
    :class:`MultiTaskSCML_Supervised`.

    Every metric method takes the task: ``get_mahalanobis_matrix(task)``,
    ``get_metric(task)``, ``transform(X, task=...)``,
    ``pair_distance(pairs, task=...)``, ``pair_score(pairs, task=...)``;
    without one they raise a ``ValueError`` (there is no sensible global
    metric). ``for_task(task)`` returns the task's metric as a plain
    :class:`~metric_learn_scml.multitask.TaskMetric`. As a classifier of triplets,
    ``predict``, ``decision_function`` and ``score`` take the task of each
    triplet as their second argument, as ``fit`` does, so ``tasks`` plays
    the role of ``y`` in ``cross_val_score`` and ``GridSearchCV``.

    Parameters
    ----------
    beta : float, default=1e-5
        Strength of the group penalty
        :math:`\beta \sum_k \|W_{:,k}\|_2` (>= 0). Larger values keep fewer
        basis elements, and an element is dropped for all tasks at once.
    basis : {'triplet_diffs'} or array-like of shape (n_basis, n_features), default='triplet_diffs'
        ``'triplet_diffs'`` builds the locally discriminative elements of
        :class:`~metric_learn_scml.SCML` from each task's triplets and
        stacks them. An array is shared by all tasks as given, its rows
        scaled to unit norm.
    n_basis
        As in :class:`MultiTaskSCML_Supervised`.
    gamma, max_iter, output_iter
        As in :class:`~metric_learn_scml.SCML_Supervised`.
    batch_size, tol, n_iter_no_change, solver
        As in :class:`MultiTaskSCML_Supervised`.
    verbose, preprocessor, random_state
        As in :class:`~metric_learn_scml.SCML_Supervised`.
    n_components
        As in :class:`MultiTaskSCML_Supervised`.

    Attributes
    ----------
    tasks_, beta_, weights_, basis_, active_basis_, n_active_basis_, n_active_basis_per_task_, components_per_task_, n_iter_, objective_
        As in :class:`MultiTaskSCML_Supervised`.
    objective_history_, dual_gap_, fit_stages_, n_features_in_
        As in :class:`~metric_learn_scml.SCML_Supervised`.

    See Also
    --------
    MultiTaskSCML_Supervised : the same model learned from class labels.
    metric_learn_scml.SCML : one metric for all triplets.

    References
    ----------
    Y. Shi, A. Bellet and F. Sha. Sparse Compositional Metric Learning.
    AAAI 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml import MultiTaskSCML
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(80, 3)
    >>> idx = rng.randint(0, 80, size=(400, 3))
    >>> tasks = np.repeat(["first", "second"], 200)
    >>> # task "first" compares points on feature 0, "second" on feature 1
    >>> feature = np.where(tasks == "first", 0, 1)[:, None]
    >>> gap = np.abs(X[idx, feature] - X[idx[:, [0]], feature])
    >>> swap = gap[:, 1] > gap[:, 2]
    >>> idx[swap, 1:] = idx[swap, 1:][:, ::-1]
    >>> mt = MultiTaskSCML(n_basis=40, random_state=0).fit(X[idx], tasks)
    >>> bool(mt.score(X[idx], tasks) > 0.9)
    True
    """
    __doc__ = fill(__doc__)
    # (As SCML's: the labels predict gives, not metric-learn's [0, 1].)
    classes_ = np.array([-1, 1])

    def __init__(self, beta=1e-5, basis="triplet_diffs", n_basis=None,
                 gamma=1.0, max_iter=20000, output_iter=250, batch_size=32,
                 tol=1e-3, n_iter_no_change=4, solver="rda", verbose=False,
                 preprocessor=None, random_state=None, n_components=None):
        keep_parameters(self, locals())

    @single_threaded
    def fit(self, triplets, tasks):
        """Learn one metric per task from triplets.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
            Triplets of points, or of indices when a ``preprocessor`` is
            given, ordered so that ``d(t[0], t[1]) < d(t[0], t[2])`` is
            wanted under the triplet's task metric.
        tasks : array-like of shape (n_triplets,)
            The task of each triplet (any labels, like class labels).

        Returns
        -------
        self : MultiTaskSCML
        """
        require_tasks(self, tasks, "triplet", "SCML")
        self._start_fit()
        return self._fit_problem(*self._triplet_problem(triplets, tasks))

    @single_threaded
    def partial_fit(self, triplets, tasks):
        """Learn from one more batch of triplets (incremental fitting).

        As :meth:`SCML.partial_fit`; a task seen first in a later batch
        joins ``tasks_`` with zero weights, and a task absent from a batch
        takes no step (as in
        :meth:`~metric_learn_scml.MultiTaskSCML_Supervised.partial_fit`).

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
        tasks : array-like of shape (n_triplets,)

        Returns
        -------
        self : MultiTaskSCML
        """
        require_tasks(self, tasks, "triplet", "SCML")
        return self._partial_fit("_triplet_problem", triplets, tasks)

    def decision_function(self, triplets, tasks):
        """``d_t(a, c) - d_t(a, b)`` for each triplet under its task's metric.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
        tasks : array-like of shape (n_triplets,)

        Returns
        -------
        scores : ndarray of shape (n_triplets,)
            Positive when ``b`` is closer to ``a`` than ``c`` is.
        """
        check_is_fitted(self)
        require_tasks(self, tasks, "triplet", "SCML")
        triplets = checked_input(self, triplets, type_of_inputs="tuples",
                                 tuple_size=3, dtype=np.float64)
        codes = self._task_codes(tasks, triplets.shape[0], "triplet")
        scores = np.empty(triplets.shape[0])
        for code in np.unique(codes):
            rows = codes == code
            metric = self.for_task(self.tasks_[code])
            scores[rows] = (metric.pair_distance(triplets[rows][:, [0, 2]])
                            - metric.pair_distance(triplets[rows][:, :2]))
        return scores

    def predict(self, triplets, tasks):
        """+1 where ``b`` is closer to ``a`` than ``c`` is (task metric), else -1.

        Ties give -1, and the labels are integers, as metric-learn's (and
        :class:`SCML`'s) ``predict``.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
        tasks : array-like of shape (n_triplets,)

        Returns
        -------
        labels : ndarray of shape (n_triplets,) of int
        """
        return 2 * (self.decision_function(triplets, tasks) > 0) - 1

    def score(self, triplets, tasks):
        """Fraction of triplets whose ordering the task metrics respect.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
        tasks : array-like of shape (n_triplets,)

        Returns
        -------
        accuracy : float
        """
        return float(np.mean(self.predict(triplets, tasks) == 1))

    def __sklearn_tags__(self):
        # fit(triplets, tasks): the tasks play the target's part.
        return triplet_classifier_tags(super().__sklearn_tags__(),
                                       target_required=True)


class TaskMetric(ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                 _LinearMetric, _MetricLearner):
    r"""A fixed Mahalanobis metric :math:`M = L^T L`, as a plain estimator.

    What :meth:`~metric_learn_scml.MultiTaskSCML_Supervised.for_task` and
    :meth:`~metric_learn_scml.MultiTaskSCML.for_task` return: one task's
    metric as a metric-learn ``MahalanobisMixin`` with ``components_``,
    ``transform``, ``pair_distance``, ``pair_score``, ``get_metric`` and
    ``get_mahalanobis_matrix``. The linear map is a parameter, so ``fit``
    learns nothing: it only checks the data and marks the estimator fitted.
    This keeps the metric through :func:`sklearn.base.clone`, so it can be
    the first step of a :class:`~sklearn.pipeline.Pipeline` (for instance
    before a k-nearest-neighbour classifier) and be cross-validated there.
    It shares the SCML learners' input checks and ``transform``, but has
    none of their hyper-parameters.

    Parameters
    ----------
    components : array-like of shape (n_components, n_features)
        The linear map :math:`L`.
    preprocessor : array-like or callable, default=None
        Turns indices into points, as in metric-learn.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        A copy of ``components`` as float64.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml.multitask import TaskMetric
    >>> metric = TaskMetric(np.diag([2.0, 0.0])).fit(np.zeros((1, 2)))
    >>> metric.pair_distance([[[0.0, 0.0], [1.0, 5.0]]])
    array([2.])
    """

    # Named here so that set_output wraps it (see SCML_Supervised).
    transform = _LinearMetric.transform

    def __init__(self, components, preprocessor=None):
        keep_parameters(self, locals())

    def fit(self, X=None, y=None):
        """Check ``X`` (if given) against the metric; nothing is learned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
        y : ignored

        Returns
        -------
        self : TaskMetric
        """
        self._set_metric()
        if X is not None:
            if self.preprocessor_ is None:
                # Record X's feature names, if any, for transform to expect;
                # the metric, not X, gives n_features_in_.
                validate_data(self, X, skip_check_array=True)
                self.n_features_in_ = self.components_.shape[1]
            self.transform(X)
        return self

    def _set_metric(self):
        self._check_preprocessor()
        self.components_ = check_array(self.components, dtype=np.float64,
                                       copy=True, input_name="components")
        self.n_features_in_ = self.components_.shape[1]
        return self
