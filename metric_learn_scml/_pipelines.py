r"""From the user's data to a solver's problem: the two pipelines and the
learners' ``fit`` and ``partial_fit``.

A fit solves a :class:`Problem`: the points, the index triplets grouped
by task and the basis. Pure functions build it from values
(:func:`labels_triplets`, :func:`grouped_by_task`, :func:`union_basis`);
the estimator's side (:class:`_BuildsProblems`) validates the data,
encodes the tasks, assigns the choice of beta and keeps what
``partial_fit`` continues from. The mixins :class:`_FromLabels`,
:class:`_FromTriplets` and their incremental forms give each learner its
``fit`` (and ``partial_fit``), and :class:`._base._SCMLEstimator` solves.

**The bounded memory of** ``partial_fit`` **from labels** (beyond the
paper). Two things ``fit`` has and a stream of batches lacks (issue 29): triplets
whose targets and impostors are the nearest among all the points, and a
basis drawn from all of them (Fisher neighbourhoods of ``J`` points per
class are more local on denser data). ``partial_fit`` keeps a uniform
sample of the points seen so far (:func:`remember`, reservoir sampling),
mines each batch's anchors against the batch and that sample, and, when
the sample has grown enough, draws a new basis from them, replacing the
elements the model does not use (:func:`renewed_basis`).
"""

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._arrays import checked_random_state, distinct_rows, plain
from ._driver import PathSettings, pool_selections, scored_shares, select_beta
from ._solvers import RDAState
from ._triplets import (default_n_basis, distinct_elements, labels_basis,
                        task_basis_size, triplet_basis, triplets_from_labels)
from ._validation import (ArrayLike, Interval, Options, check_basis_array,
                          check_same_label_type, check_tuples, is_pairs,
                          single_threaded, triplet_classifier_tags,
                          validate_supervised, validate_triplets,
                          warn_unused_neighbours)

# A new basis is drawn once the points it would come from are this many
# times those of the current one: a basis of J points per class grows
# more local with the density of its points, so doubling them redraws it
# log2(memory / first batch) times in all (NOTES, "partial_fit at scale").
# Evidence: NOTES.md, "partial_fit at scale".
BASIS_GROWTH = 2


class Problem(NamedTuple):
    """What a fit solves, built from the data and the settings alone.

    ``triplets`` index the points ``X``, grouped by task: task ``t`` owns
    ``triplets[task_offsets[t]:task_offsets[t + 1]]``. ``basis`` is the
    user's array, or the union of one generated basis per task.
    """

    X: np.ndarray
    triplets: np.ndarray
    task_offsets: np.ndarray
    basis: np.ndarray


def grouped_by_task(triplets, codes, n_tasks):
    """``triplets`` sorted by their task ``codes`` (stably), and the task
    offsets; one task without ``codes``."""
    if codes is None:
        return triplets, np.array([0, triplets.shape[0]])
    order = np.argsort(codes, kind="stable")
    return triplets[order], np.searchsorted(codes[order], np.arange(n_tasks
                                                                    + 1))


def basis_size(n_basis, n_features):
    """The generated basis' size: ``n_basis``, or by default
    :func:`._triplets.default_n_basis`."""
    return default_n_basis(n_features) if n_basis is None else int(n_basis)


def path_settings(basis, n_basis, k_genuine, k_impostor, n_features, rda):
    """The :class:`~metric_learn_scml._driver.PathSettings` of these
    parameters: a ``basis`` array checked, the generated basis' size
    resolved."""
    if not isinstance(basis, str):
        basis = check_basis_array(basis, n_features, n_basis)
    return PathSettings(basis, basis_size(n_basis, n_features), k_genuine,
                        k_impostor, rda)


def union_basis(basis, n_basis, n_features, build, n_tasks=1):
    """The ``basis`` array (checked), or for a generated ``basis`` the union
    of ``build(task, n_basis)`` over the tasks, each element once
    (:func:`._triplets.task_basis_size` sizes each task's share of
    ``n_basis``, None for the default)."""
    if not isinstance(basis, str):
        return check_basis_array(basis, n_features, n_basis)
    per_task = task_basis_size(n_tasks, basis_size(n_basis, n_features),
                               n_features, n_basis is None)
    return distinct_elements(np.concatenate(
        [build(task, per_task) for task in range(n_tasks)]))


def labelled_problem(X, triplets, basis):
    """The :class:`Problem` of each task's ``triplets`` (a list, in task
    order) on the points ``X``."""
    offsets = np.concatenate([[0], np.cumsum([t.shape[0] for t in triplets])])
    return Problem(X, np.concatenate(triplets), offsets, basis)


def labels_triplets(X, y, members, k_genuine, k_impostor, random_state,
                    progress=None, names=None, partial=False, n_anchors=None):
    """Each task's triplets: ``k_genuine x k_impostor`` per point of
    ``X[members[t]]``, as indices into ``X``; errors name the task
    (``names[t]``; one task without ``names``).

    ``n_anchors``: only the first ``n_anchors`` points of ``X`` (a
    ``partial_fit`` batch before the points remembered) anchor triplets.
    ``partial`` (a later batch of ``partial_fit``): a task whose points
    give no triplet gets an empty set instead of an error.
    """
    found = []
    for task, rows in enumerate(members):
        anchors = (None if n_anchors is None
                   else np.flatnonzero(rows < n_anchors))
        found.append(rows[task_triplets(
            X[rows], y[rows], k_genuine, k_impostor, random_state, progress,
            None if names is None else names[task], partial, anchors)])
    return found


def task_triplets(X, y, k_genuine, k_impostor, random_state, progress=None,
                  name=None, partial=False, anchors=None):
    """The triplets of one task's points (of its ``anchors`` only, when
    given); errors name the task ``name`` (None: the only task, whose
    errors are the miner's own).

    In a later batch of ``partial_fit`` (``partial``), points that give no
    triplet give an empty set instead of an error.
    """
    def mine():
        return triplets_from_labels(X, y, k_genuine, k_impostor,
                                    random_state=random_state,
                                    anchors=anchors, progress=progress)

    if partial:
        if np.unique(y).shape[0] < 2 or (anchors is not None
                                         and anchors.shape[0] == 0):
            return np.zeros((0, 3), dtype=np.intp)
        try:
            return mine()
        except ValueError:
            return np.zeros((0, 3), dtype=np.intp)
    if name is None:
        return mine()
    if np.unique(y).shape[0] < 2:
        raise ValueError(
            "Task %r has a single class (%r): every task needs at least two "
            "classes to build triplet constraints." % (plain(name), plain(y[0])))
    try:
        return mine()
    except ValueError as error:
        message = str(error)
        raise ValueError("Task %r: %s%s" % (
            plain(name), message[:1].lower(), message[1:])) from None


class _BuildsProblems:
    """The estimator's side of building a :class:`Problem`.

    It validates the data, encodes the tasks, assigns the choice of beta
    and keeps what ``partial_fit`` continues from; the functions above
    build, from values only.
    """

    def _triplet_problem(self, triplets, tasks=None, partial=False, y=None):
        """The problem of triplets (or of labelled pairs ``y``), with
        ``tasks`` one label per triplet. ``partial``: a later batch of
        ``partial_fit``, which keeps the basis of the first."""
        if tasks is not None and is_pairs(triplets):
            raise ValueError(
                "%s learns from triplets (tuples of 3 points, or of 3 "
                "indices with a preprocessor), each with its task; it got "
                "pairs (a second axis of length 2). For labelled pairs, fit "
                "SCML (one metric) on each task's pairs." % type(self).__name__)
        indices, X = validate_triplets(self, triplets, reset=not partial, y=y)
        codes = None if tasks is None else self._encode_tasks(
            tasks, indices.shape[0], "triplet", extend=partial)
        indices, offsets = grouped_by_task(
            indices, codes, None if tasks is None else self.tasks_.shape[0])
        with self._log.stage("building the basis") as facts:
            basis = self.basis_ if partial else union_basis(
                self.basis, self.n_basis, X.shape[1],
                lambda t, n: triplet_basis(X, indices[offsets[t]:offsets[t + 1]],
                                           n, random_state=self._rng),
                offsets.shape[0] - 1)
            facts.update(triplets=indices.shape[0], elements=basis.shape[0])
        return Problem(X, indices, offsets, basis)

    def _labels_problem(self, X, y, tasks=None, choose=None):
        """``fit``'s problem of labelled points.

        Each task (one, without ``tasks``) gets its ``k_genuine x
        k_impostor`` triplets among its own points and its own local
        discriminative basis; the basis is their union. ``beta='auto'`` is
        resolved here, once each task's triplets are known to exist and
        before the basis is drawn: ``choose(X, y, min_scored_points)`` of
        each task's points (its share of the held-out points to score,
        :func:`~metric_learn_scml._driver.scored_shares`) returns a
        :class:`~metric_learn_scml._driver.BetaSelection` (by default
        :meth:`_FromLabels._choose_beta`; ``SCML_SupervisedCV`` passes its
        cross-validation).
        """
        X, y = validate_supervised(self, X, y)
        codes = None if tasks is None else self._encode_tasks(
            tasks, X.shape[0], "sample")
        members, triplets = self._mined(X, y, codes)
        warn_unused_neighbours(y, members, self.k_genuine, self.k_impostor)
        if self.beta_ is None:
            self._assign_selection(choose or self._choose_beta, X, y, members)
        with self._log.stage("building the basis") as facts:
            basis = self._drawn_basis(X, y, members, triplets)
            facts.update(elements=basis.shape[0])
        return labelled_problem(X, triplets, basis)

    def _labels_batch(self, X, y, tasks=None, partial=False):
        """A ``partial_fit`` call's problem of labelled points.

        The first call (not ``partial``) builds what :meth:`_labels_problem`
        builds from its batch. The batch's points are the anchors, mined
        against the batch and the points remembered (:class:`PointMemory`),
        which follow the batch's in ``X``; a later batch keeps the basis,
        and a task whose points here give no triplet (absent, or a single
        class) simply has none. When the points have grown
        :data:`BASIS_GROWTH` times since the basis was drawn, its inactive
        elements are replaced by a new draw from them, which it grows to
        (:func:`renewed_basis`). The batch joins the memory.
        """
        X, y = validate_supervised(self, X, y, reset=not partial)
        n_batch = X.shape[0]
        codes = None if tasks is None else self._encode_tasks(
            tasks, n_batch, "sample", extend=partial)
        earlier = self.__dict__.get("_memory")
        remembered = earlier is not None and earlier.X.shape[0] > 0
        if remembered:
            check_same_label_type(y, earlier.y, "y")
            X, y, codes = earlier.after(X, y, codes, None if tasks is None
                                        else self.tasks_)
        members, triplets = self._mined(X, y, codes, partial,
                                        n_batch if remembered else None)
        if self.beta_ is None:
            self._assign_selection(self._choose_beta, X, y, members,
                                   batch=True)
        renew = (remembered and isinstance(self.basis, str)
                 and X.shape[0] >= BASIS_GROWTH * self._basis_points
                 and any(t.shape[0] for t in triplets))
        with self._log.stage("building the basis") as facts:
            if renew:
                basis, source = renewed_basis(
                    self.basis_, np.atleast_2d(self.weights_).any(axis=0),
                    self._drawn_basis(X, y, members, triplets))
                self._rda_state = renewed_state(self._rda_state, source)
            else:
                basis = (self.basis_ if partial else
                         self._drawn_basis(X, y, members, triplets))
            facts.update(elements=basis.shape[0])
        self._memory = remember(
            earlier, X[:n_batch], y[:n_batch], None if tasks is None
            else self.tasks_[codes[:n_batch]], self.partial_fit_memory,
            self._rng)
        return labelled_problem(X, triplets, basis)

    def _mined(self, X, y, codes, partial=False, n_anchors=None):
        """Each task's points (``codes``: None for one task) and its
        triplets (:func:`labels_triplets`)."""
        members = ([np.arange(X.shape[0])] if codes is None else
                   [np.flatnonzero(codes == t)
                    for t in range(self.tasks_.shape[0])])
        with self._log.stage("mining triplets") as facts:
            triplets = labels_triplets(
                X, y, members, self.k_genuine, self.k_impostor, self._rng,
                self._log.ticker("classes searched"),
                None if codes is None else self.tasks_, partial, n_anchors)
            facts.update(points=X.shape[0],
                         triplets=sum(t.shape[0] for t in triplets))
        return members, triplets

    def _drawn_basis(self, X, y, members, triplets):
        """The union of the tasks' generated bases (or the ``basis``
        array), drawn from ``X``; ``partial_fit`` redraws it once the
        points have grown :data:`BASIS_GROWTH` times."""
        self._basis_points = X.shape[0]
        return union_basis(self.basis, self.n_basis, X.shape[1],
                           lambda t, n: labels_basis(
                               self.basis, X, y, members[t], triplets[t],
                               n, self._rng), len(members))

    def _assign_selection(self, choose, X, y, members, batch=False):
        """``beta='auto'``: one selection per task, each the one a
        single-task model of that task makes, pooled (for mt-SCML) into
        one beta; the estimator keeps it. The Euclidean metric is kept
        where the selection prefers it and the learner can: a fit (not a
        ``partial_fit`` ``batch``, whose later batches need a solver
        state) of a generated basis, by a learner that
        ``_keeps_euclidean``."""
        with self._log.stage("choosing %s" % self._stage_name()) as facts:
            selections = [choose(X[rows], y[rows], scored) for rows, scored
                          in zip(members, scored_shares(members))]
            selection = pool_selections(selections)
            facts.update(values_tried=selection.betas,
                         held_out_3nn_errors=selection.errors,
                         held_out_points=selection.n_scored)
            # (SCML_SupervisedCV's folds do not score the Euclidean metric.)
            if np.isfinite(selection.euclidean_error):
                facts.update(Euclidean_3nn_error=selection.euclidean_error)
            facts.update(chosen=selection.beta)
            if selection.reason is None:
                facts.update(rule="the %s within the band" % (
                    "sparsest" if selection.sparsest else "densest"))
        keeps = (self._keeps_euclidean and isinstance(self.basis, str)
                 and not batch)
        failed = [t for t, one in enumerate(selections)
                  if one.reason is not None]
        if failed:
            self._warn_unscored(selections, failed, selection, keeps)
        self.beta_ = selection.beta
        self.beta_path_ = selection.betas
        self._selection = selection
        self.validation_error_path_ = selection.errors
        if self._keeps_euclidean:
            self.euclidean_fallback_ = selection.euclidean and keeps

    def _warn_unscored(self, selections, failed, selection, keeps):
        """Warn that the choice of beta could not score the tasks ``failed``
        (all of one, for a single task), naming them and the fix."""
        name, stage = type(self).__name__, self._stage_name()
        said = "; ".join(
            selections[t].reason + ("" if len(selections) == 1 else
                                    " on task %r" % (plain(self.tasks_[t]),))
            for t in failed)
        if selection.reason is None:
            warnings.warn(
                "%s(%s='auto') %s, so %s_ is chosen on the held-out points "
                "of the other tasks. Give %s a value, or more points per "
                "class." % (name, stage, said, stage, stage), UserWarning)
            return
        if selection.euclidean and keeps:
            warnings.warn(
                "%s(%s='auto') %s, so the Euclidean metric is kept "
                "(euclidean_fallback_): the labels' nearest neighbours give "
                "no triplet order that an element of the basis improves. "
                "With many classes that overlap, the k_impostor=%r "
                "impostors of a point can all lie closer than its "
                "k_genuine=%d targets: a larger k_impostor, such as the "
                "number of classes, adds farther ones that a metric can "
                "push out." % (name, stage, selection.reason,
                               self.k_impostor, self.k_genuine), UserWarning)
            return
        warnings.warn(
            "%s(%s='auto') %s, so %s=%g is used, without the held-out check "
            "against the Euclidean metric. Give %s a value, or more points "
            "per class." % (name, stage, said, stage, selection.beta, stage),
            UserWarning)


class _FromTriplets(_BuildsProblems):
    """``fit(triplets)``: the weakly supervised learners."""

    # The labels predict gives, in scikit-learn's order (decision_function
    # > 0 means +1): metric-learn's mixins say [0, 1], and scikit-learn's
    # threshold and calibration wrappers, which see a classifier here
    # (triplet_classifier_tags), then predicted 0 for -1.
    classes_ = np.array([-1, 1])

    @single_threaded
    def fit(self, triplets, y=None):
        """Learn the metric from triplets, or from labelled pairs.

        Pairs are metric-learn's format for ITML, MMC and SDML. Beyond the
        paper, they become the triplets ``(a, b, c)`` of every point ``a``
        with a similar pair ``(a, b)`` and a dissimilar pair ``(a, c)``
        (both orientations of each pair; a point is identified by its
        coordinates, or its row of the ``preprocessor``), at most 30 per
        point, drawn with ``random_state``. Pairs that share no point form
        no triplet here, and raise a ``ValueError`` when no pair forms
        one; :class:`~metric_learn_scml.SCML` learns from those too.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3), or pairs of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Triplets of points, or of indices when a ``preprocessor`` is
            given, ordered so that ``d(t[0], t[1]) < d(t[0], t[2])`` is
            wanted; or pairs of points (of indices with a ``preprocessor``).
        y : None, or array-like of shape (n_pairs,) for pairs
            For triplets, ignored: the order within each triplet is the
            supervision (present so that ``Pipeline``, which passes ``y``,
            can fit it). For pairs, +1 (similar) or -1 (dissimilar).

        Returns
        -------
        self
        """
        self._start_fit()
        return self._fit_problem(*self._triplet_problem(triplets, y=y))

    def decision_function(self, triplets):
        """``d(a, c) - d(a, b)`` of each triplet (positive where its order
        is kept).

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)

        Returns
        -------
        scores : ndarray of shape (n_triplets,)
        """
        check_is_fitted(self)
        # Checked as triplets here: metric-learn's checks see its pairs.
        return super().decision_function(check_tuples(self, triplets, 3))

    def score(self, triplets, y=None):
        """The fraction of ``triplets`` whose order the metric keeps.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3)
        y : None
            Ignored (as in :meth:`fit`).

        Returns
        -------
        score : float
        """
        return super().score(triplets)

    def __sklearn_tags__(self):
        return triplet_classifier_tags(super().__sklearn_tags__(),
                                       target_required=False)


class _FromLabels(_BuildsProblems):
    """``fit(X, y)``: the learners that build triplets and basis from labels."""

    _parameter_constraints = {
        # 'triplet_diffs' (from the mined triplets) as metric-learn's
        # SCML_Supervised accepts it.
        "basis": [Options("lda", "triplet_diffs"),
                  ArrayLike("(n_basis, n_features)")],
        "k_genuine": [Interval("int", low=1)],
        "k_impostor": [Interval("int", low=1), Options("auto")],
    }

    def _path_settings(self, n_features):
        """The parameters a path of this learner is built and solved with."""
        return path_settings(
            self.basis, self.n_basis, self.k_genuine, self.k_impostor,
            n_features, dict(gamma=self.gamma, batch_size=self.batch_size,
                             max_iter=self.max_iter,
                             eval_every=self.output_iter, tol=self.tol,
                             n_iter_no_change=self.n_iter_no_change))

    def _selection_random_state(self):
        """The random stream of the choice of beta.

        Its own stream from the same seed, so that the fit after the choice
        draws what ``beta=beta_`` draws (as ``LassoCV`` refits the Lasso of
        its best alpha), whatever the choice drew. A ``RandomState``
        instance gives one seed to it instead (it is a single stream).
        """
        if isinstance(self.random_state, np.random.RandomState):
            return np.random.RandomState(self._rng.randint(2 ** 31))
        return checked_random_state(self.random_state)

    def _choose_beta(self, X, y, min_scored_points):
        """``beta='auto'``: :func:`~metric_learn_scml._driver.select_beta`."""
        return select_beta(X, y, self._path_settings(X.shape[1]),
                           self._selection_random_state(),
                           min_scored_points=min_scored_points,
                           progress=self._log.say)

    def __sklearn_tags__(self):
        # y is required: scikit-learn then checks fit(X, None) fails clearly.
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    @single_threaded
    def fit(self, X, y=None):
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
        return self._fit_problem(*self._labels_problem(X, y))


class _IncrementalFromTriplets(_FromTriplets):
    """``partial_fit(triplets)``, for the global model (not the local one,
    whose kernel embedding needs every training point at once)."""

    @single_threaded
    def partial_fit(self, triplets, y=None):
        """Learn from one more batch of triplets (incremental fitting).

        The first call builds the basis from its batch (or takes the
        ``basis`` array); every call takes one epoch of RDA steps over its
        batch (``ceil(n_triplets / batch_size)`` steps, whatever
        ``max_iter``, as scikit-learn's ``SGDClassifier.partial_fit`` takes
        one pass) from the running state of the earlier calls, or of
        ``fit`` (from its optimum where its exact phase ran), and keeps the
        last iterate. The exact phase is not run. A float ``beta`` set
        between calls applies from the next one.

        Labelled pairs (``partial_fit(pairs, y)``) give their batch's
        triplets, or quadruplets, as in :meth:`fit`; a later batch of one
        kind of pair gives none, and leaves the model unchanged with a
        warning.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or \
(n_triplets, 3), or pairs of shape (n_pairs, 2, n_features) or (n_pairs, 2)
        y : None, or array-like of shape (n_pairs,) for pairs
            Ignored for triplets (as in :meth:`fit`); +1 (similar) or -1
            (dissimilar) for pairs.

        Returns
        -------
        self
        """
        return self._partial_fit("_triplet_problem", triplets, y=y)


class _IncrementalFromLabels(_FromLabels):
    """``partial_fit(X, y)``, for the global model (and, with tasks, the
    multi-task one)."""

    _parameter_constraints = {
        "partial_fit_memory": [Interval("int", low=0)],
    }

    @single_threaded
    def partial_fit(self, X, y=None):
        """Learn from one more batch of labelled points (incremental fitting).

        The first call resolves ``beta='auto'`` and builds the basis from
        its batch (which needs two classes), as ``fit`` does; every call
        mines the triplets of its batch's points, their targets and
        impostors the nearest among the batch and up to
        ``partial_fit_memory`` points remembered from the earlier calls (a
        uniform sample of them; a class may appear in any batch), and
        takes one epoch of RDA steps over its triplets
        (``ceil(n_triplets / batch_size)`` steps, whatever ``max_iter``)
        from the running state of the earlier calls, or of ``fit`` (from
        its optimum where its exact phase ran), keeping the last iterate.
        Once the batch and the memory hold twice the points the basis was
        drawn from, a generated basis is drawn anew from them: it replaces
        the elements of zero weight, and adds elements up to the size
        ``fit`` would draw from those points. The memory goes beyond the
        paper and beyond ``SGDClassifier.partial_fit``'s one batch at a
        time (the user guide's "Incremental fitting" gives its figures;
        ``partial_fit_memory=0`` learns from each batch alone). The exact
        phase is not run. A float ``beta`` set between calls applies from
        the next one. A batch that gives no triplet leaves the model
        unchanged, with a warning; a batch far from the first one's scale
        warns (the model keeps the first batch's units); a call that
        raises leaves the model as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        return self._partial_fit("_labels_batch", X, y)


@dataclass
class PointMemory:
    """A uniform sample of the points seen, with their labels and tasks.

    Attributes
    ----------
    X : ndarray of shape (n_kept, n_features)
    y : ndarray of shape (n_kept,)
    tasks : ndarray of shape (n_kept,) or None
        Task labels (not codes: the codes move when a task joins).
    n_seen : int
        Points offered so far.
    """

    X: np.ndarray
    y: np.ndarray
    tasks: object
    n_seen: int

    def after(self, X, y, codes, tasks):
        """``X``, ``y`` and task ``codes`` (None: one task) of a batch,
        followed by the memory's, their codes into the sorted ``tasks``.

        A remembered point is left out where the batch, or an earlier place
        of the memory, holds it again (the same row, in the same task): a
        point seen on a second pass is one point, and its remembered copies
        would be its own nearest targets, or fill several of a point's
        target places with one neighbour.
        """
        n_batch = X.shape[0]
        X, y = np.concatenate([X, self.X]), np.concatenate([y, self.y])
        if codes is not None:
            codes = np.concatenate([codes, np.searchsorted(tasks, self.tasks)])
        # The batch comes first, so a remembered point is kept where it is
        # its row's first place (distinct_rows gives each row's first).
        kept = np.zeros(X.shape[0], dtype=bool)
        kept[distinct_rows(X if codes is None
                           else np.column_stack([X, codes]))[0]] = True
        kept[:n_batch] = True
        return X[kept], y[kept], None if codes is None else codes[kept]


def remember(memory, X, y, tasks, capacity, random_state):
    """The memory after the batch ``(X, y, tasks)``: a new object.

    Reservoir sampling (Vitter's algorithm R), vectorised over the batch:
    the ``i``-th point seen (from 0) fills a free place while there is
    one, and otherwise takes a place drawn uniformly from ``0..i`` when
    that place is below ``capacity``. Every point seen is then kept with
    the same probability, ``capacity / n_seen``. ``memory`` (None: empty)
    is not modified. A memory above ``capacity`` (lowered between calls)
    first keeps a uniform sample of itself, which is a uniform sample of
    the points seen.

    Returns
    -------
    PointMemory
    """
    rng = check_random_state(random_state)
    if memory is None:
        memory = PointMemory(X[:0], y[:0], None if tasks is None
                             else tasks[:0], 0)
    if memory.X.shape[0] > capacity:
        chosen = np.sort(rng.choice(memory.X.shape[0], capacity,
                                    replace=False))
        memory = PointMemory(memory.X[chosen], memory.y[chosen],
                             None if tasks is None else memory.tasks[chosen],
                             memory.n_seen)
    n_kept, n_new = memory.X.shape[0], X.shape[0]
    fill = max(0, min(capacity - n_kept, n_new))
    parts = [(memory.X, X), (memory.y, y)] + (
        [] if tasks is None else [(memory.tasks, tasks)])
    kept = [np.concatenate([old, new[:fill]]) for old, new in parts]
    later = np.arange(fill, n_new)
    # (No draw without a memory: partial_fit_memory=0 is the model without.)
    places = (rng.randint(0, memory.n_seen + later + 1)
              if later.size and capacity else later[:0])
    taken = places < capacity
    # Several points of the batch may draw one place: the last one keeps it.
    places, first = np.unique(places[taken][::-1], return_index=True)
    points = later[taken][::-1][first]
    for array, (_, new) in zip(kept, parts):
        array[places] = new[points]
    return PointMemory(kept[0], kept[1], kept[2] if tasks is not None
                       else None, memory.n_seen + n_new)


def renewed_basis(basis, active, fresh):
    """``basis`` with its inactive elements replaced by new ones, grown to
    the size of ``fresh``.

    The ``active`` rows stay in place; the other places, then new places
    at the end up to ``fresh``'s size (a basis drawn from a small first
    batch grows with the data, to the size ``fit`` would draw from them),
    take, in order, the rows of ``fresh`` that repeat no active element
    (nor each other), then the old inactive elements; places left over are
    dropped.

    Parameters
    ----------
    basis : ndarray of shape (K, n_features)
    active : ndarray of shape (K,), dtype=bool
        The elements some task weights.
    fresh : ndarray of shape (K', n_features)
        A basis drawn from more points.

    Returns
    -------
    basis : ndarray of shape (K'', n_features), K'' <= max(K, K')
        A new array.
    source : ndarray of shape (K'',), dtype=intp
        The old place of each element kept, -1 for one that starts afresh.
    """
    pool = distinct_elements(np.concatenate(
        [basis[active], fresh, basis[~active]]))[np.count_nonzero(active):]
    n_old, size = basis.shape[0], max(basis.shape[0], fresh.shape[0])
    places = np.concatenate([np.flatnonzero(~active),
                             np.arange(n_old, size)])[:pool.shape[0]]
    renewed = np.zeros((size, basis.shape[1]))
    renewed[:n_old] = basis
    renewed[places] = pool[:places.shape[0]]
    source = np.where(np.arange(size) < n_old, np.arange(size), -1)
    source[places] = -1
    keep = np.zeros(size, dtype=bool)
    keep[:n_old] = active
    keep[places] = True
    return renewed[keep], source[keep]


def renewed_state(state, source):
    """The RDA state of a renewed basis: the average subgradient of each
    element kept, and zero for those that start afresh (as
    :func:`._solvers.rda_state_for` starts the elements the exact phase
    adds); the step count and units are kept."""
    mean_gradient = np.zeros((state.mean_gradient.shape[0], source.shape[0]))
    kept = source >= 0
    mean_gradient[:, kept] = state.mean_gradient[:, source[kept]]
    return RDAState(mean_gradient, state.iteration, state.scale,
                    state.task_steps)
