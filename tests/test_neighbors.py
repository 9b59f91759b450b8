"""Tests of MetricKNeighborsClassifier with global, multi-task and local models."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from metric_learn_scml import (LocalSCML_Supervised,
                               MetricKNeighborsClassifier,
                               MultiTaskSCML_Supervised, SCML_Supervised)

FAST = dict(beta=1e-5, max_iter=2000, output_iter=100, random_state=0)


@pytest.fixture(scope="module")
def global_knn(wine_split):
    X, _, y, _ = wine_split
    return MetricKNeighborsClassifier(SCML_Supervised(**FAST)).fit(X, y)


@pytest.fixture(scope="module")
def local_knn(wine_split):
    X, _, y, _ = wine_split
    return MetricKNeighborsClassifier(
        LocalSCML_Supervised(embedding_dim=8, **FAST)).fit(X, y)


def test_global_model_matches_sklearn_exactly(wine_split, global_knn):
    X, X_test, y, _ = wine_split
    metric = global_knn.estimator_
    reference = KNeighborsClassifier(3).fit(metric.transform(X), y)
    X_test_embedded = metric.transform(X_test)
    np.testing.assert_array_equal(global_knn.predict(X_test),
                                  reference.predict(X_test_embedded))
    np.testing.assert_array_equal(global_knn.predict_proba(X_test),
                                  reference.predict_proba(X_test_embedded))
    for ours, theirs in zip(global_knn.kneighbors(X_test),
                            reference.kneighbors(X_test_embedded)):
        np.testing.assert_array_equal(ours, theirs)
    for ours, theirs in zip(global_knn.kneighbors(), reference.kneighbors()):
        np.testing.assert_array_equal(ours, theirs)
    # The metric learner is a fitted clone; the given one is left unfitted.
    assert not hasattr(global_knn.estimator, "components_")


def test_global_metric_beats_euclidean(wine_split):
    X, X_test, y, y_test = wine_split
    # Irrelevant directions of large variance spoil the Euclidean 3-NN.
    noise = 10 * np.random.RandomState(1).randn(X.shape[0] + X_test.shape[0],
                                                3)
    X_noisy = np.hstack([X, noise[:X.shape[0]]])
    X_test_noisy = np.hstack([X_test, noise[X.shape[0]:]])
    euclidean = KNeighborsClassifier(3).fit(X_noisy, y).score(X_test_noisy,
                                                              y_test)
    learned = MetricKNeighborsClassifier(SCML_Supervised(**FAST)).fit(
        X_noisy, y).score(X_test_noisy, y_test)
    assert learned > euclidean + 0.1


def test_local_model_uses_the_query_metric(wine_split, local_knn):
    X, X_test, y, _ = wine_split
    distances = local_knn.estimator_.pairwise_distances(X_test, X)
    expected = np.argsort(distances, axis=1, kind="stable")[:, :3]
    found_distances, found = local_knn.kneighbors(X_test)
    np.testing.assert_array_equal(found, expected)
    np.testing.assert_allclose(found_distances,
                               np.take_along_axis(distances, expected, 1))
    votes = np.stack([(y[expected] == c).sum(1) for c in local_knn.classes_],
                     axis=1)
    np.testing.assert_allclose(local_knn.predict_proba(X_test), votes / 3)
    np.testing.assert_array_equal(local_knn.predict(X_test),
                                  local_knn.classes_[votes.argmax(1)])
    # The training points' own neighbours leave each point out.
    training = local_knn.kneighbors(return_distance=False)
    assert not (training == np.arange(X.shape[0])[:, None]).any()
    own = local_knn.estimator_.pairwise_distances(X)
    np.fill_diagonal(own, np.inf)
    np.testing.assert_array_equal(
        training, np.argsort(own, axis=1, kind="stable")[:, :3])


def test_local_model_classifies_well(wine_split, local_knn):
    _, X_test, _, y_test = wine_split
    assert local_knn.score(X_test, y_test) > 0.9


def test_string_labels_and_classes(wine_split):
    X, X_test, y, y_test = wine_split
    names = np.array(["barolo", "grignolino", "barbera"])
    knn = MetricKNeighborsClassifier(
        LocalSCML_Supervised(embedding_dim=5, **FAST)).fit(X, names[y])
    assert list(knn.classes_) == sorted(names)
    assert set(knn.predict(X_test)) <= set(names)
    assert knn.predict_proba(X_test).shape == (X_test.shape[0], 3)
    assert knn.score(X_test, names[y_test]) > 0.85


def test_grid_search_over_the_metric_parameters(wine_split):
    X, _, y, _ = wine_split
    # beta=10 keeps no element: the search must score it worse.
    with pytest.warns(UserWarning, match="All basis weights are zero"):
        search = GridSearchCV(
            MetricKNeighborsClassifier(SCML_Supervised(**FAST)),
            {"estimator__beta": [10.0, 1e-5]}, cv=2).fit(X, y)
    assert search.best_params_["estimator__beta"] == 1e-5
    assert search.best_estimator_.estimator_.beta == 1e-5
    scores = search.cv_results_["mean_test_score"]
    assert scores[1] > scores[0] + 0.2


def test_clone_and_pickle(wine_split, local_knn, global_knn):
    X, X_test, _, _ = wine_split
    for fitted in (local_knn, global_knn):
        restored = pickle.loads(pickle.dumps(fitted))
        np.testing.assert_array_equal(restored.predict(X_test),
                                      fitted.predict(X_test))
        params = clone(fitted).get_params()
        assert params["n_neighbors"] == 3
        assert "estimator__beta" in params


def test_bad_input(wine_split, local_knn):
    X, X_test, y, _ = wine_split
    with pytest.raises(ValueError, match="n_neighbors"):
        MetricKNeighborsClassifier(SCML_Supervised(**FAST),
                                   n_neighbors=0).fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors"):
        MetricKNeighborsClassifier(LocalSCML_Supervised(**FAST),
                                   n_neighbors=200).fit(X, y)
    bad = X_test.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        local_knn.predict(bad)
    with pytest.raises(ValueError, match="features"):
        local_knn.predict(X_test[:, :5])


def test_estimator_that_learns_no_metric_from_labels_is_refused(wine_split):
    # SCML() failed inside fit with "SCML.fit() takes 2 positional arguments
    # but 3 were given", a classifier with an AttributeError on transform.
    from sklearn.linear_model import LogisticRegression
    from metric_learn import ITML
    from metric_learn_scml import LocalSCML, MultiTaskSCML, SCML
    X, _, y, _ = wine_split
    accepted = ("MetricKNeighborsClassifier's estimator must be a supervised "
                "metric learner, fitted as fit\\(X, y\\) or "
                "fit\\(X, y, tasks\\): SCML_Supervised, "
                "MultiTaskSCML_Supervised, LocalSCML_Supervised, or any "
                "metric-learn supervised Mahalanobis learner")
    for weak, tuples in ((SCML(), "triplets"), (LocalSCML(), "triplets"),
                         (MultiTaskSCML(), "triplets"), (ITML(), "pairs")):
        name = type(weak).__name__
        with pytest.raises(TypeError, match="estimator=%s is weakly supervised:"
                           " it fits on %s, not on labels. %s.*Use "
                           "%s_Supervised" % (name, tuples, accepted, name)):
            MetricKNeighborsClassifier(weak).fit(X, y)
    with pytest.raises(TypeError, match="estimator=LogisticRegression is not a "
                       "metric learner: it has no transform .*%s" % accepted):
        MetricKNeighborsClassifier(LogisticRegression()).fit(X, y)


def test_pipeline_ending_in_a_local_or_multitask_learner_names_the_fix(
        wine_split):
    # It said the pipeline was not a multi-task learner, or not a metric
    # learner at all; the fix is the pipeline around the classifier.
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from metric_learn_scml import LocalSCML_Supervised, MultiTaskSCML_Supervised
    X, _, y, _ = wine_split
    for learner, kind in ((LocalSCML_Supervised(), "per point"),
                          (MultiTaskSCML_Supervised(), "per task")):
        name = type(learner).__name__
        for tasks in (None, np.arange(len(y)) % 2):
            with pytest.raises(TypeError, match=(
                    r"estimator=Pipeline ends in %s, whose metric is %s: .* "
                    r"make_pipeline\(StandardScaler\(\), "
                    r"MetricKNeighborsClassifier\(%s\(\)\)\)" % (
                        name, kind, name))):
                MetricKNeighborsClassifier(make_pipeline(
                    StandardScaler(), learner)).fit(X, y, tasks=tasks)


# --------------------------------------------------------------------------
# Multi-task models
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tasks_data():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    tasks = np.where(X[:, 1] > 0, "wide", "narrow")
    rng = np.random.RandomState(0)
    order = rng.permutation(X.shape[0])
    train, test = order[:100], order[100:]
    return X[train], y[train], tasks[train], X[test], y[test], tasks[test]


def test_multitask_model_uses_each_task_metric(tasks_data):
    X, y, tasks, X_test, y_test, tasks_test = tasks_data
    knn = MetricKNeighborsClassifier(
        MultiTaskSCML_Supervised(n_basis=40, **FAST)).fit(X, y, tasks)
    predictions = knn.predict(X_test, tasks_test)
    _, neighbours = knn.kneighbors(X_test, tasks=tasks_test)
    for task in np.unique(tasks):
        members = np.flatnonzero(tasks == task)
        rows = np.flatnonzero(tasks_test == task)
        metric = knn.estimator_.for_task(task)
        reference = KNeighborsClassifier(3).fit(metric.transform(X[members]),
                                                y[members])
        embedded = metric.transform(X_test[rows])
        np.testing.assert_array_equal(predictions[rows],
                                      reference.predict(embedded))
        # Neighbours are indices into the whole training set, of the task.
        np.testing.assert_array_equal(
            neighbours[rows], members[reference.kneighbors(embedded)[1]])
    assert knn.score(X_test, y_test, tasks=tasks_test) > 0.8
    np.testing.assert_allclose(knn.predict_proba(X_test, tasks_test).sum(1),
                               1.0)


def test_multitask_queries_of_some_tasks_only(tasks_data):
    # Queries of one task (or their training points' own neighbours) are
    # searched in that task alone; the other task is simply absent.
    X, y, tasks, X_test, _, tasks_test = tasks_data
    knn = MetricKNeighborsClassifier(
        MultiTaskSCML_Supervised(n_basis=40, **FAST)).fit(X, y, tasks)
    wide = tasks_test == "wide"
    _, indices = knn.kneighbors(X_test[wide], tasks=tasks_test[wide])
    assert (tasks[indices] == "wide").all()
    np.testing.assert_array_equal(
        knn.predict(X_test[wide], tasks_test[wide]),
        knn.predict(X_test, tasks_test)[wide])
    _, own = knn.kneighbors()
    assert (tasks[own] == tasks[:, None]).all()
    assert (own != np.arange(X.shape[0])[:, None]).all()


def test_multitask_model_needs_known_tasks(tasks_data):
    X, y, tasks, X_test, _, _ = tasks_data
    knn = MetricKNeighborsClassifier(
        MultiTaskSCML_Supervised(n_basis=40, **FAST)).fit(X, y, tasks)
    with pytest.raises(ValueError, match="tasks="):
        knn.predict(X_test)
    with pytest.raises(ValueError, match="not seen"):
        knn.predict(X_test[:2], ["wide", "tall"])
    with pytest.raises(ValueError, match="one entry per sample"):
        knn.predict(X_test[:2], ["wide"])
    with pytest.raises(ValueError, match="pass tasks="):
        MetricKNeighborsClassifier(MultiTaskSCML_Supervised()).fit(X, y)
    # score's third argument is sample_weight: tasks given there are named,
    # and the missing tasks' message names scikit-learn's metadata routing.
    _, y_test, tasks_test = tasks_data[3:]
    with pytest.raises(ValueError, match=r"score\(X, y, tasks=tasks\)"):
        knn.score(X_test, y_test, tasks_test)
    with pytest.raises(ValueError, match="set_score_request"):
        knn.score(X_test, y_test)
    with pytest.raises(ValueError, match="not a multi-task"):
        MetricKNeighborsClassifier(SCML_Supervised()).fit(X, y, tasks)


def test_scikit_learn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator
    results = check_estimator(MetricKNeighborsClassifier(SCML_Supervised(
        max_iter=300, output_iter=100, random_state=0)), on_fail=None)
    failed = [(result["check_name"], result["exception"])
              for result in results if result["status"] == "failed"]
    assert not failed


def test_too_many_neighbours_fail_in_fit_for_a_global_model(wine_split):
    # The local and multi-task models refused n_neighbors above the training
    # size in fit; the global one was fitted, and predict then failed inside
    # scikit-learn's KNeighborsClassifier.
    X, X_test, y, _ = wine_split
    with pytest.raises(ValueError, match="n_neighbors=200 is too large for the "
                                         "106 training points"):
        MetricKNeighborsClassifier(SCML_Supervised(**FAST),
                                   n_neighbors=200).fit(X, y)


def test_knn_scorer_takes_a_column_of_labels(wine_split, global_knn):
    # y of shape (n, 1) raised an IndexError from numpy's fancy indexing.
    from sklearn.exceptions import DataConversionWarning
    from metric_learn_scml import knn_scorer
    X, _, y, _ = wine_split
    metric = global_knn.estimator_
    with pytest.warns(DataConversionWarning):
        column = knn_scorer(metric, X, y[:, None])
    assert column == knn_scorer(metric, X, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        knn_scorer(metric, X, y[:-1])


def test_knn_scorer_refuses_a_multi_task_learner_with_the_fix(wine_split):
    # (It said "pass task=", which a scorer cannot.)
    from metric_learn_scml import knn_scorer
    X, _, y, _ = wine_split
    tasks = np.arange(len(y)) % 2
    model = MultiTaskSCML_Supervised(**FAST).fit(X, y, tasks)
    with pytest.raises(ValueError, match=r"one per task: score each task's "
                       r"points with knn_scorer\(estimator.for_task"):
        knn_scorer(model, X, y)
    alone = knn_scorer(model.for_task(0), X[tasks == 0], y[tasks == 0])
    assert 0.5 < alone <= 1.0


def test_n_neighbors_set_after_fit_applies(wine_split, global_knn):
    # (predict and predict_proba kept the k of fit, as scikit-learn's
    # KNeighborsClassifier does not.)
    X, X_test, _, _ = wine_split
    model = clone(global_knn).fit(X, wine_split[2])
    reference = KNeighborsClassifier(1).fit(
        model.estimator_.transform(X), wine_split[2])
    model.set_params(n_neighbors=1)
    np.testing.assert_array_equal(
        model.predict(X_test),
        reference.predict(model.estimator_.transform(X_test)))
    assert set(np.unique(model.predict_proba(X_test))) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="n_neighbors=1000 is too large"):
        model.set_params(n_neighbors=1000).predict(X_test)


def test_unseen_tasks_of_any_type_are_named(wine_split):
    # (None or mixed types failed in numpy's sort.)
    X, _, y, _ = wine_split
    model = MetricKNeighborsClassifier(MultiTaskSCML_Supervised(**FAST)).fit(
        X, y, tasks=np.arange(len(y)) % 2)
    for tasks, unseen in ((np.array([0, None], dtype=object), r"\[None\]"),
                          (np.array([0, "a"], dtype=object), r"\['a'\]")):
        with pytest.raises(ValueError, match="tasks %s were not seen"
                           % unseen):
            model.predict(X[:2], tasks=tasks)


def test_labels_of_mixed_types_name_y(wine_split):
    X, _, y, _ = wine_split
    mixed = np.array(["a", 1, 2], dtype=object)[y]
    with pytest.raises(TypeError, match="y must hold class labels of one "
                                        "type"):
        MetricKNeighborsClassifier(SCML_Supervised(**FAST)).fit(X, mixed)


@pytest.mark.parametrize("labels", [["a", 1, 2.0], ["a", None, "b"]])
def test_knn_scorer_names_y_for_labels_of_mixed_types(wine_split, global_knn,
                                                      labels):
    # They raised numpy's bare "'<' not supported between instances of ..."
    # from the sort of np.unique; fit already names y.
    from metric_learn_scml import knn_scorer
    X, _, y, _ = wine_split
    mixed = np.array(labels, dtype=object)[y]
    with pytest.raises(TypeError, match="y must hold class labels of one "
                                        "type .*, without None"):
        knn_scorer(global_knn.estimator_, X, mixed)


def test_learner_with_a_preprocessor_is_refused_clearly(wine_split):
    # Indices met scikit-learn's "Expected 2D array ... reshape(-1, 1)",
    # whose advice fitted a one-feature metric on the index values.
    X, _, y, _ = wine_split
    knn = MetricKNeighborsClassifier(SCML_Supervised(preprocessor=X, **FAST))
    for data in (np.arange(len(y)), np.arange(len(y))[:, None]):
        with pytest.raises(ValueError, match="has a preprocessor, but "
                                             "MetricKNeighborsClassifier"):
            knn.fit(data, y)


def test_tasks_are_refused_by_a_classifier_without_tasks(wine_split, global_knn):
    # They were accepted, even of the wrong length, and ignored.
    X_train, X_test, y_train, y_test = wine_split
    for call in (lambda: global_knn.predict(X_test, tasks=np.zeros(3)),
                 lambda: global_knn.predict_proba(X_test, tasks=np.zeros(len(y_test))),
                 lambda: global_knn.score(X_test, y_test, tasks=np.zeros(len(y_test))),
                 lambda: global_knn.kneighbors(tasks=np.zeros(len(y_train)))):
        with pytest.raises(ValueError, match="not a multi-task learner"):
            call()


def test_a_refit_keeps_nothing_of_another_kind_of_learner(wine_split):
    X, _, y, _ = wine_split
    tasks = np.arange(X.shape[0]) % 2
    knn = MetricKNeighborsClassifier(MultiTaskSCML_Supervised(**FAST))
    knn.fit(X, y, tasks=tasks)
    assert knn.kind_ == "multitask"
    knn.set_params(estimator=SCML_Supervised(**FAST)).fit(X, y)
    assert knn.kind_ == "global"
    assert not hasattr(knn, "_task_models") and not hasattr(knn, "_X_fit")


def test_task_names_in_messages_are_plain(wine_split):
    X, _, y, _ = wine_split
    tasks = np.where(np.arange(X.shape[0]) < 3, 0, 1)
    knn = MetricKNeighborsClassifier(MultiTaskSCML_Supervised(**FAST),
                                     n_neighbors=5)
    with pytest.raises(ValueError, match=r"of task 0: decrease"):
        knn.fit(X, y, tasks=tasks)


def test_learners_that_refuse_string_labels_get_the_class_codes(wine_split):
    import metric_learn
    X, X_test, y, y_test = wine_split
    names = np.array(["c", "a", "b"])
    knn = MetricKNeighborsClassifier(metric_learn.ITML_Supervised(max_iter=30,
                                                                  random_state=0))
    assert set(knn.fit(X, names[y]).predict(X_test)) <= set(names)
    coded = MetricKNeighborsClassifier(metric_learn.ITML_Supervised(
        max_iter=30, random_state=0)).fit(X, y)
    np.testing.assert_array_equal(knn.predict(X_test), names[coded.predict(X_test)])


def test_training_neighbours_refuse_tasks_they_would_ignore(wine_split):
    X, _, y, _ = wine_split
    tasks = np.arange(X.shape[0]) % 2
    knn = MetricKNeighborsClassifier(MultiTaskSCML_Supervised(**FAST))
    knn.fit(X, y, tasks=tasks)
    assert knn.kneighbors()[1].shape == (X.shape[0], 3)
    with pytest.raises(ValueError, match="within their own tasks"):
        knn.kneighbors(tasks=tasks)


def test_training_neighbours_of_a_task_name_it(wine_split):
    X, _, y, _ = wine_split
    tasks = np.arange(X.shape[0]) % 2
    knn = MetricKNeighborsClassifier(MultiTaskSCML_Supervised(**FAST))
    knn.fit(X, y, tasks=tasks)
    with pytest.raises(ValueError, match=r"n_neighbors=53 is too large for the "
                                         r"53 training points of task 0 \(each"):
        knn.kneighbors(n_neighbors=53)


def test_knn_scorer_scores_one_class_alike_for_every_metric_and_warns():
    # On class-sorted data, cv=int gives a transformer unshuffled KFold whose
    # test folds hold one class: there every metric, the zero one included,
    # classifies each point correctly, so the fold cannot compare metrics.
    from sklearn.datasets import load_iris
    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from metric_learn_scml import knn_scorer
    X, y = load_iris(return_X_y=True)
    good = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="All basis weights are zero"):
        zero = SCML_Supervised(beta=1e3, random_state=0).fit(X, y)
    for model in (good, zero):
        with pytest.warns(UndefinedMetricWarning, match=r"single class \(0\)"
                          r".*cv=StratifiedKFold\(n_splits, shuffle=True"):
            assert knn_scorer(model, X[y == 0], y[y == 0]) == 1.0
    with pytest.warns(UserWarning, match="All basis weights are zero"):
        scores = cross_val_score(
            SCML_Supervised(beta=1e3, random_state=0), X, y, scoring=knn_scorer,
            cv=StratifiedKFold(3, shuffle=True, random_state=0))
    assert scores.max() < 0.5


@pytest.mark.parametrize("loader", ["load_iris", "load_wine"])
# (Raw wine's features are 400-fold apart: rightly warned.)
@pytest.mark.filterwarnings("ignore:The features' standard deviations differ")
def test_default_cv_on_class_sorted_data_scores_every_fold(loader):
    # A transformer gets unshuffled KFold: on class-sorted data three of the
    # five test folds hold one class. Their scores were NaN, so every
    # candidate of GridSearchCV averaged to NaN and best_params_ was
    # arbitrary; now they are finite and equal across candidates, and the
    # folds of several classes choose.
    import sklearn.datasets
    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.model_selection import cross_val_score
    from metric_learn_scml import knn_scorer
    X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
    assert np.all(np.diff(y) >= 0)
    with pytest.warns(UndefinedMetricWarning, match="unshuffled KFold"):
        scores = cross_val_score(SCML_Supervised(beta=1e-3, random_state=0),
                                 X, y, scoring=knn_scorer)
    assert scores.shape == (5,) and np.all(np.isfinite(scores))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UndefinedMetricWarning)
        warnings.filterwarnings("ignore", "All basis weights are zero")
        # (GridSearchCV's own warning about non-finite scores fails here.)
        warnings.filterwarnings("error", "One or more of the test scores")
        search = GridSearchCV(SCML_Supervised(random_state=0),
                              {"beta": [1e6, 1e-3]}, scoring=knn_scorer,
                              ).fit(X, y)
    mean = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(mean)) and mean[1] > mean[0]
    assert search.best_params_ == {"beta": 1e-3}


def test_knn_scorer_of_a_classifier_names_its_score():
    # (A bare AttributeError: no attribute 'transform'.)
    from metric_learn_scml import knn_scorer
    X, y = load_iris(return_X_y=True)
    model = MetricKNeighborsClassifier(SCML_Supervised(**FAST)).fit(X, y)
    with pytest.raises(TypeError, match="MetricKNeighborsClassifier has "
                       "none.*use its score method"):
        knn_scorer(model, X, y)


def test_neighbours_of_points_far_from_the_origin_stay_exact():
    # From 5,000 points on more than 8 features the searches compare every
    # pair through |a|^2 - 2 a.b + |b|^2, which loses the digits of an
    # offset: 5,000 points at 1e8 agreed with the exact 3-NN on 69 % of
    # the test points. Such points keep the k-d tree.
    rng = np.random.RandomState(0)
    X = rng.randn(5200, 10)
    y = (X[:, 0] > 0).astype(int)
    X += 1e8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MetricKNeighborsClassifier(SCML_Supervised(
            beta=1e-3, max_iter=200, random_state=0)).fit(X[:5000], y[:5000])
    embedded = model.estimator_.transform(X)
    assert embedded.shape[1] > 8
    exact = KNeighborsClassifier(3, algorithm="kd_tree").fit(
        embedded[:5000], y[:5000]).predict(embedded[5000:])
    np.testing.assert_array_equal(model.predict(X[5000:]), exact)
