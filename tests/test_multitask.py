"""Tests of mt-SCML (metric_learn_scml.multitask)."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from metric_learn_scml import (SCML, MultiTaskSCML, MultiTaskSCML_Supervised,
                               SCML_Supervised)
from metric_learn_scml.multitask import TaskMetric

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

FAST = dict(n_basis=40, max_iter=1500, gamma=1.0, random_state=0)
# The single-task learners as the multi-task one solves: RDA at a given beta
# (their defaults add the exact phase and choose beta).
SINGLE = dict(solver="rda", beta=1e-5)


def two_task_data(n_per_task=90, seed=0):
    """Two tasks whose classes live on different features, plus noise.

    Task "a": the class is the sign of feature 0; task "b": of feature 1.
    Features 2-5 are large noise, so Euclidean neighbours are poor and
    each task needs its own metric.
    """
    rng = np.random.RandomState(seed)
    X = rng.randn(2 * n_per_task, 6)
    X[:, 2:] *= 5.0
    tasks = np.repeat(["a", "b"], n_per_task)
    relevant = np.where(tasks == "a", 0, 1)
    y = (X[np.arange(len(X)), relevant] > 0).astype(int)
    X[np.arange(len(X)), relevant] += np.where(y == 1, 0.5, -0.5)
    return X, y, tasks


@pytest.fixture(scope="module")
def fitted():
    X, y, tasks = two_task_data()
    model = MultiTaskSCML_Supervised(beta=1e-4, **FAST).fit(X, y, tasks)
    return model, X, y, tasks


# ------------------------------------------------------- one task = global

def test_one_task_equals_scml_supervised(wine):
    # beta='auto' too: one task's selection is the single-task one.
    X, y = wine
    single = SCML_Supervised(**FAST, solver="rda").fit(X, y)
    multi = MultiTaskSCML_Supervised(**FAST, solver="rda").fit(
        X, y, ["only"] * len(y))
    assert not single.euclidean_fallback_
    assert multi.beta_ == single.beta_
    np.testing.assert_array_equal(multi.basis_, single.basis_)
    np.testing.assert_allclose(multi.weights_[0], single.weights_)
    np.testing.assert_allclose(multi.get_mahalanobis_matrix("only"),
                               single.get_mahalanobis_matrix())
    assert multi.n_iter_ == single.n_iter_


def test_exact_phase_is_the_lp_optimum_for_one_task(wine):
    # With one task the group norm is |w|: the group exact phase reaches
    # the optimum of SCML-Global's LP (same objective, same support).
    X, y = wine
    single = SCML_Supervised(**FAST, beta=1e-3, solver="exact").fit(X, y)
    multi = MultiTaskSCML_Supervised(**FAST, beta=1e-3, solver="exact").fit(
        X, y, ["only"] * len(y))
    assert multi.objective_ == pytest.approx(single.objective_, rel=1e-6)
    np.testing.assert_array_equal(multi.weights_[0] > 0, single.weights_ > 0)
    assert 0 <= multi.dual_gap_ <= 1e-6 * multi.objective_


def test_exact_phase_is_sparser_than_rda_at_a_lower_objective(wine):
    X, y = wine
    tasks = np.where(X[:, 0] > 0, "a", "b")
    rda = MultiTaskSCML_Supervised(**FAST, solver="rda").fit(X, y, tasks)
    exact = MultiTaskSCML_Supervised(**FAST, solver="exact").fit(X, y, tasks)
    assert exact.objective_ <= rda.objective_ + 1e-9
    assert exact.n_active_basis_ <= rda.n_active_basis_
    assert np.isnan(rda.dual_gap_) and exact.dual_gap_ <= 1e-6 * exact.objective_
    # each stage's record counts active elements, as n_active_basis_ does
    # (not task x element entries)
    stages = {stage["stage"]: stage for stage in exact.fit_stages_}
    assert stages["exact phase"]["active"] == exact.n_active_basis_
    assert exact.n_active_basis_ < np.count_nonzero(exact.weights_)


def test_auto_beta_of_like_tasks_is_sqrt_t_times_the_single_task_one():
    # T copies of one task: each task's selection is the single-task one,
    # and the group norm of a column the T tasks share is sqrt(T) times
    # one task's weight, so the single-task beta would leave mt-SCML
    # sqrt(T) times less penalised than the single-task model.
    X, y = make_classification(n_samples=120, n_features=8, n_informative=3,
                               n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=0)
    n_tasks = 3
    single = SCML_Supervised(random_state=0).fit(X, y)
    multi = MultiTaskSCML_Supervised(random_state=0, solver="exact").fit(
        np.tile(X, (n_tasks, 1)), np.tile(y, n_tasks),
        np.repeat(np.arange(n_tasks), len(y)))
    np.testing.assert_allclose(multi.beta_, np.sqrt(n_tasks) * single.beta_,
                               rtol=1e-12)
    np.testing.assert_allclose(multi.beta_path_,
                               np.sqrt(n_tasks) * single.beta_path_,
                               rtol=1e-12)
    # Like tasks share their elements: no more than one task's model.
    assert 0 < multi.n_active_basis_ <= single.n_active_basis_


@pytest.mark.parametrize("scale", [1e80, 1e-90])
def test_auto_beta_follows_the_scale_of_the_data_at_its_extremes(scale):
    # The pooled beta_max of the tasks was the norm of squares that
    # overflowed (beta_ inf, every metric zero) or underflowed (beta_ 0).
    X, y = make_classification(n_samples=120, n_features=6, n_informative=3,
                               n_redundant=0, random_state=0)
    tasks = np.arange(len(y)) % 2
    fast = dict(max_iter=300, random_state=0)
    unit = MultiTaskSCML_Supervised(**fast).fit(X, y, tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scaled = MultiTaskSCML_Supervised(**fast).fit(X * scale, y, tasks)
    np.testing.assert_allclose(scaled.beta_ / scale ** 2, unit.beta_,
                               rtol=1e-6)
    assert scaled.n_active_basis_ == unit.n_active_basis_ > 0


def test_one_task_equals_scml_on_triplets():
    X, y, _ = two_task_data()
    rng = np.random.RandomState(1)
    idx = rng.randint(0, len(X), size=(300, 3))
    swap = y[idx[:, 0]] != y[idx[:, 1]]
    idx[swap, 1:] = idx[swap, 1:][:, ::-1]
    single = SCML(**FAST, **SINGLE).fit(X[idx])
    multi = MultiTaskSCML(**FAST).fit(X[idx], np.zeros(len(idx)))
    np.testing.assert_array_equal(multi.basis_, single.basis_)
    np.testing.assert_allclose(multi.weights_[0], single.weights_)


# ----------------------------------------------------------- the model

def test_group_sparsity_grows_with_beta_and_is_shared(wine):
    X, y = wine
    tasks = np.where(X[:, 0] > 0, "high", "low")
    active, partial = [], []
    for beta in (1e-5, 3e-2, 3e-1):
        model = MultiTaskSCML_Supervised(beta=beta, **FAST).fit(X, y, tasks)
        nonzero = model.weights_ > 0
        assert model.n_active_basis_ == nonzero.any(axis=0).sum()
        np.testing.assert_array_equal(model.active_basis_,
                                      np.flatnonzero(nonzero.any(axis=0)))
        active.append(model.n_active_basis_)
        partial.append((nonzero.any(axis=0) & ~nonzero.all(axis=0)).sum()
                       / max(model.n_active_basis_, 1))
    assert active[0] > active[1] > active[2] > 0
    # Columns are zeroed for all tasks at once: at the strongest penalty
    # every active element is used by both tasks.
    assert partial[-1] == 0
    assert model.weights_.shape == (2, model.basis_.shape[0])


def test_shared_active_set_smaller_than_separate_models(wine):
    X, y = wine
    tasks = np.where(X[:, 0] > 0, "high", "low")
    beta = 1e-3
    multi = MultiTaskSCML_Supervised(beta=beta, **FAST).fit(X, y, tasks)
    separate = sum(
        SCML_Supervised(beta=beta, basis=multi.basis_, max_iter=1500,
                        solver="rda", random_state=0)
        .fit(X[tasks == t], y[tasks == t]).n_active_basis_
        for t in multi.tasks_)
    assert multi.n_active_basis_ < separate


def test_a_fit_runs_rda_again_on_its_support_and_partial_fit_does_not():
    X, y, tasks = two_task_data()
    model = MultiTaskSCML_Supervised(beta=1e-4, **FAST).fit(X, y, tasks)
    stages = [s for s in model.fit_stages_
              if s["stage"] == "RDA on its support"]
    assert stages
    for stage in stages:
        assert stage["objective"] <= stage["objective_before"] or not stage["kept"]
    kept = [s for s in stages if s["kept"]]
    if kept:
        assert model.n_active_basis_ == kept[-1]["active"]
        assert model.objective_ == pytest.approx(kept[-1]["objective"],
                                                 rel=1e-9)
    model.partial_fit(X, y, tasks)
    assert "RDA on its support" not in [s["stage"] for s in model.fit_stages_]
    fresh = MultiTaskSCML_Supervised(beta=1e-4, **FAST).partial_fit(X, y, tasks)
    assert "RDA on its support" not in [s["stage"] for s in fresh.fit_stages_]


def test_task_metrics_are_psd_and_differ(fitted):
    model, X, y, tasks = fitted
    metrics = [model.get_mahalanobis_matrix(t) for t in model.tasks_]
    for M in metrics:
        np.testing.assert_allclose(M, M.T, atol=1e-12 * np.abs(M).max())
        assert np.linalg.eigvalsh(M).min() > -1e-10
    # Task "a" needs feature 0, task "b" feature 1.
    assert metrics[0][0, 0] > metrics[0][1, 1]
    assert metrics[1][1, 1] > metrics[1][0, 0]
    assert not np.allclose(metrics[0], metrics[1])


def test_better_than_euclidean_per_task(fitted):
    model, X, y, tasks = fitted
    X_test, y_test, tasks_test = two_task_data(seed=1)
    for task in model.tasks_:
        train, test = tasks == task, tasks_test == task
        euclidean = KNeighborsClassifier(3).fit(X[train], y[train]).score(
            X_test[test], y_test[test])
        learned = make_pipeline(model.for_task(task), KNeighborsClassifier(3))
        learned.fit(X[train], y[train])
        assert learned.score(X_test[test], y_test[test]) > euclidean + 0.2


def test_per_task_interface_is_consistent(fitted):
    model, X, y, tasks = fitted
    pairs = np.stack([X[:10], X[10:20]], axis=1)
    for task, components in zip(model.tasks_, model.components_per_task_):
        M = model.get_mahalanobis_matrix(task)
        np.testing.assert_allclose(components.T @ components, M, rtol=1e-9,
                                   atol=1e-12 * np.abs(M).max())
        diff = X[:10] - X[10:20]
        expected = np.sqrt(np.einsum("nd,de,ne->n", diff, M, diff))
        np.testing.assert_allclose(model.pair_distance(pairs, task=task),
                                   expected, atol=1e-10)
        np.testing.assert_allclose(model.pair_score(pairs, task=task),
                                   -expected, atol=1e-10)
        np.testing.assert_allclose(model.transform(X[:5], task=task),
                                   X[:5] @ components.T)
        metric = model.get_metric(task)
        assert metric(X[0], X[10]) == pytest.approx(expected[0])
        assert model.n_active_basis_per_task_[list(model.tasks_).index(task)] \
            == np.count_nonzero(model.weights_[list(model.tasks_).index(task)])


def test_for_task_is_a_plain_estimator(fitted):
    model, X, y, tasks = fitted
    metric = model.for_task("a")
    assert isinstance(metric, TaskMetric)
    np.testing.assert_allclose(metric.get_mahalanobis_matrix(),
                               model.get_mahalanobis_matrix("a"))
    # clone keeps the metric (it is a parameter), pickle keeps the state.
    cloned = clone(metric).fit(X)
    np.testing.assert_allclose(cloned.transform(X), metric.transform(X))
    restored = pickle.loads(pickle.dumps(metric))
    np.testing.assert_allclose(restored.transform(X), metric.transform(X))
    pipeline = make_pipeline(metric, KNeighborsClassifier(3))
    in_task = tasks == "a"
    score = clone(pipeline).fit(X[in_task], y[in_task]).score(X[in_task],
                                                             y[in_task])
    assert score > 0.8
    with pytest.raises(ValueError, match="features"):
        metric.transform(X[:, :3])
    # fit() alone, and a task metric of indices through a preprocessor
    # (what for_task gives of a model fitted with one, once cloned).
    np.testing.assert_allclose(clone(metric).fit().transform(X),
                               metric.transform(X))
    indexed = TaskMetric(metric.components_, preprocessor=X).fit(
        np.arange(5))
    np.testing.assert_allclose(indexed.transform(np.arange(5)),
                               metric.transform(X[:5]))


def test_n_components_truncates_each_task_metric(fitted):
    model, X, y, tasks = fitted
    truncated = MultiTaskSCML_Supervised(beta=1e-4, n_components=2,
                                         **FAST).fit(X, y, tasks)
    np.testing.assert_array_equal(truncated.weights_, model.weights_)
    for task in ("a", "b"):
        eigenvalues, eigenvectors = np.linalg.eigh(
            model.get_mahalanobis_matrix(task))
        assert eigenvalues[-2] > 1.01 * eigenvalues[-3]
        top = eigenvectors[:, -2:]
        metric = truncated.for_task(task)
        assert metric.transform(X).shape == (X.shape[0], 2)
        np.testing.assert_allclose(
            metric.get_mahalanobis_matrix() / eigenvalues[-1],
            (top * eigenvalues[-2:]) @ top.T / eigenvalues[-1],
            rtol=0, atol=1e-6)
        np.testing.assert_array_equal(truncated.transform(X, task=task),
                                      metric.transform(X))
    with pytest.raises(ValueError, match=r"must be in \[1, 6\]"):
        MultiTaskSCML_Supervised(n_components=7, **FAST).fit(X, y, tasks)


def test_tasks_of_any_hashable_labels_are_sorted():
    X, y, tasks = two_task_data()
    numeric = np.where(tasks == "a", 7, 3)
    model = MultiTaskSCML_Supervised(**FAST).fit(X, y, numeric)
    np.testing.assert_array_equal(model.tasks_, [3, 7])
    # Task 7 is "a", which uses feature 0.
    M = model.get_mahalanobis_matrix(7)
    assert M[0, 0] > M[1, 1]


def task_triplets(y, tasks, n_per_task, seed=0):
    """Index triplets (same class, same class, other class) within each task."""
    rng = np.random.RandomState(seed)
    triplets = []
    for task in np.unique(tasks):
        rows = np.flatnonzero(tasks == task)
        anchors = rng.choice(rows, n_per_task)
        same = [rng.choice(rows[(y[rows] == y[a]) & (rows != a)]) for a in anchors]
        other = [rng.choice(rows[y[rows] != y[a]]) for a in anchors]
        triplets.append(np.column_stack([anchors, same, other]))
    triplets = np.concatenate(triplets)
    return triplets, tasks[triplets[:, 0]]


def test_weak_multitask_refuses_pairs_with_a_fix_it_can_use():
    # It said "learn from pairs with fit(pairs, y)", which it cannot.
    X, y, tasks = two_task_data()
    pairs = np.random.RandomState(0).randint(0, len(X), (40, 2))
    for method in ("fit", "partial_fit"):
        with pytest.raises(ValueError, match="MultiTaskSCML learns from "
                           "triplets .* got pairs .* fit SCML"):
            getattr(MultiTaskSCML(), method)(X[pairs], np.arange(40) % 2)


def test_weak_multitask_learns_each_task_ordering():
    X, y, tasks = two_task_data()
    triplets, triplet_tasks = task_triplets(y, tasks, 300)
    model = MultiTaskSCML(preprocessor=X, **FAST).fit(triplets, triplet_tasks)
    assert model.score(triplets, triplet_tasks) > 0.9
    scores = model.decision_function(triplets, triplet_tasks)
    predictions = model.predict(triplets, triplet_tasks)
    np.testing.assert_array_equal(predictions, np.where(scores > 0, 1, -1))
    assert predictions.dtype.kind == "i"
    # A tie (a triplet whose two other points coincide) is -1, never 0, as
    # in metric-learn and SCML.
    tie = np.array([[0, 1, 1]])
    assert model.predict(tie, ["a"]).tolist() == [-1]
    # Swapping the tasks must hurt: each task's metric is its own.
    swapped = np.where(triplet_tasks == "a", "b", "a")
    assert model.score(triplets, swapped) < model.score(triplets, triplet_tasks)
    assert model.transform([0, 1, 2], task="a").shape[0] == 3


# ------------------------------------------------------ scikit-learn tools

def test_clone_and_pickle_of_the_multitask_model(fitted):
    model, X, y, tasks = fitted
    assert clone(model).get_params() == model.get_params()
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(restored.transform(X, task="b"),
                               model.transform(X, task="b"))


@pytest.mark.filterwarnings("ignore:All basis weights are zero")
def test_grid_search_weak_model_with_tasks_as_y():
    X, y, tasks = two_task_data(60)
    idx, triplet_tasks = task_triplets(y, tasks, 150)
    search = GridSearchCV(MultiTaskSCML(preprocessor=X, **FAST),
                          {"beta": [1e-5, 10.0]}, cv=2)
    search.fit(idx, triplet_tasks)
    # beta=10 zeroes every weight, so every triplet scores 0 (no ordering).
    assert search.best_params_["beta"] == 1e-5
    assert search.best_score_ > 0.8
    assert set(search.best_estimator_.tasks_) == {"a", "b"}


def test_grid_search_supervised_with_routed_tasks():
    X, y, tasks = two_task_data(60)

    def mean_task_knn_accuracy(estimator, X, y, tasks):
        return np.mean([
            KNeighborsClassifier(3).fit(estimator.transform(X[tasks == t], task=t),
                                        y[tasks == t])
            .score(estimator.transform(X[tasks == t], task=t), y[tasks == t])
            for t in estimator.tasks_])

    with config_context(enable_metadata_routing=True):
        scorer = _estimator_scorer(mean_task_knn_accuracy)
        model = MultiTaskSCML_Supervised(**FAST).set_fit_request(tasks=True)
        search = GridSearchCV(model, {"beta": [1e-5, 10.0]}, cv=2,
                              scoring=scorer)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            search.fit(X, y, tasks=tasks)
    # beta=10 zeroes every weight (all distances 0), so 1e-5 must win.
    assert search.best_params_["beta"] == 1e-5


def _estimator_scorer(function):
    """A scorer ``(estimator, X, y, tasks)`` that requests ``tasks``."""
    from sklearn.metrics._scorer import _BaseScorer

    class TaskScorer(_BaseScorer):
        def _score(self, method_caller, estimator, X, y_true, **kwargs):
            return function(estimator, X, y_true, kwargs["tasks"])

    return TaskScorer(function, 1, {}, "predict").set_score_request(tasks=True)


# ------------------------------------------------------------- bad input

def test_methods_need_a_known_task(fitted):
    model, X, y, tasks = fitted
    for call in (lambda: model.get_mahalanobis_matrix(),
                 lambda: model.transform(X),
                 lambda: model.pair_distance(np.stack([X[:2], X[2:4]], 1)),
                 lambda: model.get_metric()):
        with pytest.raises(ValueError, match=r"pass task=.*for_task"):
            call()
    with pytest.raises(ValueError, match=r"Unknown task 'c'.*\['a', 'b'\]"):
        model.for_task("c")
    # an array of tasks (one per point) is not one task
    with pytest.raises(ValueError, match=r"one task id .*not an array of 5.*"
                                         r"transform\(X\[tasks == t\]"):
        model.transform(X[:5], task=tasks[:5])
    with pytest.raises(NotFittedError):
        MultiTaskSCML_Supervised().for_task("a")


@pytest.mark.parametrize("make_tasks, message", [
    (lambda tasks: tasks[:-1], "one task id per sample"),
    (lambda tasks: np.where(tasks == "a", 0.0, np.nan), "NaN"),
])
def test_bad_tasks_are_rejected(make_tasks, message):
    X, y, tasks = two_task_data(30)
    with pytest.raises(ValueError, match=message):
        MultiTaskSCML_Supervised(**FAST).fit(X, y, make_tasks(tasks))


def test_task_with_one_class_or_too_few_samples():
    X, y, tasks = two_task_data(30)
    y_one = y.copy()
    y_one[tasks == "b"] = 0
    with pytest.raises(ValueError, match="Task 'b' has a single class"):
        MultiTaskSCML_Supervised(**FAST).fit(X, y_one, tasks)
    small = tasks.astype(object)
    small[[0, 1]] = "tiny"
    y_small = y.copy()
    y_small[[0, 1]] = [0, 1]
    # (It said "too few samples" where every class of the task has one.)
    with pytest.raises(ValueError, match="Task 'tiny': every class of y has a "
                       "single member.*at least two samples"):
        MultiTaskSCML_Supervised(**FAST).fit(X, y_small, small)


def test_nan_and_bad_parameters_are_rejected():
    X, y, tasks = two_task_data(30)
    X_nan = X.copy()
    X_nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MultiTaskSCML_Supervised(**FAST).fit(X_nan, y, tasks)
    with pytest.raises(ValueError, match="beta"):
        MultiTaskSCML_Supervised(beta=-1.0).fit(X, y, tasks)
    with pytest.raises(ValueError, match="basis='triplet_stuff'"):
        MultiTaskSCML_Supervised(basis="triplet_stuff").fit(X, y, tasks)
    with pytest.raises(ValueError, match="one task id per triplet"):
        MultiTaskSCML(preprocessor=X).fit([[0, 1, 2], [3, 4, 5]], ["a"])


def test_dataframe_feature_names_carry_over_to_the_task_metrics(fitted):
    # transform(df, task=...) warned "X has feature names, but TaskMetric
    # was fitted without feature names".
    pd = pytest.importorskip("pandas")
    model, X, y, tasks = fitted
    columns = ["f%d" % i for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    on_frame = clone(model).fit(frame, y, tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        embedded = on_frame.transform(frame, task="a")
        metric = on_frame.for_task("a")
        refitted = clone(metric).fit(frame).transform(frame)
    np.testing.assert_allclose(embedded, model.transform(X, task="a"))
    np.testing.assert_allclose(refitted, embedded)
    assert list(metric.feature_names_in_) == columns
    with pytest.raises(ValueError, match="feature names should match"):
        on_frame.transform(frame[columns[::-1]], task="a")
    # Fitted on an array, a task metric has no feature names.
    assert not hasattr(model.for_task("a"), "feature_names_in_")


def test_input_is_not_modified():
    X, y, tasks = two_task_data(30)
    copies = X.copy(), y.copy(), tasks.copy()
    MultiTaskSCML_Supervised(**FAST).fit(X, y, tasks)
    for original, copy in zip((X, y, tasks), copies):
        np.testing.assert_array_equal(original, copy)


def test_union_basis_holds_an_element_of_several_tasks_once():
    # Two tasks on the same 24 points, 3 classes of 8: every region of
    # either task takes every point, so both task bases are the same two
    # FDA directions, and the union must hold them once, as one task would.
    rng = np.random.RandomState(0)
    X = rng.randn(24, 4)
    y = np.repeat([0, 1, 2], 8)
    X[:, 0] += 2.0 * y
    mt = MultiTaskSCML_Supervised(**FAST).fit(
        np.vstack([X, X]), np.concatenate([y, y]), np.repeat([0, 1], 24))
    single = SCML_Supervised(**FAST, **SINGLE).fit(X, y)
    assert mt.basis_.shape == single.basis_.shape == (2, 4)
    np.testing.assert_allclose(np.abs(np.sum(mt.basis_ * single.basis_, 1)),
                               1.0, atol=1e-9)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_default_union_keeps_the_budget_of_four_task_bases():
    # With n_basis=None, up to four tasks get a full basis each (K = 400
    # for 4 features); eight tasks share the budget of four: 200 each.
    from metric_learn_scml._triplets import default_n_basis, task_basis_size
    rng = np.random.RandomState(0)
    for n_tasks, n_basis, shared, expected in (
            (4, default_n_basis(4), True, 400), (8, default_n_basis(4), True, 200),
            (8, 300, False, 300)):   # a given n_basis is always per task
        assert task_basis_size(n_tasks, n_basis, 4, shared) == expected
    # 100 tasks with 20 features: 1,600 / 100 = 16, below the per-task
    # floor of n_features.
    assert task_basis_size(100, default_n_basis(20), 20) == 20
    # The learner's basis follows the rule: its 'triplet_diffs' task bases
    # have as many elements as asked, less a few shared ones.
    # Every task holds both classes, twice each (points 4t .. 4t + 3).
    X, y = rng.randn(400, 4), np.tile([0, 0, 1, 1], 100)
    for n_tasks, n_basis, expected in ((4, None, 400), (8, None, 200),
                                       (8, 300, 300)):
        model = MultiTaskSCML_Supervised(
            basis="triplet_diffs", n_basis=n_basis, max_iter=1,
            random_state=0).fit(X, y, (np.arange(400) // 4) % n_tasks)
        assert 0.95 * n_tasks * expected < model.basis_.shape[0] \
            <= n_tasks * expected


def test_user_basis_is_shared_by_all_tasks(fitted):
    _, X, y, tasks = fitted
    basis = np.eye(6) * 2.0
    model = MultiTaskSCML_Supervised(basis=basis, random_state=0,
                                     max_iter=1500).fit(X, y, tasks)
    np.testing.assert_allclose(model.basis_, np.eye(6))
    assert model.weights_.shape == (2, 6)


def test_task_metric_set_output_pandas(fitted):
    # As for SCML_Supervised: set_output(transform="pandas") was ignored by
    # the task metric's transform.
    pd = pytest.importorskip("pandas")
    model, X, y, tasks = fitted
    metric = model.for_task("a").set_output(transform="pandas")
    embedded = metric.transform(X)
    assert isinstance(embedded, pd.DataFrame)
    np.testing.assert_allclose(embedded.to_numpy(), model.transform(X, task="a"))


def test_tasks_none_is_refused_and_names_the_single_task_learner():
    # tasks=None used to fit one pooled row; a refit after a fit on tasks
    # then left the old tasks_ beside it, and get_mahalanobis_matrix('a')
    # returned the pooled metric.
    X, y, tasks = two_task_data(30)
    model = MultiTaskSCML_Supervised(**FAST).fit(X, y, tasks)
    weights = model.weights_.copy()
    for call in (lambda: model.fit(X, y, None),
                 lambda: model.partial_fit(X, y, None)):
        with pytest.raises(ValueError, match="needs tasks, one task label "
                                             "per sample.*use SCML_Supervised"):
            call()
    np.testing.assert_array_equal(model.weights_, weights)
    triplets = X[np.array([[0, 1, 2], [3, 4, 5]])]
    for call in (lambda: MultiTaskSCML(**FAST).fit(triplets, None),
                 lambda: MultiTaskSCML(**FAST).partial_fit(triplets, None)):
        with pytest.raises(ValueError, match="per triplet.*use SCML\\."):
            call()


def test_per_task_input_errors_name_the_learner(fitted):
    model, X, y, tasks = fitted
    for call in (lambda: model.transform(X[:, :3], task="a"),
                 lambda: model.pair_distance(np.zeros((2, 2, 3)), task="a"),
                 lambda: model.get_metric(task="a")(X[0, :3], X[1, :3])):
        with pytest.raises(ValueError, match="MultiTaskSCML_Supervised "
                                             "\\(task 'a'\\) (is expecting|"
                                             "takes two points of) 6"):
            call()


def test_score_pairs_is_deprecated_as_in_metric_learn(fitted):
    model, X, _, tasks = fitted
    pairs = np.stack([X[:5], X[5:10]], axis=1)
    with pytest.warns(FutureWarning, match="pair_distance"):
        scores = model.score_pairs(pairs, task=tasks[0])
    np.testing.assert_array_equal(scores, model.pair_distance(pairs, task=tasks[0]))


def test_a_task_whose_metric_is_zero_is_named_in_a_warning():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = np.tile([0, 1, 2], 20)
    X[y == 1, 0] += 2
    X[y == 2, 1] += 2
    tasks = np.repeat(["a", "b"], 30)
    X[tasks == "b"] = 1.0     # task b's points are all one point
    with pytest.warns(UserWarning, match="metric of task 'b' is zero"):
        model = MultiTaskSCML_Supervised(random_state=0).fit(X, y, tasks)
    assert not model.get_mahalanobis_matrix("b").any()
    assert model.get_mahalanobis_matrix("a").any()


def test_triplet_predictions_without_tasks_name_them():
    rng = np.random.RandomState(0)
    triplets = rng.randn(40, 3, 2)
    model = MultiTaskSCML(random_state=0, max_iter=200).fit(
        triplets, np.arange(40) % 2)
    for method in (model.predict, model.decision_function, model.score):
        with pytest.raises(ValueError, match="got tasks=None"):
            method(triplets, None)


def test_a_list_of_mixed_task_labels_is_refused():
    # numpy would turn [1, "a"] into ["1", "a"], and task 1 would be unknown.
    X, y, _ = two_task_data()
    tasks = [1 if i % 2 else "a" for i in range(X.shape[0])]
    with pytest.raises(TypeError, match="mixes strings with other labels"):
        MultiTaskSCML_Supervised(**FAST).fit(X, y, tasks)


def test_per_task_warnings_name_the_learner_and_the_task(fitted):
    pandas = pytest.importorskip("pandas")
    model, X, y, tasks = fitted
    frame = pandas.DataFrame(X, columns=["f%d" % i for i in range(X.shape[1])])
    named = clone(model).fit(frame, y, tasks)
    with pytest.warns(UserWarning, match=r"MultiTaskSCML_Supervised \(task .*\) "
                                         "was fitted with feature names"):
        named.transform(X[:2], task=tasks[0])


def test_unscored_tasks_are_each_named_with_their_own_reason():
    # Several tasks too small to score were named together with the
    # first one's counts.
    X, y = make_classification(509, 8, n_informative=5, n_redundant=0,
                               random_state=0)
    tasks = np.array(["a"] * 5 + ["b"] * 4 + ["big"] * 500)
    y[:9] = [0, 0, 1, 1, 0, 0, 1, 0, 1]
    with pytest.warns(UserWarning, match=r"among 5 points.*on task 'a'; .*"
                      r"among 4 points.*on task 'b', so beta_ is chosen"):
        MultiTaskSCML_Supervised(random_state=0).fit(X, y, tasks)


def test_auto_beta_pools_the_tasks_it_could_score_and_names_the_others():
    # One task of 5 points (too few to hold any out) switched the choice
    # off for every task, with a warning that named no task.
    X, y = make_classification(505, 8, n_informative=5, n_redundant=0,
                               random_state=0)
    tasks = np.array(["small"] * 5 + ["big"] * 500)
    y[:5] = [0, 0, 1, 1, 0]
    with pytest.warns(UserWarning, match=r"on task 'small', so beta_ is "
                      r"chosen on the held-out points of the other tasks"):
        multi = MultiTaskSCML_Supervised(random_state=0).fit(X, y, tasks)
    big = SCML_Supervised(random_state=0).fit(X[5:], y[5:])
    # (The big task's selection alone: its own grid and choice.)
    # (Where some tasks could not be scored, the choice is not carried over
    # to the multiples of all the tasks' beta_max; the single-task model's
    # is, to its own: compare the choices as made.)
    chosen = [next(stage for stage in model.fit_stages_
                   if stage["stage"] == "choosing beta")
              for model in (multi, big)]
    np.testing.assert_allclose(chosen[0]["values_tried"],
                               chosen[1]["values_tried"], rtol=1e-12)
    assert chosen[0]["chosen"] == pytest.approx(chosen[1]["chosen"],
                                                rel=1e-12)
    np.testing.assert_allclose(multi.beta_path_, chosen[0]["values_tried"])


def test_auto_beta_scores_the_pooled_held_out_points_once_not_per_task():
    # The tasks' choices pool their held-out mistakes into one choice, so
    # together they score the held-out points one choice needs: three
    # tasks of 250 points each scored all 750 (five paths each, where a
    # single-task model of the 750 points scores 500 on three).
    X, y = make_classification(750, 6, n_informative=4, n_redundant=0,
                               random_state=0)
    tasks = np.repeat(["a", "b", "c"], 250)
    model = MultiTaskSCML_Supervised(random_state=0).fit(X, y, tasks)
    choice = next(stage for stage in model.fit_stages_
                  if stage["stage"] == "choosing beta")
    assert 500 <= choice["held_out_points"] < 750
    assert model.validation_error_path_.shape == (7,)
