"""k-nearest-neighbour classification under a learned metric, of any kind.

The paper (Shi, Bellet and Sha, AAAI 2014) evaluates every model by 3-NN
classification. :class:`MetricKNeighborsClassifier` fits a metric learner
and classifies under its metric, whatever the kind of metric:

- global (a metric-learn ``MahalanobisMixin`` such as :class:`SCML_Supervised`):
  k-NN of scikit-learn on the linearly transformed points;
- multi-task (an estimator fitted with ``fit(X, y, tasks)`` that has
  ``tasks_`` and ``for_task(t)``): each task's points against that task's
  training points, under that task's metric;
- local (an estimator with ``local_weights`` and ``pairwise_distances``, such
  as :class:`LocalSCML_Supervised`): distances from each query under the
  query's own metric.
"""

import sys
import warnings

import numpy as np
from metric_learn.base_metric import (_PairsClassifierMixin,
                                      _QuadrupletsClassifierMixin,
                                      _TripletsClassifierMixin)
from sklearn.base import (BaseEstimator, ClassifierMixin, MetaEstimatorMixin,
                          clone)
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import accuracy_score
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (check_consistent_length, check_is_fitted,
                                      column_or_1d, validate_data)

from ._arrays import (check_known_labels, fitted_knn, named_errors,
                      neighbour_votes, plain)
from ._triplets import check_label_types
from ._validation import (Interval, check_y_given, forget_fit,
                          parameter_constraints, validate_parameters,
                          validate_value)

# Query rows handled at once by the local model (bounds the memory of the
# distance block to this many rows times the training size).
QUERY_BLOCK = 1024


# metric-learn's weakly supervised learners and what they fit on.
_WEAKLY_SUPERVISED = ((_PairsClassifierMixin, "pairs"),
                      (_TripletsClassifierMixin, "triplets"),
                      (_QuadrupletsClassifierMixin, "quadruplets"))


def metric_kind(estimator):
    """The kind of metric ``estimator`` learns: ``'local'`` (it has
    ``local_weights`` and ``pairwise_distances``), ``'multitask'``
    (``for_task``), ``'global'`` (``transform``), or None."""
    if (hasattr(estimator, "local_weights")
            and hasattr(estimator, "pairwise_distances")):
        return "local"
    if hasattr(estimator, "for_task"):
        return "multitask"
    return "global" if hasattr(estimator, "transform") else None


def check_metric_learner(estimator):
    """Return the :func:`metric_kind` of ``estimator``; raise a
    ``TypeError`` unless it learns a metric from labels.

    Accepted: a supervised learner fitted as ``fit(X, y)`` (or ``fit(X, y,
    tasks)``) that is local (``local_weights`` and ``pairwise_distances``),
    multi-task (``for_task``) or global (``transform``). A weakly supervised
    learner (pairs, triplets or quadruplets) would fail inside its ``fit``.
    """
    name = type(estimator).__name__
    accepted = (
        "MetricKNeighborsClassifier's estimator must be a supervised metric "
        "learner, fitted as fit(X, y) or fit(X, y, tasks): SCML_Supervised, "
        "MultiTaskSCML_Supervised, LocalSCML_Supervised, or any metric-learn "
        "supervised Mahalanobis learner (e.g. LMNN, NCA, ITML_Supervised) or "
        "scikit-learn transformer.")
    for mixin, tuples in _WEAKLY_SUPERVISED:
        if isinstance(estimator, mixin):
            supervised = name + "_Supervised"
            module = sys.modules.get(type(estimator).__module__)
            hint = (" Use %s, which builds its %s from the labels." % (
                supervised, tuples) if hasattr(module, supervised) else "")
            raise TypeError(
                "estimator=%s is weakly supervised: it fits on %s, not on "
                "labels. %s%s" % (name, tuples, accepted, hint))
    last = metric_kind(estimator.steps[-1][1]) if hasattr(
        estimator, "steps") else None
    if last in ("local", "multitask"):
        # A pipeline exposes its last step's transform, not its per-task or
        # per-point metrics, nor fit's tasks.
        learner = type(estimator.steps[-1][1]).__name__
        raise TypeError(
            "estimator=%s ends in %s, whose metric is %s: the classifier "
            "needs the learner itself. Put the steps before it in front of "
            "the classifier, e.g. make_pipeline(StandardScaler(), "
            "MetricKNeighborsClassifier(%s()))%s." % (
                name, learner,
                "per task" if last == "multitask" else "per point", learner,
                ", and route the tasks with fit(X, y, "
                "metrickneighborsclassifier__tasks=tasks)"
                if last == "multitask" else ""))
    kind = metric_kind(estimator)
    if not hasattr(estimator, "fit") or kind is None:
        raise TypeError(
            "estimator=%s is not a metric learner: it has no transform "
            "(global metric), for_task (multi-task) or local_weights and "
            "pairwise_distances (local). %s" % (name, accepted))
    return kind


class MetricKNeighborsClassifier(MetaEstimatorMixin, ClassifierMixin,
                                 BaseEstimator):
    """k-NN classifier under the metric a metric learner learns on the data.

    ``fit`` clones ``estimator``, fits it on the training data and keeps the
    training points; predictions vote among the ``n_neighbors`` nearest
    training points under the learned metric (uniform weights, ties broken
    towards the smaller class label, as scikit-learn's
    :class:`~sklearn.neighbors.KNeighborsClassifier`).

    Parameters
    ----------
    estimator : estimator
        A supervised metric learner: global (has ``transform``), multi-task
        (fitted with ``fit(X, y, tasks)``; has ``tasks_`` and
        ``for_task``) or local (has ``local_weights`` and
        ``pairwise_distances``). Weakly supervised learners (fitted on
        pairs, triplets or quadruplets, such as :class:`SCML`) raise a
        ``TypeError`` in ``fit``: use their ``_Supervised`` versions. A
        learner with a ``preprocessor`` raises a ``ValueError``: the
        classifier keeps and searches the points themselves.
    n_neighbors : int, default=3
        The paper uses 3.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    classes_ : ndarray of shape (n_classes,)
    kind_ : {'global', 'multitask', 'local'}
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from metric_learn_scml import SCML_Supervised, MetricKNeighborsClassifier
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> knn = MetricKNeighborsClassifier(SCML_Supervised(random_state=0))
    >>> bool(knn.fit(X[::2], y[::2]).score(X[1::2], y[1::2]) > 0.9)
    True
    """

    _parameter_constraints = {"n_neighbors": [Interval("int", low=1)]}

    def __init__(self, estimator, n_neighbors=3):
        self.estimator = estimator
        self.n_neighbors = n_neighbors

    def fit(self, X, y, tasks=None):
        """Fit the metric learner, then keep the training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        tasks : array-like of shape (n_samples,), default=None
            Task of each point, for a multi-task learner.

        Returns
        -------
        self
        """
        constraints = parameter_constraints(type(self))
        validate_parameters(constraints, {name: getattr(self, name)
                                          for name in constraints})
        kind = check_metric_learner(self.estimator)
        # A refit (of another kind of learner, say) keeps nothing of the last.
        forget_fit(self, ("_y_index", "_X_fit", "_task_models", "_knn"))
        if getattr(self.estimator, "preprocessor", None) is not None:
            raise ValueError(
                "%s has a preprocessor, but %s searches the training points "
                "themselves: fit it on the points (X = preprocessor[indices]) "
                "with a learner whose preprocessor is None." % (
                    type(self.estimator).__name__, type(self).__name__))
        check_y_given(y, self)
        with named_errors("X"):
            X, y = validate_data(self, X, y)
        check_label_types(y)
        check_classification_targets(y)
        self.classes_, self._y_index = np.unique(y, return_inverse=True)
        multitask = kind == "multitask"
        if multitask != (tasks is not None):
            raise ValueError(
                "%s is %sa multi-task learner: %s tasks= to fit." % (
                    type(self.estimator).__name__, "" if multitask else "not ",
                    "pass" if multitask else "do not pass"))
        self.estimator_ = clone(self.estimator)
        # The learner sees the classes as codes 0..K-1 (in the order of
        # classes_): metric-learn's ITML, MMC, LSML, SDML and RCA fail on
        # string labels, and a learner only compares labels.
        if tasks is None:
            self.estimator_.fit(X, self._y_index)
        else:
            tasks = self._check_tasks(tasks, X.shape[0])
            self.estimator_.fit(X, self._y_index, tasks)
        # After the learner's fit, whose errors on too few samples come first.
        self._check_neighbours(self.n_neighbors, X.shape[0], "training points")
        self.kind_ = kind
        if kind == "local":
            self._X_fit = X
        elif multitask:
            self._task_models = {}
            for task in np.unique(tasks):
                members = np.flatnonzero(tasks == task)
                self._check_neighbours(self.n_neighbors, members.shape[0],
                                       "training points of task %r"
                                       % (plain(task),))
                model = self.estimator_.for_task(task)
                self._task_models[task] = (members, model, fitted_knn(
                    self.n_neighbors, model.transform(X[members]),
                    self._y_index[members]))
        else:
            self._knn = fitted_knn(self.n_neighbors,
                                   self.estimator_.transform(X), self._y_index)
        return self

    @staticmethod
    def _check_tasks(tasks, n_samples):
        check_known_labels(tasks, "tasks")
        tasks = np.asarray(tasks)
        if tasks.shape != (n_samples,):
            raise ValueError(
                "tasks must have one entry per sample, shape (%d,), got shape "
                "%s." % (n_samples, tasks.shape))
        return tasks

    def _check_predict_input(self, X, tasks):
        check_is_fitted(self, "estimator_")
        with named_errors("X"):
            X = validate_data(self, X, reset=False)
        if self.kind_ == "multitask":
            if tasks is None:
                raise ValueError(
                    "This classifier was fitted on tasks: pass tasks= (the "
                    "task of each point) to predict, predict_proba, "
                    "kneighbors and score. scikit-learn's model selection "
                    "(cross_val_score, GridSearchCV) passes them to score "
                    "only with metadata routing: sklearn.set_config("
                    "enable_metadata_routing=True) and "
                    "classifier.set_score_request(tasks=True).")
            tasks = self._check_tasks(tasks, X.shape[0])
            # (None or mixed types among them fail numpy's sort.)
            unknown = [task for task in dict.fromkeys(tasks.tolist())
                       if task not in self._task_models]
            if unknown:
                raise ValueError("tasks %s were not seen in fit." % (
                    unknown,))
        else:
            self._refuse_tasks(tasks)
        return X, tasks

    def _refuse_tasks(self, tasks, training=False):
        """Refuse ``tasks`` where they would be ignored: for a learner of
        one metric, or (``training``) where the training tasks are used."""
        if tasks is not None and self.kind_ != "multitask":
            raise ValueError(
                "%s is not a multi-task learner: do not pass tasks= (they "
                "would be ignored)." % type(self.estimator_).__name__)
        if tasks is not None and training:
            raise ValueError(
                "kneighbors(X=None) finds the neighbours of the training "
                "points within their own tasks: do not pass tasks= (they "
                "would be ignored).")

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True,
                   tasks=None):
        """The nearest training points of each query under the learned metric.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            ``None`` means the training points, each left out of its own
            neighbours (as in scikit-learn).
        n_neighbors : int, default=None
            ``None`` means ``self.n_neighbors``.
        return_distance : bool, default=True
        tasks : array-like of shape (n_queries,), default=None
            Tasks of the queries (multi-task models; with ``X=None``, the
            training tasks are used).

        Returns
        -------
        distances : ndarray of shape (n_queries, n_neighbors)
            Only if ``return_distance``.
        indices : ndarray of shape (n_queries, n_neighbors)
            Indices into the training data, nearest first.
        """
        check_is_fitted(self, "estimator_")
        n_neighbors = self.n_neighbors if n_neighbors is None else n_neighbors
        validate_value("n_neighbors", n_neighbors, [Interval("int", low=1)])
        if X is None:
            self._refuse_tasks(tasks, training=True)
        else:
            X, tasks = self._check_predict_input(X, tasks)
        distances, indices = self._neighbours(X, tasks, n_neighbors)
        return (distances, indices) if return_distance else indices

    @staticmethod
    def _check_neighbours(n_neighbors, n_train, what, own=False):
        """Refuse more neighbours than the ``n_train`` candidates (less the
        query itself, ``own``, when the queries are the training points)."""
        if n_neighbors > n_train - own:
            raise ValueError(
                "n_neighbors=%d is too large for the %d %s%s: decrease "
                "n_neighbors." % (n_neighbors, n_train, what,
                                  " (each left out of its own neighbours)"
                                  if own else ""))

    def _neighbours(self, X, tasks, n_neighbors):
        """k-NN of the queries ``X`` (None: the training points, each left
        out of its own neighbours)."""
        own = X is None
        if self.kind_ == "local":
            return self._local_neighbours(self._X_fit if own else X,
                                          n_neighbors, 0 if own else None)
        if self.kind_ == "global":
            self._check_neighbours(n_neighbors, self._y_index.shape[0],
                                   "training points", own)
            return self._knn.kneighbors(
                None if own else self.estimator_.transform(X), n_neighbors)
        n_queries = self._y_index.shape[0] if own else X.shape[0]
        distances = np.empty((n_queries, n_neighbors))
        indices = np.empty((n_queries, n_neighbors), dtype=np.intp)
        for task, (members, model, knn) in self._task_models.items():
            rows = members if own else np.flatnonzero(tasks == task)
            if not rows.shape[0]:
                continue
            self._check_neighbours(n_neighbors, members.shape[0],
                                   "training points of task %r" % (plain(task),),
                                   own)
            distance, index = knn.kneighbors(
                None if own else model.transform(X[rows]), n_neighbors)
            distances[rows], indices[rows] = distance, members[index]
        return distances, indices

    def _local_neighbours(self, X, n_neighbors, leave_out):
        """k-NN under the query's metric; ``leave_out=0``: X is the training set."""
        n_train = self._X_fit.shape[0]
        self._check_neighbours(n_neighbors, n_train, "training points",
                               own=leave_out is not None)
        distances = np.empty((X.shape[0], n_neighbors))
        indices = np.empty((X.shape[0], n_neighbors), dtype=np.intp)
        for start in range(0, X.shape[0], QUERY_BLOCK):
            block = self.estimator_.pairwise_distances(
                X[start:start + QUERY_BLOCK], self._X_fit)
            if leave_out is not None:
                rows = np.arange(block.shape[0])
                block[rows, start + rows] = np.inf
            nearest = np.argpartition(block, n_neighbors - 1, axis=1)[
                :, :n_neighbors]
            near = np.take_along_axis(block, nearest, axis=1)
            # Stable sort on (distance, index), as a brute-force search does.
            order = np.lexsort((nearest, near), axis=1)
            indices[start:start + QUERY_BLOCK] = np.take_along_axis(
                nearest, order, axis=1)
            distances[start:start + QUERY_BLOCK] = np.take_along_axis(
                near, order, axis=1)
        return distances, indices

    def predict_proba(self, X, tasks=None):
        """Fraction of the ``n_neighbors`` neighbours in each class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        tasks : array-like of shape (n_queries,), default=None
            Required for multi-task models.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes)
            Columns in the order of ``classes_``.
        """
        X, tasks = self._check_predict_input(X, tasks)
        return self._vote_fractions(X, tasks)

    def _vote_fractions(self, X, tasks):
        """Class fractions among the neighbours of validated queries."""
        indices = self._neighbours(X, tasks, self.n_neighbors)[1]
        return neighbour_votes(self._y_index[indices],
                               self.classes_.shape[0]) / self.n_neighbors

    def predict(self, X, tasks=None):
        """Majority class among the nearest training points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        tasks : array-like of shape (n_queries,), default=None
            Required for multi-task models.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
        """
        X, tasks = self._check_predict_input(X, tasks)
        return self.classes_[np.argmax(self._vote_fractions(X, tasks), axis=1)]

    def score(self, X, y, sample_weight=None, tasks=None):
        """Mean accuracy of :meth:`predict` on ``X`` against ``y``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        y : array-like of shape (n_queries,)
        sample_weight : array-like of shape (n_queries,), default=None
        tasks : array-like of shape (n_queries,), default=None
            Tasks of the queries (multi-task models only).

        Returns
        -------
        accuracy : float
        """
        check_is_fitted(self, "estimator_")
        if (self.kind_ == "multitask" and tasks is None
                and sample_weight is not None):
            raise ValueError(
                "score got sample_weight but no tasks, which this classifier "
                "needs: pass them by name, score(X, y, tasks=tasks) (the "
                "third argument is sample_weight).")
        return accuracy_score(y, self.predict(X, tasks),
                              sample_weight=sample_weight)


def knn_scorer(estimator, X, y, n_neighbors=3):
    """Leave-one-out k-NN accuracy of ``y`` under a fitted global metric.

    A scorer (``scorer(estimator, X, y)``) for learners of one linear
    metric, which have no ``score`` of their own: each point of ``X`` is
    classified by its ``n_neighbors`` nearest other points of ``X`` in the
    space of ``estimator.transform``, as the paper evaluates. Pass it as
    ``scoring=`` to ``GridSearchCV``, ``cross_val_score`` or dask-ml's
    ``Incremental``, with ``cv=StratifiedKFold(n_splits, shuffle=True)``.

    Points of a single class score 1.0 under every metric (each point's
    neighbours share its class), with an ``UndefinedMetricWarning`` that
    names the fix: such a test fold cannot compare metrics. This is what
    ``cv=int`` (and the default ``cv``) gives on data sorted by class, as
    scikit-learn's own datasets are: for a transformer scikit-learn cuts
    the points into unshuffled ``KFold``, not stratified folds. The value
    is the same for every candidate, so ``GridSearchCV`` ranks the
    candidates by the folds that hold several classes (where no fold does,
    every candidate ties), and ``cross_val_score`` gets finite scores, but
    the folds of one class say nothing: use shuffled stratified folds, or
    :class:`SCML_SupervisedCV`, which stratifies its own.

    Parameters
    ----------
    estimator : fitted estimator with ``transform``
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_neighbors : int, default=3

    Returns
    -------
    accuracy : float

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import StratifiedKFold, cross_val_score
    >>> from metric_learn_scml import SCML_Supervised, knn_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    >>> bool(knn_scorer(model, X, y) > 0.9)
    True
    >>> folds = StratifiedKFold(3, shuffle=True, random_state=0)
    >>> scores = cross_val_score(SCML_Supervised(beta=1e-3, random_state=0),
    ...                          X, y, scoring=knn_scorer, cv=folds)
    >>> bool(scores.min() > 0.85)
    True
    """
    validate_value("n_neighbors", n_neighbors, [Interval("int", low=1)])
    if hasattr(estimator, "for_task"):
        raise ValueError(
            "knn_scorer scores one metric, and %s learns one per task: score "
            "each task's points with knn_scorer(estimator.for_task(task), "
            "X_task, y_task), or classify with MetricKNeighborsClassifier, "
            "which takes the tasks." % type(estimator).__name__)
    if not hasattr(estimator, "transform"):
        raise TypeError(
            "knn_scorer scores a learner of one linear metric, through its "
            "transform; %s has none. A classifier (such as "
            "MetricKNeighborsClassifier) scores itself: use its score method "
            "(scikit-learn's default scoring)." % type(estimator).__name__)
    if y is None:
        raise ValueError(
            "knn_scorer needs the class labels y of X: a scorer is called "
            "as knn_scorer(estimator, X, y), and scikit-learn passes y=None "
            "when the search or cross-validation was given no labels.")
    check_known_labels(y, "y")
    embedded = estimator.transform(X)
    y = column_or_1d(y, warn=True)
    check_consistent_length(embedded, y)
    # (np.unique below would fail in numpy's sort, naming nothing.)
    check_label_types(y)
    if n_neighbors >= y.shape[0]:
        raise ValueError(
            "n_neighbors=%d needs more than %d points to score: give more "
            "points or decrease n_neighbors." % (n_neighbors, y.shape[0]))
    if np.unique(y).shape[0] < 2:
        warnings.warn(
            "knn_scorer: the scored points hold a single class (%r), so "
            "every metric scores 1.0 on them and they cannot compare "
            "metrics. With cv=int or the default cv, scikit-learn cuts the "
            "points of a transformer into unshuffled KFold, whose test folds "
            "hold one class on data sorted by class: pass "
            "cv=StratifiedKFold(n_splits, shuffle=True, random_state=0), or "
            "use SCML_SupervisedCV." % (plain(y[0]),), UndefinedMetricWarning)
        return 1.0
    knn = fitted_knn(n_neighbors, embedded, y)
    # kneighbors() without X leaves each point out of its own neighbours.
    neighbours = knn.kneighbors(return_distance=False)
    classes, codes = np.unique(y, return_inverse=True)
    votes = neighbour_votes(codes[neighbours], classes.shape[0])
    return float(np.mean(votes.argmax(axis=1) == codes))
