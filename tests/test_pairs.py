"""SCML from labelled pairs that need not share a point (quadruplets), and
SCML as a classifier of pairs (issue 41, item 2)."""

import pickle
import warnings

import numpy as np
import pytest
from conftest import ordered_triplets, threshold_accuracy
from scipy.optimize import linprog
from sklearn.base import clone
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import cross_val_score

from metric_learn_scml import SCML
from metric_learn_scml._arrays import distinct_rows
from metric_learn_scml._problem import HingeProblem, SquaredDifferences, pair_index
from metric_learn_scml._triplets import (pairs_without_triplet, quadruplets_from_pairs,
                                         triplets_from_pairs)
from metric_learn_scml._validation import validate_triplets


def independent_pairs(seed, n_pairs, n_features=6):
    """Pairs of two points of their own, similar (+1) where the first two
    features are closer than the median such distance."""
    rng = np.random.RandomState(seed)
    pairs = rng.randn(n_pairs, 2, n_features)
    gap = np.linalg.norm(pairs[:, 0, :2] - pairs[:, 1, :2], axis=1)
    return pairs, np.where(gap < np.sqrt(4 * np.log(2)), 1, -1)


@pytest.fixture(scope="module")
def pair_task():
    train, y_train = independent_pairs(0, 600)
    test, y_test = independent_pairs(1, 2000)
    return train, y_train, test, y_test


@pytest.fixture(scope="module")
def pair_model(pair_task):
    train, y_train, _, _ = pair_task
    return SCML(random_state=0).fit(train, y_train)


# ------------------------------------------------------ learning from pairs


def test_independent_pairs_are_learned_and_classified_at_the_threshold(pair_task,
                                                                       pair_model):
    train, y_train, test, y_test = pair_task
    model = pair_model
    # Calibrated on the training pairs at fit, as metric-learn's pair learners.
    threshold = model.threshold_
    assert threshold == clone(model).fit(train, y_train).calibrate_threshold(
        train, y_train).threshold_
    distances = model.pair_distance(test)
    np.testing.assert_array_equal(model.predict(test),
                                  np.where(distances <= threshold, 1, -1))
    # score is metric-learn's: the ROC AUC of decision_function
    assert model.score(test, y_test) == roc_auc_score(
        y_test, model.decision_function(test))
    learned = accuracy_score(y_test, model.predict(test))
    euclidean = threshold_accuracy(
        np.linalg.norm(train[:, 0] - train[:, 1], axis=1), y_train,
        np.linalg.norm(test[:, 0] - test[:, 1], axis=1), y_test)
    assert learned > 0.9 > euclidean + 0.15
    # The two deciding features carry the metric.
    weights = np.diag(model.get_mahalanobis_matrix())
    assert weights[:2].min() > 5 * weights[2:].max()


def test_scoring_pairs_of_one_kind_or_a_non_finite_threshold_is_refused(
        pair_task, pair_model):
    # roc_auc_score warned and returned NaN; set_threshold(nan) made every
    # pair dissimilar.
    _, _, test, y_test = pair_task
    similar = y_test == 1
    with pytest.raises(ValueError, match="needs both kinds of pair"):
        pair_model.score(test[similar], y_test[similar])
    for threshold in (np.nan, np.inf, "1.0"):
        with pytest.raises(ValueError, match="threshold must be"):
            pair_model.set_threshold(threshold)
    assert np.isfinite(pair_model.threshold_)


def test_index_pairs_with_a_preprocessor_give_the_same_model(pair_task, pair_model):
    train, y_train, test, _ = pair_task
    X = train.reshape(-1, train.shape[-1])
    indices = np.arange(X.shape[0]).reshape(-1, 2)
    model = SCML(preprocessor=X, random_state=0).fit(indices, y_train)
    np.testing.assert_allclose(model.get_mahalanobis_matrix(),
                               pair_model.get_mahalanobis_matrix(), rtol=1e-6)
    assert model.threshold_ == pytest.approx(pair_model.threshold_)
    np.testing.assert_array_equal(model.predict(indices),
                                  pair_model.predict(train))


def test_quadruplets_compare_every_pair_with_pairs_of_the_other_kind():
    rng = np.random.RandomState(0)
    y = np.where(rng.rand(300) < 0.3, 1, -1)
    pairs = np.arange(600).reshape(300, 2)
    quadruplets = quadruplets_from_pairs(pairs, y, n_compared=10, random_state=0)
    similar = quadruplets[:, 0] // 2
    dissimilar = quadruplets[:, 2] // 2
    assert (y[similar] == 1).all() and (y[dissimilar] == -1).all()
    np.testing.assert_array_equal(quadruplets[:, [0, 1]], pairs[similar])
    # Linear in the pairs; no combination twice; every pair in at least 10,
    # the pairs of each kind used about equally often.
    assert quadruplets.shape[0] <= 10 * 300
    assert np.unique(quadruplets, axis=0).shape[0] == quadruplets.shape[0]
    for ids, kind in ((similar, 1), (dissimilar, -1)):
        counts = np.bincount(ids, minlength=300)[y == kind]
        assert counts.min() >= 10
        assert counts.max() - counts.min() <= 0.3 * counts.mean()
    # A kind with fewer pairs than n_compared: all of them.
    few = quadruplets_from_pairs(pairs[:8], np.array([1, 1, 1, -1, -1, 1, 1, 1]),
                                 n_compared=10, random_state=0)
    assert few.shape[0] == 6 * 2
    # Drawn with the random state.
    np.testing.assert_array_equal(
        quadruplets, quadruplets_from_pairs(pairs, y, n_compared=10, random_state=0))
    assert quadruplets_from_pairs(pairs, np.ones(300), random_state=0).shape == (0, 4)


def test_quadruplet_hinge_is_one_plus_similar_minus_dissimilar_distance():
    rng = np.random.RandomState(3)
    X = rng.randn(8, 3)
    basis = rng.randn(5, 3)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    w = rng.rand(5) * 0.4
    quadruplets = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [1, 6, 3, 0], [7, 2, 5, 4]])
    pairs, rows = pair_index(quadruplets)
    problem = HingeProblem(SquaredDifferences(X @ basis.T, pairs), rows)
    M = basis.T @ np.diag(w) @ basis

    def d(a, b):
        return (X[a] - X[b]) @ M @ (X[a] - X[b])

    by_hand = np.array([1 + d(a, b) - d(c, e) for a, b, c, e in quadruplets])
    assert (by_hand > 0).any() and (by_hand < 0).any()   # both sides of the hinge
    margins = problem.margins(w)
    np.testing.assert_allclose(margins, by_hand, rtol=1e-5)
    np.testing.assert_allclose(problem.loss(margins), np.maximum(by_hand, 0).mean(),
                               rtol=1e-5)
    # A triplet (a, b, c) is the quadruplet (a, b, a, c).
    triplets = np.array([[0, 1, 2], [4, 5, 1], [3, 6, 7]])
    as_triplets = HingeProblem(SquaredDifferences(X @ basis.T, pair_index(triplets)[0]),
                               pair_index(triplets)[1])
    as_quadruplets = pair_index(triplets[:, [0, 1, 0, 2]])
    np.testing.assert_allclose(
        HingeProblem(SquaredDifferences(X @ basis.T, as_quadruplets[0]),
                     as_quadruplets[1]).margins(w),
        as_triplets.margins(w), rtol=1e-6)


def test_exact_phase_reaches_the_optimum_of_a_small_pair_problem():
    # 8 similar and 8 dissimilar pairs: each is compared with all 8 of the
    # other kind, so the quadruplets are every combination, and with the
    # identity as basis the problem is an LP we can solve on our own.
    pairs, y = independent_pairs(5, 40, n_features=4)
    keep = np.concatenate([np.flatnonzero(y == 1)[:8], np.flatnonzero(y == -1)[:8]])
    pairs, y = pairs[keep], y[keep].copy()
    y[[0, 8]] *= -1      # two wrong labels: no metric meets every margin
    beta = 1e-3
    model = SCML(basis=np.eye(4), beta=beta, solver="exact", random_state=0).fit(pairs, y)
    assert model.dual_gap_ <= 1e-6 * model.objective_
    squares = np.square(pairs[:, 0] - pairs[:, 1])          # (16, 4)
    g = (squares[y == 1][:, None, :] - squares[y == -1][None, :, :]).reshape(-1, 4)
    n = g.shape[0]                                          # 64 quadruplets

    def objective(w):
        return np.maximum(1 + g @ w, 0).mean() + beta * w.sum()

    # min (1/n) sum xi + beta sum w,  xi >= 1 + g w,  xi, w >= 0
    lp = linprog(np.concatenate([np.full(4, beta), np.full(n, 1.0 / n)]),
                 A_ub=np.hstack([g, -np.eye(n)]), b_ub=-np.ones(n),
                 bounds=[(0, None)] * (4 + n), method="highs")
    assert lp.status == 0 and lp.fun > 0.1
    assert objective(model.weights_) == pytest.approx(lp.fun, rel=1e-6)
    np.testing.assert_allclose(model.weights_, lp.x[:4], atol=1e-6)
    assert model.objective_ == pytest.approx(lp.fun, rel=1e-6)


# ----------------------------------------- triplets where pairs share points


def shared_point_pairs(seed=0, n_points=60, n_pairs=400):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_points, 3)
    pairs = rng.randint(0, n_points, size=(n_pairs, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    gap = np.abs(X[pairs[:, 0], 0] - X[pairs[:, 1], 0])
    return X, pairs, np.where(gap < np.median(gap), 1, -1)


def constraints_of(pairs, y, preprocessor):
    """The index constraints a fit of SCML(random_state=0) builds from pairs,
    the pairs as indices into the same distinct points, and the
    triplets :func:`triplets_from_pairs` draws from them."""
    estimator = SCML(preprocessor=preprocessor, random_state=0)
    estimator._start_fit()
    constraints, X = validate_triplets(estimator, pairs, y=y)
    points = preprocessor[pairs]
    inverse = distinct_rows(points.reshape(-1, points.shape[-1]))[1]
    index_pairs = inverse.reshape(-1, 2)
    np.testing.assert_array_equal(X[index_pairs], points)
    triplets = triplets_from_pairs(index_pairs, y,
                                   random_state=np.random.RandomState(0))
    return constraints, index_pairs, triplets


def test_pairs_that_share_points_still_give_the_triplets():
    X, pairs, y = shared_point_pairs()
    assert not pairs_without_triplet(pairs, y).any()
    constraints, _, triplets = constraints_of(pairs, y, X)
    np.testing.assert_array_equal(constraints, triplets)


def test_pairs_without_triplet_join_the_triplets_as_quadruplets():
    X, pairs, y = shared_point_pairs()
    # Four pairs of points no other pair touches.
    X = np.vstack([X, np.random.RandomState(1).randn(8, 3)])
    alone = np.arange(60, 68).reshape(4, 2)
    pairs, y = np.vstack([pairs, alone]), np.concatenate([y, [1, -1, 1, -1]])
    without = pairs_without_triplet(pairs, y)
    np.testing.assert_array_equal(np.flatnonzero(without), len(y) - 4 + np.arange(4))
    constraints, index_pairs, triplets = constraints_of(pairs, y, X)
    assert constraints.shape[1] == 4
    np.testing.assert_array_equal(constraints[:len(triplets)], triplets[:, [0, 1, 0, 2]])
    quadruplets = constraints[len(triplets):]
    # Each pair without a triplet is compared with 10 pairs of the other kind.
    codes = set(map(tuple, index_pairs[without]))
    assert all((tuple(q[:2]) in codes) or (tuple(q[2:]) in codes) for q in quadruplets)
    assert quadruplets.shape[0] == 4 * 10


def test_pairs_without_triplet_by_hand():
    pairs = np.array([[0, 1], [0, 2], [3, 4], [5, 6], [5, 5], [7, 8], [7, 8]])
    y = np.array([1, -1, 1, -1, 1, 1, -1])
    # (0, 1) and (0, 2) share 0; the same two points with both labels, or a
    # point paired with itself, form no triplet.
    np.testing.assert_array_equal(pairs_without_triplet(pairs, y),
                                  [False, False, True, True, True, True, True])


# ------------------------------------------------------------------- errors


@pytest.mark.parametrize("y, message", [
    ([1, 0, 1, -1], r"labels \(y\) should contain only values in \[-1, 1\]: \+1 "
                    r"for a similar pair .*got 0.*np.where"),
    ([1, 1, 1, 1], r"y holds only similar pairs \(y=\+1\).*Add dissimilar pairs"),
    ([-1, -1, -1, -1], r"y holds only dissimilar pairs \(y=-1\).*Add similar pairs"),
    ([1, -1, -1, -1], r"y has 1 similar \(\+1\) and 3 dissimilar \(-1\) pairs: SCML "
                      r"needs at least 2 of each kind.*more similar pairs"),
    ([1, -1], r"y has 1 similar \(\+1\) and 1 dissimilar \(-1\) pairs: SCML "
              r"needs at least 2 of each kind.*more similar and dissimilar pairs"),
])
def test_bad_pair_labels_are_refused_with_the_fix(y, message):
    pairs, _ = independent_pairs(0, len(y))
    with pytest.raises(ValueError, match=message):
        SCML().fit(pairs, y)


def test_pairs_without_labels_are_refused():
    pairs, _ = independent_pairs(0, 4)
    with pytest.raises(ValueError, match=r"got pairs .* without their labels"):
        SCML().fit(pairs)


# ----------------------------------------------------------------- dispatch


def test_a_model_fitted_on_triplets_classifies_pairs_once_calibrated(pair_task):
    train, y_train, test, y_test = pair_task
    rng = np.random.RandomState(0)
    X = rng.randn(100, 6)
    triplets = ordered_triplets(X, 500, rng)
    model = SCML(random_state=0).fit(X[triplets])
    assert "threshold_" not in vars(model)
    np.testing.assert_allclose(model.decision_function(test), -model.pair_distance(test))
    with pytest.raises(AttributeError, match=r"fitted on triplets. Call "
                                             r"calibrate_threshold\(pairs, y\)"):
        model.predict(test)
    # (the AUC needs no threshold)
    assert model.score(test, y_test) > 0.9
    model.calibrate_threshold(train, y_train)
    assert accuracy_score(y_test, model.predict(test)) > 0.85
    # Triplets stay triplets.
    assert set(np.unique(model.predict(X[triplets]))) <= {-1, 1}
    assert model.score(X[triplets]) > 0.9
    model.set_threshold(0.0)
    assert (model.predict(test) == -1).all()
    # A refit on triplets forgets the threshold.
    assert "threshold_" not in vars(model.fit(X[triplets]))


def test_a_model_fitted_on_pairs_takes_pairs_and_triplets(pair_task, pair_model):
    train, y_train, test, y_test = pair_task
    model = pair_model
    np.testing.assert_allclose(model.decision_function(test), -model.pair_distance(test))
    triplets = np.stack([test[:50, 0], test[:50, 1], test[50:100, 1]], axis=1)
    d_ab = model.pair_distance(triplets[:, [0, 1]])
    d_ac = model.pair_distance(triplets[:, [0, 2]])
    np.testing.assert_allclose(model.decision_function(triplets), d_ac - d_ab)
    np.testing.assert_array_equal(model.predict(triplets), np.where(d_ac > d_ab, 1, -1))
    assert model.score(triplets) == np.mean(d_ac > d_ab)
    with pytest.raises(ValueError, match=r"score\(pairs, y\) needs the labels"):
        model.score(test)
    with pytest.raises(ValueError, match=r"calibrate_threshold\(pairs, y\) needs"):
        clone(model).fit(train, y_train).calibrate_threshold(test, None)
    with pytest.raises(ValueError, match=r"labels \(y\) should contain only"):
        model.score(test, np.zeros(len(test)))
    # metric-learn's other strategies (its own code) apply as for ITML.
    calibrated = pickle.loads(pickle.dumps(model)).calibrate_threshold(
        test, y_test, strategy="max_tpr", min_rate=0.9)
    negative = calibrated.predict(test)[y_test == -1]
    assert np.mean(negative == -1) >= 0.9
    with pytest.raises(ValueError, match="Strategy can either be"):
        calibrated.calibrate_threshold(test, y_test, strategy="nope")


def test_pair_learner_in_cross_validation(pair_task):
    train, y_train, _, _ = pair_task
    scores = cross_val_score(SCML(random_state=0), train, y_train, cv=3)
    assert scores.min() > 0.85


def test_partial_fit_on_pairs(pair_task):
    train, y_train, test, y_test = pair_task
    model = SCML(random_state=0)
    for batch in np.array_split(np.arange(len(train)), 3):
        model.partial_fit(train[batch], y_train[batch])
    assert accuracy_score(y_test, model.predict(test)) > 0.85
    before = model.get_mahalanobis_matrix(), model.threshold_
    similar = y_train == 1
    # (In the words of pairs, not of labels and tasks.)
    with pytest.warns(UserWarning, match=r"gives no triplet \(pairs give "
                      r"triplets where the batch holds similar \(y=\+1\) "
                      r"and dissimilar"):
        model.partial_fit(train[similar][:50], y_train[similar][:50])
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(), before[0])
    assert model.threshold_ == before[1]


def test_partial_fit_on_triplets_drops_the_threshold_of_the_pairs(pair_task):
    # The threshold was left where the pairs had put it while triplets moved
    # the metric; predict(pairs) now asks for a calibration, as after fit.
    train, y_train, test, y_test = pair_task
    model = SCML(random_state=0).fit(train, y_train)
    points = 0.3 * np.random.RandomState(0).randn(300, 6)
    triplets = points[ordered_triplets(points, 3000, np.random.RandomState(1))]
    model.partial_fit(triplets)
    assert not hasattr(model, "threshold_")
    with pytest.raises(AttributeError, match="calibrate_threshold"):
        model.predict(test)
    model.calibrate_threshold(train, y_train)
    assert accuracy_score(y_test, model.predict(test)) > 0.85


def test_local_scml_keeps_to_triplets():
    from metric_learn_scml import LocalSCML
    pairs, y = independent_pairs(0, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="form no triplet.*use SCML"):
            LocalSCML().fit(pairs, y)


def test_pairs_and_labels_of_other_lengths_say_so_first():
    # (Twenty +1 labels for 200 pairs were blamed for holding one kind.)
    pairs = np.random.RandomState(0).randn(200, 2, 4)
    for y in (np.ones(20), np.tile([1, -1], 10)):
        with pytest.raises(ValueError, match="inconsistent numbers of "
                           "samples: 200 pairs and 20 labels"):
            SCML(random_state=0).fit(pairs, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_classes_are_the_labels_predict_gives_so_threshold_wrappers_agree(
        pair_task, pair_model):
    # (metric-learn's mixins said classes_ = [0, 1]: scikit-learn's
    # FixedThresholdClassifier, which sees a classifier here, then predicted
    # 0 for -1, 28 % accuracy where the model's own predict had 93 %.)
    from sklearn.model_selection import FixedThresholdClassifier
    from metric_learn_scml import LocalSCML, MultiTaskSCML
    train, y_train, test, _ = pair_task
    np.testing.assert_array_equal(pair_model.classes_, [-1, 1])
    wrapped = FixedThresholdClassifier(
        SCML(random_state=0), threshold=-pair_model.threshold_,
        response_method="decision_function").fit(train, y_train)
    np.testing.assert_array_equal(wrapped.predict(test),
                                  pair_model.predict(test))
    X = np.random.RandomState(0).randn(40, 3)
    triplets = X[ordered_triplets(X, 200, np.random.RandomState(0))]
    for model in (SCML(random_state=0, max_iter=500),
                  LocalSCML(random_state=0, max_iter=500)):
        model.fit(triplets)
        assert set(model.predict(triplets)) <= set(model.classes_) == {-1, 1}
    tasks = np.arange(len(triplets)) % 2
    multitask = MultiTaskSCML(random_state=0, max_iter=500).fit(triplets, tasks)
    assert set(multitask.predict(triplets, tasks)) <= set(
        multitask.classes_) == {-1, 1}
