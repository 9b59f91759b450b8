import sys
import pickle
import warnings

import numpy as np
import pytest
from conftest import ordered_triplets, threshold_accuracy
from sklearn.base import clone, is_classifier
from sklearn.datasets import (load_breast_cancer, load_digits, load_iris,
                              load_wine, make_blobs, make_classification)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler, normalize
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from metric_learn_scml import (LocalSCML, LocalSCML_Supervised, MultiTaskSCML,
                               MultiTaskSCML_Supervised, SCML, SCML_Supervised,
                               SCML_SupervisedCV, knn_scorer, scml_path)
from metric_learn_scml._defaults import BETA_RATIO_HIGH
from metric_learn_scml._triplets import triplets_from_labels

# Short solver schedules keep these tests fast; whether a fit converges is
# asserted where it matters (pytest.warns, or warnings turned into errors).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


@parametrize_with_checks([SCML_Supervised(random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def wine_triplets(wine_split):
    X_train, X_test, y_train, y_test = wine_split
    return (X_train[triplets_from_labels(X_train, y_train)],
            X_test[triplets_from_labels(X_test, y_test)])


def knn_error(X_train, y_train, X_test, y_test):
    knn = KNeighborsClassifier(n_neighbors=3).fit(X_train, y_train)
    return 1 - knn.score(X_test, y_test)


@pytest.mark.parametrize("loader", [load_wine, load_digits])
def test_supervised_beats_euclidean_3nn(loader):
    X, y = loader(return_X_y=True)
    errors = {"euclidean": [], "scml": []}
    for seed in range(3):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y)
        # the paper's preprocessing: z-score, then rows of unit norm
        scaler = StandardScaler().fit(X_train)
        X_train = normalize(scaler.transform(X_train))
        X_test = normalize(scaler.transform(X_test))
        scml = SCML_Supervised(random_state=seed).fit(X_train, y_train)
        errors["euclidean"].append(knn_error(X_train, y_train, X_test, y_test))
        errors["scml"].append(knn_error(scml.transform(X_train), y_train,
                                        scml.transform(X_test), y_test))
    assert np.mean(errors["scml"]) < np.mean(errors["euclidean"])


def test_default_fit_is_silent_and_sparse(wine_split):
    X_train, _, y_train, _ = wine_split
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = SCML_Supervised(random_state=0).fit(X_train, y_train)
    # beta='auto' chose beta_ on held-out points along the path
    assert auto.beta_ in auto.beta_path_
    assert auto.validation_error_path_.shape == auto.beta_path_.shape
    assert np.all(np.diff(auto.beta_path_) < 0)
    if auto.euclidean_fallback_:
        # (on 22 held-out points the Euclidean metric can win the check)
        np.testing.assert_array_equal(auto.basis_, np.eye(X_train.shape[1]))
        assert np.all(auto.weights_ == 1.0)
    # the model at that beta, which the auto fit is when it keeps it
    scml = (auto if not auto.euclidean_fallback_ else SCML_Supervised(
        beta=auto.beta_, random_state=0).fit(X_train, y_train))
    K = scml.basis_.shape[0]
    assert scml.weights_.shape == (K,)
    assert np.all(scml.weights_ >= 0)
    assert 0 < scml.n_active_basis_ < K
    assert scml.n_active_basis_ == np.count_nonzero(scml.weights_)
    assert scml.n_iter_ > 0
    np.testing.assert_allclose(np.linalg.norm(scml.basis_, axis=1), 1)
    history = scml.objective_history_
    assert history[0, 1] == 1.0 and scml.objective_ == history[:, 1].min()
    # the default is the sparse optimum at that beta, certified by its
    # duality gap, and no RDA iterate at the same beta does better
    assert scml.dual_gap_ <= 1e-6 * scml.objective_
    rda = SCML_Supervised(beta=scml.beta_, solver="rda",
                          random_state=0).fit(X_train, y_train)
    assert scml.objective_ <= rda.objective_ + 1e-9
    assert scml.n_active_basis_ < rda.n_active_basis_


def test_metric_is_the_weighted_basis_and_psd(wine_split):
    X_train, _, y_train, _ = wine_split
    scml = SCML_Supervised(random_state=0).fit(X_train, y_train)
    M = scml.get_mahalanobis_matrix()
    expected = (scml.basis_.T * scml.weights_) @ scml.basis_
    np.testing.assert_allclose(M, expected, atol=1e-10)
    np.testing.assert_allclose(M, M.T)
    assert np.linalg.eigvalsh(M).min() > -1e-10


def test_low_rank_components_when_few_elements_are_active():
    X, y = make_blobs(n_samples=120, n_features=10, centers=3,
                      random_state=0)
    scml = SCML_Supervised(basis=np.eye(10)[:3], random_state=0).fit(X, y)
    assert 0 < scml.n_active_basis_ <= 3
    assert scml.components_.shape == (scml.n_active_basis_, 10)
    assert scml.transform(X).shape == (120, scml.n_active_basis_)
    np.testing.assert_allclose(scml.get_mahalanobis_matrix(),
                               np.diag(np.r_[scml.weights_, np.zeros(7)]),
                               atol=1e-12)


def test_sparsity_grows_with_beta(wine_split):
    # At the optimum, theory orders the penalty and the loss (not the count
    # of elements): ||w||_1 does not grow with beta, the loss does not fall.
    X_train, _, y_train, _ = wine_split
    models = [SCML_Supervised(beta=beta, random_state=0).fit(X_train, y_train)
              for beta in [1e-5, 1e-2, 1e-1, 1.0]]
    norms = [m.weights_.sum() for m in models]
    losses = [m.objective_ - m.beta_ * m.weights_.sum() for m in models]
    assert all(a >= b * (1 - 1e-6) for a, b in zip(norms, norms[1:]))
    assert all(a <= b + 1e-9 for a, b in zip(losses, losses[1:]))
    assert models[0].n_active_basis_ > models[-1].n_active_basis_


def test_triplet_learner_follows_metric_learn_conventions(wine_triplets):
    train, test = wine_triplets
    scml = SCML(random_state=0).fit(train)
    predictions = scml.predict(test)
    assert set(np.unique(predictions)) <= {-1, 1}
    scores = scml.decision_function(test)
    np.testing.assert_array_equal(np.where(scores >= 0, 1, -1), predictions)
    assert scml.score(test) > 0.95
    # decision_function is d(a, c) - d(a, b) under the learned metric
    d_ab = scml.pair_distance(test[:, [0, 1]])
    d_ac = scml.pair_distance(test[:, [0, 2]])
    np.testing.assert_allclose(scores, d_ac - d_ab, rtol=1e-9,
                               atol=1e-9 * np.abs(d_ac).max())
    np.testing.assert_allclose(scml.pair_score(test[:, :2]), -d_ab)
    metric = scml.get_metric()
    assert metric(test[0, 0], test[0, 1]) == pytest.approx(d_ab[0])
    M = scml.get_mahalanobis_matrix()
    diff = test[0, 0] - test[0, 1]
    assert np.sqrt(diff @ M @ diff) == pytest.approx(d_ab[0])


def test_triplet_learner_is_a_classifier(wine_triplets):
    train, _ = wine_triplets
    assert is_classifier(SCML())
    scores = cross_val_score(SCML(random_state=0, max_iter=500), train[:600],
                             cv=3)
    assert np.all(scores > 0.8)


def test_indices_with_preprocessor_match_points(wine_split):
    X_train, _, y_train, _ = wine_split
    indices = triplets_from_labels(X_train, y_train)
    on_points = SCML(random_state=0).fit(X_train[indices])
    on_indices = SCML(preprocessor=X_train, random_state=0).fit(indices)
    np.testing.assert_allclose(on_points.components_, on_indices.components_)
    np.testing.assert_allclose(on_indices.predict(indices),
                               on_points.predict(X_train[indices]))
    supervised = SCML_Supervised(preprocessor=X_train, random_state=0).fit(
        np.arange(len(X_train)), y_train)
    reference = SCML_Supervised(random_state=0).fit(X_train, y_train)
    np.testing.assert_allclose(supervised.components_, reference.components_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_negative_indices_with_a_preprocessor_raise(wine_split):
    # numpy took -1 as the last point, silently.
    X_train, _, y_train, _ = wine_split
    last = len(X_train) - 1
    triplets = triplets_from_labels(X_train, y_train)[:300]
    triplets[5, 2] = -1
    fast = dict(preprocessor=X_train, max_iter=20, output_iter=10,
                random_state=0)
    with pytest.raises(ValueError, match=r"Index -1 in the input: with an "
                       r"array preprocessor, indices .* 0\.\.%d" % last):
        SCML(**fast).fit(triplets)
    indices = np.arange(len(X_train))
    with pytest.raises(ValueError, match=r"Index -1 in the input"):
        SCML_Supervised(**fast).fit(-indices, y_train)
    model = SCML_Supervised(**fast).fit(indices, y_train)
    with pytest.raises(ValueError, match=r"Index -1 in the input"):
        model.transform([0, -1])
    # Points, even with negative coordinates, are not indices.
    np.testing.assert_allclose(model.transform(-X_train[:2]),
                               -model.transform([0, 1]))
    # Past the last row, or not integers: metric-learn's PreprocessorError
    # around numpy's IndexError, not a ValueError.
    with pytest.raises(ValueError, match=r"Index %d in the input" % (last + 1)):
        model.transform([0, last + 1])
    # ... and still the error metric-learn's users catch, unwrapped.
    from metric_learn.exceptions import PreprocessorError
    with pytest.raises(PreprocessorError, match=r"^Index %d in the input"
                       % (last + 1)):
        model.transform([0, last + 1])
    with pytest.raises(ValueError, match="must be integers, got dtype float"):
        SCML_Supervised(**fast).fit(indices.astype(float), y_train)


def test_a_callable_preprocessor_must_give_one_point_per_index(wine_split):
    # Fewer rows than indices fitted silently on misaligned labels; more
    # gave an IndexError from the pipeline.
    X_train, _, y_train, _ = wine_split
    indices = np.arange(len(X_train))
    for rows in (slice(0, 100), np.r_[indices, indices]):
        model = SCML_Supervised(preprocessor=lambda i: X_train[i][rows],
                                max_iter=20, random_state=0)
        with pytest.raises(ValueError, match=r"preprocessor returned an "
                           r"array of shape \(\d+, 13\) for %d indices"
                           % len(indices)):
            model.fit(indices, y_train)
    model = SCML_Supervised(preprocessor=lambda i: X_train[i], max_iter=20,
                            random_state=0).fit(indices, y_train)
    np.testing.assert_array_equal(model.transform([3, 4]),
                                  model.transform(X_train[3:5]))


def test_a_callable_preprocessor_must_give_two_dimensional_points(iris):
    # One value per index gave an IndexError inside metric-learn for
    # triplets, and scikit-learn's "Expected 2D array" for points.
    X, y = iris
    triplets = triplets_from_labels(X, y, 2, 3)
    for rows in (lambda i: X[i, 0], lambda i: X[np.asarray(i)][:, None]):
        with pytest.raises(ValueError, match=r"preprocessor returned an "
                           r"array of shape .* it must return a 2-D array"):
            SCML(preprocessor=rows, random_state=0).fit(triplets)
        with pytest.raises(ValueError, match=r"must return a 2-D array"):
            SCML_Supervised(preprocessor=rows).fit(np.arange(len(X)), y)


def test_indices_of_one_rank_too_many_are_not_points(iris):
    # With an array preprocessor, a column of indices (or triplets[:, :,
    # None]) was learned on as points of one feature: the index values.
    X, y = iris
    triplets = triplets_from_labels(X, y, 2, 3)
    with pytest.raises(ValueError, match=r"array preprocessor of 4 features, "
                       r"a 3-D input .* 1 feature\(s\) here, not 4"):
        SCML(preprocessor=X, random_state=0).fit(triplets[:, :, None])
    with pytest.raises(ValueError, match=r"a 2-D input is taken for rows "
                       r".* as a 1-D array"):
        SCML_Supervised(preprocessor=X).fit(np.arange(len(X))[:, None], y)
    model = SCML(preprocessor=X, random_state=0).fit(triplets)
    with pytest.raises(ValueError, match=r"a 2-D input is taken for rows"):
        model.transform(np.arange(5)[:, None])
    # Points of the preprocessor's width are still points (metric-learn's
    # convention), and the indices as they should be, indices.
    np.testing.assert_allclose(model.transform(X[:5]),
                               model.transform(np.arange(5)))


def test_user_basis_array(wine_split):
    X_train, _, y_train, _ = wine_split
    basis = np.eye(X_train.shape[1]) * 3.0
    scml = SCML_Supervised(basis=basis, random_state=0).fit(X_train, y_train)
    np.testing.assert_allclose(scml.basis_, np.eye(X_train.shape[1]))
    M = scml.get_mahalanobis_matrix()
    np.testing.assert_allclose(M, np.diag(scml.weights_), atol=1e-12)
    assert basis[0, 0] == 3.0
    with pytest.raises(ValueError, match="basis has 2 columns"):
        SCML_Supervised(basis=np.ones((4, 2))).fit(X_train, y_train)
    with pytest.raises(ValueError, match="all-zero rows"):
        SCML_Supervised(basis=np.zeros((2, X_train.shape[1]))).fit(
            X_train, y_train)
    with pytest.raises(ValueError, match="basis='lda'"):
        SCML(basis="lda").fit(X_train[triplets_from_labels(X_train, y_train)])


def test_clone_pickle_and_pipeline(wine_split):
    X_train, X_test, y_train, y_test = wine_split
    scml = SCML_Supervised(beta=1e-4, random_state=0).fit(X_train, y_train)
    restored = pickle.loads(pickle.dumps(scml))
    np.testing.assert_array_equal(restored.transform(X_test),
                                  scml.transform(X_test))
    fresh = clone(scml)
    assert fresh.get_params() == scml.get_params()
    assert not hasattr(fresh, "components_")
    pipe = make_pipeline(SCML_Supervised(random_state=0),
                         KNeighborsClassifier(n_neighbors=3))
    assert pipe.fit(X_train, y_train).score(X_test, y_test) > 0.9


@pytest.mark.filterwarnings("ignore:All basis weights are zero")
def test_grid_search_over_beta(wine_split):
    # beta=10 keeps no element (every distance 0, so 3-NN votes by ties):
    # the search must see it score worse and pick 1e-5.
    X_train, _, y_train, _ = wine_split
    pipe = make_pipeline(SCML_Supervised(random_state=0, max_iter=2000),
                         KNeighborsClassifier(n_neighbors=3))
    search = GridSearchCV(pipe, {"scml_supervised__beta": [10.0, 1e-5]},
                          cv=2).fit(X_train, y_train)
    assert search.best_params_["scml_supervised__beta"] == 1e-5
    scores = search.cv_results_["mean_test_score"]
    assert scores[1] > scores[0] + 0.2


def test_float32_string_labels_and_input_untouched(wine_split):
    X_train, X_test, y_train, _ = wine_split
    X32 = X_train.astype(np.float32)
    labels = np.array(["class_%d" % v for v in y_train], dtype=object)
    X_copy, labels_copy = X32.copy(), labels.copy()
    scml = SCML_Supervised(random_state=0).fit(X32, labels)
    np.testing.assert_array_equal(X32, X_copy)
    np.testing.assert_array_equal(labels, labels_copy)
    reference = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert scml.transform(X_test).shape == reference.transform(X_test).shape
    triplets = X_train[triplets_from_labels(X_train, y_train)]
    triplets_copy = triplets.copy()
    SCML(random_state=0, max_iter=300).fit(triplets)
    np.testing.assert_array_equal(triplets, triplets_copy)


def test_same_seed_same_result(wine_split):
    X_train, _, y_train, _ = wine_split
    a = SCML_Supervised(random_state=3).fit(X_train, y_train)
    b = SCML_Supervised(random_state=3).fit(X_train, y_train)
    np.testing.assert_array_equal(a.weights_, b.weights_)


def test_a_random_state_instance_gives_the_fit_of_its_stream(wine_split):
    # scikit-learn's idiom: a RandomState instance, whose one stream seeds
    # the choice of beta and then serves the fit.
    X_train, _, y_train, _ = wine_split
    a = SCML_Supervised(random_state=np.random.RandomState(3)).fit(
        X_train, y_train)
    b = SCML_Supervised(random_state=np.random.RandomState(3)).fit(
        X_train, y_train)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.basis_, b.basis_)
    assert a.beta_ == b.beta_ and len(a.beta_path_) > 1
    assert a.n_active_basis_ > 0


def test_verbose_prints_a_progress_table(wine_split, capsys):
    X_train, _, y_train, _ = wine_split
    SCML_Supervised(beta=1e-3, verbose=True, random_state=0,
                    max_iter=500).fit(X_train, y_train)
    out = capsys.readouterr().out
    assert "Iteration" in out and "Objective" in out and "Active" in out
    assert out.count("\n") > 3


@pytest.mark.parametrize("params, error, match", [
    ({"beta": -1.0}, ValueError, "beta must be >= 0"),
    ({"beta": "big"}, TypeError,
     "beta='big' is not supported: use 'auto' or a real number"),
    ({"n_basis": 0}, ValueError, "n_basis must be >= 1"),
    ({"n_basis": 10.5}, TypeError, "n_basis must be an integer"),
    ({"n_basis": -3}, ValueError, "n_basis must be >= 1"),
    ({"gamma": 0.0}, ValueError, "gamma must be >= 1e-05"),
    ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
    ({"batch_size": True}, TypeError, "batch_size must be an integer"),
    ({"k_genuine": 0}, ValueError, "k_genuine must be >= 1"),
    ({"k_impostor": 2.0}, TypeError, "k_impostor must be an integer"),
    ({"tol": np.nan}, ValueError, "tol must be finite"),
    ({"basis": "pca"}, ValueError, "basis='pca' is not supported"),
    ({"basis": 1.5}, ValueError, r"basis must be .* got a scalar"),
    ({"basis": np.ones((2, 2, 13))}, ValueError,
     r"basis must be .* shape \(2, 2, 13\)"),
    ({"basis": np.ones((0, 13))}, ValueError,
     r"basis must be .* non-empty array"),
    ({"verbose": "yes"}, TypeError, "verbose must be a bool or an integer"),
    ({"verbose": -1}, ValueError, "verbose must be >= 0"),
])
def test_bad_parameters_raise_clear_errors(wine_split, params, error, match):
    X_train, _, y_train, _ = wine_split
    with pytest.raises(error, match=match):
        SCML_Supervised(**params).fit(X_train, y_train)


def test_neighbour_counts_no_point_can_have_warn_and_name_the_fix(iris):
    # metric-learn warns where a class cannot give k_genuine targets; here
    # a value larger than every point has warns (a smaller one is the same).
    X, y = iris
    X, y = X[:60], y[:60]   # classes of 50 and 10 points
    for params, match in (({"k_genuine": 100}, "k_genuine=100 .* more than "
                           "49 other points of its own class.*k_genuine=49"),
                          ({"k_impostor": 1000}, "k_impostor=1000 .* more "
                           "than 50 points of other classes.*k_impostor=50")):
        with pytest.warns(UserWarning, match=match):
            model = SCML_Supervised(beta=1e-3, random_state=0,
                                    **params).fit(X, y)
        same = SCML_Supervised(beta=1e-3, random_state=0, **{
            name: int(match.rsplit("=", 1)[1]) for name in params}).fit(X, y)
        np.testing.assert_array_equal(model.components_, same.components_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SCML_Supervised(beta=1e-3, k_genuine=49, k_impostor=50,
                        random_state=0).fit(X, y)


def test_bad_data_raise_clear_errors(wine_split, wine_triplets):
    X_train, _, y_train, _ = wine_split
    train, _ = wine_triplets
    X_nan = X_train.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SCML_Supervised().fit(X_nan, y_train)
    X_inf = X_train.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        SCML_Supervised().fit(X_inf, y_train)
    with pytest.raises(ValueError, match="single class"):
        SCML_Supervised().fit(X_train, np.zeros(len(X_train)))
    with pytest.raises(ValueError, match="0 sample"):
        SCML_Supervised().fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError):
        SCML_Supervised().fit(X_train, y_train[:-1])
    train_nan = train.copy()
    train_nan[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="Input triplets contains NaN"):
        SCML().fit(train_nan)
    with pytest.raises(ValueError, match="Input pairs contains NaN"):
        SCML().fit(train_nan[:, :2], np.tile([1, -1], len(train))[:len(train)])
    with pytest.raises(ValueError, match="3 element"):
        SCML().fit(train[:, :2])
    with pytest.raises(ValueError, match="0 sample"):
        SCML().fit(np.empty((0, 3, 4)))
    with pytest.raises(NotFittedError):
        SCML().transform(X_train)
    with pytest.raises(NotFittedError):
        SCML_Supervised().get_mahalanobis_matrix()
    scml = SCML_Supervised(random_state=0, max_iter=300).fit(X_train, y_train)
    with pytest.raises(ValueError, match="expecting 13 features"):
        scml.transform(X_train[:, :5])


def test_the_metric_function_refuses_points_beyond_range(wine_split):
    # (It returned inf with an overflow warning, where pair_distance and
    # transform refuse such points.)
    X_train, _, y_train, _ = wine_split
    metric = SCML_Supervised(beta=1e-3, random_state=0).fit(
        X_train, y_train).get_metric()
    with pytest.raises(ValueError, match="beyond 1e\\+100"):
        metric(X_train[0] * 1e200, X_train[1])


def test_float32_points_after_fit(wine_split):
    # (Their largest magnitude, a float32, overflowed when compared with
    # the float64 limit of 1e100: a RuntimeWarning on every call.)
    X_train, X_test, y_train, _ = wine_split
    scml = SCML_Supervised(beta=1e-3, random_state=0).fit(X_train, y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        embedded = scml.transform(X_test.astype(np.float32))
    # float32 rounds each feature by a relative 6e-8.
    reference = scml.transform(X_test)
    np.testing.assert_allclose(embedded, reference,
                               atol=1e-6 * np.abs(reference).max())


@pytest.mark.parametrize("make_fit", [
    lambda X, y: SCML_Supervised().fit(np.ones_like(X), y),
    lambda X, y: SCML().fit(np.stack([X, X, X], axis=1)),
    lambda X, y: MultiTaskSCML_Supervised().fit(
        np.ones_like(X), y, np.arange(len(y)) % 2),
    lambda X, y: LocalSCML_Supervised().fit(np.ones_like(X), y),
    # One real row repeated: no rounding noise may pass for a direction.
    lambda X, y: SCML_Supervised().fit(np.repeat(X[:1], len(y), axis=0), y),
    # Every point given both labels: no feature is constant, but no
    # direction separates the classes (the path drivers raised numpy's
    # "zero-size array" from inside their grid).
    lambda X, y: SCML_SupervisedCV().fit(np.repeat(X[:30], 2, axis=0),
                                         np.tile([0, 1], 30)),
    lambda X, y: scml_path(np.repeat(X[:30], 2, axis=0), np.tile([0, 1], 30)),
], ids=["supervised", "triplets", "multitask", "local", "repeated-row",
        "cv-both-labels", "path-both-labels"])
def test_data_without_any_separating_direction_raises(wine_split, make_fit):
    # Constant features (or triplets whose three points coincide) leave the
    # basis empty: a clear error, not numpy warnings and a zero metric.
    X_train, _, y_train, _ = wine_split
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="no basis element.*constant"):
            make_fit(X_train, y_train)


@pytest.mark.parametrize("per_class", [3, 4])
def test_auto_beta_on_classes_smaller_than_the_folds(per_class):
    # The default beta='auto' scores stratified folds; with every class
    # smaller than the five folds, StratifiedKFold raised from inside
    # scikit-learn. The folds shrink to the largest class instead.
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rows = np.concatenate([np.arange(start, start + per_class)
                           for start in (0, 50, 100)])
    model = SCML_Supervised(random_state=0).fit(X[rows], y[rows])
    assert np.isfinite(model.beta_)
    assert np.linalg.eigvalsh(model.get_mahalanobis_matrix()).min() >= -1e-10
    # one small task among large ones is the realistic case
    tasks = np.r_[np.zeros(100), np.ones(2 * per_class)]
    small = np.r_[np.arange(per_class), 50 + np.arange(per_class)]
    MultiTaskSCML_Supervised(random_state=0).fit(
        np.r_[X[:100], X[small]], np.r_[y[:100], y[small]], tasks)


def test_features_too_large_to_square_raise_with_the_fix(wine_split, wine_triplets):
    # Squared distances of features near 1e150 overflow (1e200 gave a
    # LinAlgError from inside numpy); 1e14 still fits with the same metric.
    X_train, _, y_train, _ = wine_split
    train, _ = wine_triplets
    for fit in (lambda s: SCML_Supervised().fit(X_train * s, y_train),
                lambda s: SCML().fit(train * s),
                lambda s: MultiTaskSCML_Supervised().fit(
                    X_train * s, y_train, np.arange(len(y_train)) % 2)):
        with pytest.raises(ValueError, match="StandardScaler"):
            fit(1e150)
    scaled = SCML_Supervised(beta=1e-5 * 1e28, random_state=0).fit(
        X_train * 1e14, y_train)
    reference = SCML_Supervised(beta=1e-5, random_state=0).fit(X_train,
                                                                y_train)
    assert scaled.n_active_basis_ == reference.n_active_basis_
    np.testing.assert_allclose(scaled.transform(X_train * 1e14),
                               reference.transform(X_train), rtol=1e-5,
                               atol=1e-6)


def test_supervised_learners_require_y(wine_split):
    # fit(X, None) failed with "too many values to unpack", and the target
    # tag did not say y is required (so scikit-learn never checked it).
    X_train, _, y_train, _ = wine_split
    tasks = np.arange(len(y_train)) % 2
    fits = [(SCML_Supervised(), lambda model: model.fit(X_train, None)),
            (SCML_Supervised(preprocessor=X_train),
             lambda model: model.fit(np.arange(len(y_train)), None)),
            (LocalSCML_Supervised(), lambda model: model.fit(X_train, None)),
            # (Without y, Python's message named a private base class.)
            (SCML_Supervised(), lambda model: model.fit(X_train)),
            (LocalSCML_Supervised(), lambda model: model.fit(X_train)),
            (SCML_Supervised(), lambda model: model.partial_fit(X_train)),
            (MultiTaskSCML_Supervised(),
             lambda model: model.fit(X_train, None, tasks))]
    for model, fit in fits:
        assert model.__sklearn_tags__().target_tags.required
        with pytest.raises(ValueError, match="This %s estimator requires y to "
                           "be passed, but the target y is None" %
                           type(model).__name__):
            fit(model)


def test_points_that_are_not_2d_get_metric_learns_message(wine_split):
    # metric-learn's wording, which its API tests check, not scikit-learn's
    # "Expected 2D array".
    X_train, _, y_train, _ = wine_split
    scml = SCML_Supervised(max_iter=20, output_iter=10, random_state=0)
    with pytest.raises(ValueError, match=r"^2D array of formed points expected"
                       r" by SCML_Supervised\. Found 1D array instead:\ninput="):
        scml.fit(X_train[:, 0], y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scml.fit(X_train, y_train)
    for X in (X_train[0], list(X_train[0])):
        with pytest.raises(ValueError, match=r"(?s)^2D array of formed points "
                           r"expected by SCML_Supervised\. Found 1D array "
                           r"instead:\ninput=.*Reshape your data"):
            scml.transform(X)
    with pytest.raises(ValueError, match="Found 3D array instead"):
        scml.transform(X_train[None])


def test_continuous_labels_raise_with_the_fix(wine_split):
    X_train, _, _, _ = wine_split
    with pytest.raises(ValueError, match="continuous.*class labels.*KBinsDiscretizer"):
        SCML_Supervised().fit(X_train, X_train[:, 0])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_same_model_whatever_threads_the_caller_has():
    # On digits (integer pixels: near-tied neighbours) the multi-threaded
    # neighbour search picks 1.5 % other triplets than the single-threaded
    # one. The fit runs single-threaded, so random_state gives the same
    # model on any machine.
    from threadpoolctl import threadpool_limits
    X, y = load_digits(return_X_y=True)
    models = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            models.append(SCML_Supervised(max_iter=300, random_state=0).fit(X, y))
    np.testing.assert_array_equal(models[0].weights_, models[1].weights_)
    np.testing.assert_array_equal(models[0].basis_, models[1].basis_)


def test_too_large_beta_warns_and_gives_the_zero_metric(wine_split):
    X_train, _, y_train, _ = wine_split
    with pytest.warns(UserWarning, match="beta=.* too large"):
        scml = SCML_Supervised(beta=1e3, random_state=0).fit(X_train, y_train)
    assert scml.n_active_basis_ == 0
    assert np.all(scml.transform(X_train) == 0)


@pytest.mark.parametrize("solver", ["auto", "exact", "rda"])
def test_a_beta_that_overflows_in_the_solvers_units_gives_the_zero_metric(
        solver):
    # The solvers run on the data brought to unit scale, with beta times
    # the square of that factor (here about 1e4): beyond the largest float.
    # The fit is still the zero metric with the warning, not an error from
    # the linear program's checks.
    X = np.random.RandomState(0).randn(60, 4) * 0.01
    y = np.repeat([0, 1, 2], 20)
    with pytest.warns(UserWarning, match="All basis weights are zero") as got:
        scml = SCML_Supervised(beta=1e305, solver=solver,
                               random_state=0).fit(X, y)
    assert not [w for w in got if issubclass(w.category, RuntimeWarning)]
    assert scml.beta_ == 1e305
    assert scml.n_active_basis_ == 0
    assert np.all(scml.get_mahalanobis_matrix() == 0)


def test_features_at_a_tiny_scale_warn_with_the_fix(wine_split):
    # The unit hinge margin makes beta scale with the squared distances:
    # wine_split in units 10^4 times too large empties the default model, and
    # the warning says how to fix it.
    X_train, _, y_train, _ = wine_split
    with pytest.warns(UserWarning, match="standardise the features"):
        scml = SCML_Supervised(beta=1e-5, random_state=0).fit(
            X_train * 1e-4, y_train)
    assert scml.n_active_basis_ == 0
    # With beta scaled by the square of the scale it is the same model:
    # the same elements and the same distances (gamma is in units of the
    # triplet vectors, the basis and triplets do not see the scale).
    reference = SCML_Supervised(beta=1e-5, random_state=0).fit(X_train,
                                                                y_train)
    scaled = SCML_Supervised(beta=1e-5 * 1e-8, random_state=0).fit(
        X_train * 1e-4, y_train)
    assert scaled.n_active_basis_ == reference.n_active_basis_ > 0
    pairs = np.stack([X_train[:20], X_train[20:40]], axis=1)
    np.testing.assert_allclose(scaled.pair_distance(pairs * 1e-4),
                               reference.pair_distance(pairs), rtol=1e-6)


@pytest.mark.parametrize("scale", [1e-90, 1e-20, 1e20, 1e90])
def test_extreme_scales_give_the_model_of_the_unscaled_data(wine_split, scale):
    # Wine at 1e-20 underflowed the float32 table of squared differences:
    # about 20,000 numpy RuntimeWarnings, then a false "did not converge"
    # and "beta=0 is too large" (and data beyond 1e15 were refused). The
    # solvers work at unit scale, so it is the model of the unscaled data,
    # in the user's units. Beyond about 1e77 the Ledoit-Wolf shrinkage of the
    # basis overflowed its fourth powers (6.7 % off the unscaled metric).
    X_train, _, y_train, _ = wine_split
    reference = SCML_Supervised(beta=0.0, random_state=0).fit(X_train, y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = SCML_Supervised(beta=0.0, random_state=0).fit(
            X_train * scale, y_train)
    assert scaled.n_active_basis_ == reference.n_active_basis_ > 0
    pairs = np.stack([X_train[:20], X_train[20:40]], axis=1)
    np.testing.assert_allclose(scaled.pair_distance(pairs * scale),
                               reference.pair_distance(pairs), rtol=1e-6)
    np.testing.assert_allclose(scaled.weights_ * scale ** 2,
                               reference.weights_, rtol=1e-4, atol=1e-8)


def test_features_too_tiny_to_square_raise_with_the_fix(wine_split):
    # The metric scales as 1 / scale**2, out of range at 1e-200, where the
    # error said "every feature is constant", which is false.
    X_train, _, y_train, _ = wine_split
    with pytest.raises(ValueError, match="at most 3.*e-200.*underflow.*"
                                         "StandardScaler.*multiply"):
        SCML_Supervised().fit(X_train * 1e-200, y_train)


def _supervised_fit(make):
    def fit(X, y, batch_size):
        return make(batch_size).fit(X, y)
    return fit


def _multitask_fit(X, y, batch_size):
    return MultiTaskSCML_Supervised(
        batch_size=batch_size, max_iter=40, output_iter=10,
        random_state=0).fit(X, y, np.arange(len(y)) % 2)


def _partial_fit(X, y, batch_size):
    model = SCML_Supervised(beta=1e-3, batch_size=batch_size, random_state=0)
    half = len(y) // 2
    return model.partial_fit(X[:half], y[:half]).partial_fit(X[half:],
                                                             y[half:])


FAST = dict(max_iter=40, output_iter=10, random_state=0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("fit", [
    _supervised_fit(lambda b: SCML_Supervised(beta=1e-3, solver="rda",
                                              batch_size=b, **FAST)),
    # beta='auto': the selection's path on its own, fewer, triplets.
    _supervised_fit(lambda b: SCML_Supervised(batch_size=b, **FAST)),
    _supervised_fit(lambda b: LocalSCML_Supervised(
        batch_size=b, embedding_dim=5, **FAST)),
    _multitask_fit,
    _partial_fit,
], ids=["fit", "auto", "local", "multitask", "partial_fit"])
def test_a_batch_beyond_the_triplets_is_the_batch_of_all_of_them(wine_split,
                                                                 fit):
    # Draws are with replacement, so a batch_size beyond the triplets only
    # repeated them (40 to 60 s for 300 iterations on iris): every path
    # that takes solver steps draws as with batch_size=n_triplets.
    X_train, _, y_train, _ = wine_split
    n_triplets = len(triplets_from_labels(X_train, y_train))
    capped, huge = (fit(X_train, y_train, b) for b in (n_triplets, 10 ** 6))
    for name in ("weights_", "coef_", "intercept_", "beta_", "n_iter_"):
        if hasattr(capped, name):
            np.testing.assert_array_equal(getattr(huge, name),
                                          getattr(capped, name))


def test_non_convergence_warns(wine_split):
    from sklearn.exceptions import ConvergenceWarning
    X_train, _, y_train, _ = wine_split
    with pytest.warns(ConvergenceWarning, match="max_iter=20"):
        SCML_Supervised(beta=1e-5, solver="rda", max_iter=20, output_iter=10,
                        tol=0.0, random_state=0).fit(X_train, y_train)
    # The exact phase takes even a poor RDA iterate to the optimum.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        short = SCML_Supervised(beta=1e-5, max_iter=20, output_iter=10,
                                tol=0.0, random_state=0).fit(X_train, y_train)
    full = SCML_Supervised(beta=1e-5, random_state=0).fit(X_train, y_train)
    assert short.objective_ == pytest.approx(full.objective_, rel=1e-6)


def test_auto_beta_refits_as_the_chosen_beta_would(wine):
    # The choice draws from its own stream: the fit after it is the fit of
    # beta=beta_ with the same seed (LassoCV's contract), and the default
    # is that beta's certified optimum.
    X, y = wine
    auto = SCML_Supervised(random_state=0).fit(X, y)
    assert not auto.euclidean_fallback_
    fixed = SCML_Supervised(beta=auto.beta_, random_state=0).fit(X, y)
    np.testing.assert_allclose(auto.weights_, fixed.weights_, rtol=1e-9)
    np.testing.assert_array_equal(auto.basis_, fixed.basis_)
    assert auto.dual_gap_ <= 1e-3 * auto.objective_


def test_auto_beta_follows_the_scale_of_the_data(wine):
    # beta='auto' searches a grid relative to beta_max, which scales with
    # the squared distances: data in other units give the same model.
    X_train, y_train = wine
    reference = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert not reference.euclidean_fallback_
    scaled = SCML_Supervised(random_state=0).fit(X_train * 1e3, y_train)
    assert scaled.beta_ == pytest.approx(reference.beta_ * 1e6, rel=1e-6)
    np.testing.assert_allclose(scaled.validation_error_path_,
                               reference.validation_error_path_)
    assert scaled.n_active_basis_ == reference.n_active_basis_
    np.testing.assert_allclose(
        scaled.get_mahalanobis_matrix(),
        reference.get_mahalanobis_matrix() * 1e-6, rtol=1e-4, atol=1e-12)


def test_auto_beta_is_near_the_least_held_out_error_and_beats_euclidean():
    # Ring-like data (one class spread wide, the other tight and shifted):
    # 3-NN under the Euclidean distance errs on 39 % of new points.
    rng = np.random.RandomState(0)
    n, n_features = 900, 20
    y = rng.randint(0, 2, n)
    X = np.where(y[:, None] == 0, 2 * rng.randn(n, n_features),
                 rng.randn(n, n_features) + 2 / np.sqrt(n_features))
    X_train, X_test, y_train, y_test = X[:300], X[300:], y[:300], y[300:]
    model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    chosen = np.flatnonzero(model.beta_path_ == model.beta_)[0]
    errors = model.validation_error_path_
    # Every one of the 300 points is scored once (5 folds); the chosen
    # error is within a (paired, hence at most the binomial difference's)
    # standard error of the least.
    assert model.fit_stages_[1]["held_out_points"] == 300
    assert errors[chosen] <= errors.min() + np.sqrt(
        2 * errors.min() * (1 - errors.min()) / 300) + 1e-12
    knn = KNeighborsClassifier(3)
    learned = 1 - knn.fit(model.transform(X_train), y_train).score(
        model.transform(X_test), y_test)
    euclidean = 1 - knn.fit(X_train, y_train).score(X_test, y_test)
    assert learned < euclidean - 0.05


@pytest.mark.parametrize("n_samples", [1257, 1270])
def test_auto_beta_caps_its_fit_part_whatever_the_remainder(n_samples):
    # 1,257 points: the fit part (1,005) is just above the cap of 1,000,
    # and a stratified cut of 5 points cannot hold 10 classes (it raised).
    X, y = make_blobs(n_samples=n_samples, centers=10, n_features=3,
                      random_state=0)
    model = SCML_Supervised(n_basis=40, max_iter=500,
                            random_state=0).fit(X, y)
    assert model.beta_ in model.beta_path_



def _selection_settings(n_features, max_iter=500):
    return SCML_Supervised(max_iter=max_iter)._path_settings(n_features)


def test_selection_fits_its_path_on_a_fifth_of_the_points():
    # The best multiple of beta_max grows with the points fitted, so the
    # part grows with the data (a fifth), above its floor.
    from metric_learn_scml import _driver
    X, y = make_blobs(3000, 4, centers=3, cluster_std=3.0, random_state=0)
    heard = []
    _driver.select_beta(X, y, _selection_settings(4), 0, min_fit_points=50,
                        progress=heard.append)
    assert "  the path on 600 points ..." in heard
    heard = []
    _driver.select_beta(X, y, _selection_settings(4), 0, min_fit_points=700,
                        progress=heard.append)
    assert "  the path on 700 points ..." in heard


def test_selection_scores_at_most_max_scored_points():
    # The held-out errors are fractions of the points scored: with the cap
    # at 37, k / 37 (of the 200 a fifth of 1,000 would be, a non-zero error
    # k / 200 is never a multiple of 1 / 37).
    from metric_learn_scml._driver import select_beta
    X, y = make_blobs(1000, 4, centers=3, cluster_std=3.0, random_state=0)
    found = select_beta(X, y, _selection_settings(4), 0, max_scored_points=37)
    assert found.n_scored == 37
    scored = found.errors * 37
    assert scored.max() > 0
    np.testing.assert_allclose(scored, np.round(scored), atol=1e-9)


@pytest.mark.parametrize("n_samples, n_scored", [
    (100, 100), (400, 400), (1000, 600), (3000, 600)])
def test_selection_scores_folds_until_500_points(n_samples, n_scored):
    # Stratified fifths, one after another, until 500 points are scored
    # (each point once): every error is a count of them, and the record
    # says how many were scored.
    from metric_learn_scml._driver import select_beta
    X, y = make_blobs(n_samples, 4, centers=2, cluster_std=4.0,
                      random_state=0)
    found = select_beta(X, y, _selection_settings(4, 300), 0)
    assert found.n_scored == n_scored
    n_held = n_scored
    scored = found.errors * n_held
    np.testing.assert_allclose(scored, np.round(scored), atol=1e-9)
    assert found.reason is None and found.beta > 0


def test_selection_is_a_pure_function_of_data_settings_and_seed():
    from metric_learn_scml._driver import select_beta
    X, y = make_blobs(200, 4, centers=3, cluster_std=3.0, random_state=1)
    X_before, y_before = X.copy(), y.copy()
    first = select_beta(X, y, _selection_settings(4, 300), 5)
    again = select_beta(X, y, _selection_settings(4, 300), 5)
    np.testing.assert_array_equal(first.errors, again.errors)
    np.testing.assert_array_equal(first.mistakes, again.mistakes)
    assert first.beta == again.beta
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)


def test_selection_finds_a_known_beta():
    # One feature separates the classes (4 standard deviations apart) among
    # eight noise features of three times its spread, on the coordinate
    # axes: the right model keeps the first axis alone (the largest betas
    # of the grid); small betas weigh the noise and err as Euclidean does.
    # On 600 points the held-out errors tell them apart. (On 300 they do
    # not, 0.033 against 0.040 to 0.047 on every beta, and the rule keeps
    # a denser model within that noise, as it should.)
    from metric_learn_scml._driver import select_beta
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 1200)
    X = np.column_stack([y * 4.0 + rng.randn(1200), 3 * rng.randn(1200, 8)])
    settings = SCML_Supervised(basis=np.eye(9))._path_settings(9)
    found = select_beta(X[:600], y[:600], settings, 0)
    assert list(found.betas).index(found.beta) <= 1
    model = SCML_Supervised(basis=np.eye(9), beta=found.beta,
                            random_state=0).fit(X[:600], y[:600])
    assert model.weights_[0] > 10 * model.weights_[1:].max()
    assert knn_error(model.transform(X[:600]), y[:600],
                     model.transform(X[600:]), y[600:]) < 0.05
    assert knn_error(X[:600], y[:600], X[600:], y[600:]) > 0.1


def test_euclidean_wins_where_it_errs_less_than_every_beta():
    from metric_learn_scml._driver import euclidean_wins, held_out_mistakes
    X_fit = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    y_fit = np.array([0, 0, 0, 1, 1, 1])
    X_held = np.repeat([[0.05], [5.05]], 50, axis=0)
    y_held = np.repeat([0, 1], 50)
    euclidean = held_out_mistakes(X_fit, y_fit, X_held, y_held).mean()
    assert euclidean == 0.0
    assert held_out_mistakes(X_fit, y_fit, X_held, 1 - y_held).all()
    # any lower error wins, however few the points; a tie keeps the metric
    assert euclidean_wins(0.01, euclidean)
    assert euclidean_wins(0.3, 0.29)
    assert not euclidean_wins(0.0, euclidean)
    assert not euclidean_wins(0.2, 0.25)


@pytest.mark.parametrize("n_features", [2, 30])
def test_held_out_mistakes_are_those_of_scikit_learns_3nn_classifier(
        n_features):
    # The same neighbours where many are tied (points on a coarse grid):
    # the choice of beta moved on 8 % of the small-data group's fits when
    # a search of its own broke such ties otherwise. String labels, votes
    # of 1-1-1 (a tie goes to the smallest label), and fit parts too small
    # for scikit-learn's tree.
    from sklearn.neighbors import KNeighborsClassifier

    from metric_learn_scml._driver import held_out_mistakes
    rng = np.random.RandomState(0)
    X_fit = np.round(rng.randn(3000, n_features))
    X_held = np.round(rng.randn(400, n_features))
    y_fit = np.array(["c", "a", "b"])[rng.randint(0, 3, 3000)]
    y_held = np.array(["c", "a", "b"])[rng.randint(0, 3, 400)]
    for fit in (slice(None), slice(0, 2), slice(0, 7)):
        expected = KNeighborsClassifier(min(3, X_fit[fit].shape[0])).fit(
            X_fit[fit], y_fit[fit]).predict(X_held) != y_held
        found = held_out_mistakes(X_fit[fit], y_fit[fit], X_held, y_held)
        assert found.dtype == bool
        np.testing.assert_array_equal(found, expected)


def test_choice_of_beta_with_fewer_points_a_class_than_a_fifth_holds():
    # 20 isotropic classes of 4 points: a stratified fifth (16 points)
    # cannot hold one of each, and the choice used to be skipped (beta
    # 1e-5, no held-out check against the Euclidean metric, a warning).
    # Folds that hold out a point of each class in turn score every point.
    from sklearn.datasets import make_blobs
    from metric_learn_scml._driver import N_BETAS, select_beta
    X, y = make_blobs(80, 10, centers=20, cluster_std=4.0,
                      center_box=(-10, 10), random_state=34)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        found = select_beta(X, y, _selection_settings(10), 0)
    assert found.reason is None and found.betas.shape[0] == N_BETAS
    assert found.n_scored == 80 and found.mistakes.shape == (N_BETAS, 80)
    # a class of two points cannot both leave two to fit and be held out:
    # the choice rests on the others, as it does without classes of one
    found = select_beta(np.vstack([X, X[:2] + 0.1]), np.r_[y, 99, 99],
                        _selection_settings(10), 0)
    assert found.reason is None and found.n_scored == 80
    # where no two classes have three points, no choice
    found = select_beta(X[:6], np.repeat([0, 1, 2], 2), _selection_settings(10),
                        0)
    assert found.reason is not None and "0 of 3 classes have three" in (
        found.reason)


@pytest.mark.parametrize("cause", ["held-out", "no element"])
def test_auto_beta_falls_back_to_the_euclidean_metric(wine_split,
                                                      pin_auto_beta, cause):
    X_train, X_test, y_train, _ = wine_split
    if cause == "held-out":
        pin_auto_beta(1e-3, euclidean=True)
    else:
        # above beta_max: the optimum keeps no element
        pin_auto_beta(1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no "all weights are zero" warning
        model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert model.euclidean_fallback_
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(), np.eye(13))
    np.testing.assert_allclose(model.transform(X_test), X_test)
    assert model.n_active_basis_ == 13 and model.weights_.shape == (13,)
    # A given beta never falls back: it is the user's model.
    if cause == "no element":
        with pytest.warns(UserWarning, match="All basis weights are zero"):
            fixed = SCML_Supervised(beta=1e6,
                                    random_state=0).fit(X_train, y_train)
        assert not fixed.weights_.any() and not fixed.euclidean_fallback_


def test_auto_beta_keeps_the_euclidean_metric_where_no_triplet_separates():
    # 14 distinct points repeated 2,500 times, labels 15 % noisy: every
    # point's targets and impostors are copies of itself, so all the
    # points' triplets give no basis element, though the choice's part
    # had some; the fit raised "found no basis element".
    rng = np.random.RandomState(0)
    distinct = rng.randint(0, 3, size=(14, 3)) + rng.randn(14, 3)
    which = rng.randint(0, 14, size=2500)
    X, y = distinct[which], which % 2 ^ (rng.rand(2500) < 0.15)
    model = SCML_Supervised(random_state=0).fit(X, y)
    assert model.euclidean_fallback_
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(), np.eye(3))
    with pytest.raises(ValueError, match="found no basis element"):
        SCML_Supervised(beta=1e-5, random_state=0).fit(X, y)


def test_only_learners_that_fall_back_report_the_euclidean_metric(
        wine_split, pin_auto_beta):
    # mt-SCML (one task here) has no Euclidean fallback, and a basis array
    # is always the model asked for: the choice's verdict made them report
    # euclidean_fallback_ (and warn "the Euclidean metric is kept") over a
    # learned metric.
    from metric_learn_scml import MultiTaskSCML_Supervised
    X_train, _, y_train, _ = wine_split
    pin_auto_beta(1e-3, euclidean=True)
    mt = MultiTaskSCML_Supervised(random_state=0).fit(
        X_train, y_train, np.zeros(y_train.shape[0]))
    # (Nor does it have the attribute, which its docstring does not list.)
    assert not hasattr(mt, "euclidean_fallback_") and mt.weights_.any()
    given = SCML_Supervised(basis=np.eye(13), random_state=0).fit(X_train,
                                                                 y_train)
    assert not given.euclidean_fallback_ and given.weights_.any()


def test_choice_of_beta_keeps_classes_of_one_point_out_of_a_stratified_part():
    # A class of two points, one held out, left one point in the fit part,
    # which scikit-learn's stratified split (the fit part's cap) refused.
    from metric_learn_scml._driver import select_beta
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(200, 3), rng.randn(2, 3) + 5,
                   rng.randn(2, 3) - 5])
    y = np.r_[np.zeros(200, int), 1, 1, 2, 2]
    found = select_beta(X, y, _selection_settings(3), 0, min_fit_points=50)
    assert found.reason is None and found.mistakes.shape[1] == 204


def test_auto_beta_keeps_the_learned_metric_where_it_is_better(wine_split):
    # The Euclidean check rests on 22 held-out points here, so one draw of
    # them can prefer the Euclidean metric (3 seeds of 20 did): most keep
    # the learned one, sparse.
    X_train, _, y_train, _ = wine_split
    models = [SCML_Supervised(random_state=seed).fit(X_train, y_train)
              for seed in range(10)]
    kept = [model for model in models if not model.euclidean_fallback_]
    assert len(kept) >= 7
    assert all(model.n_active_basis_ < model.basis_.shape[0] for model in kept)


def test_merges_points_only_where_distinct_points_become_one():
    from metric_learn_scml._driver import merges_points
    lattice = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0],
                        [1.0, 1.0]])                  # 4 distinct points
    assert merges_points(lattice, np.array([[1.0, 0.0]]))      # onto x
    assert not merges_points(lattice, np.array([[1.0, 0.5]]))  # 4 images
    assert not merges_points(lattice, 2.0 * np.eye(2))
    assert merges_points(lattice, np.zeros((1, 2)))
    rng = np.random.RandomState(0)
    assert not merges_points(rng.randn(50, 3), np.array([[1.0, 0.0, 0.0]]))
    # Near-duplicates (rows a rounding error apart) are one point, wherever
    # rounding steps fall: counting distinct rows to 9 digits in the data
    # and in the image took them for merged points (and a fit for the
    # Euclidean metric) on 2 to 4 draws in 5.
    points = np.repeat(rng.randn(60, 10), 5, axis=0)
    corners = np.repeat(np.indices((2, 2, 2)).reshape(3, -1).T, 5, axis=0)
    for noise in (1e-12, 1e-10, 1e-9):
        near = points + noise * rng.randn(*points.shape)
        assert not merges_points(near, rng.randn(4, 10))
        # and distinct points still merge, near-duplicates or not
        assert merges_points(corners + 1e-3 * noise * rng.randn(40, 3),
                             np.array([[1.0, 0.0, 0.0]]))


def _discrete_problem(label_noise, seed):
    # Label from the first of 3 features of 4, 3 and 3 values, flipped at
    # the rate label_noise: 36 distinct points, hundreds of duplicates.
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.randint(0, 4, 1000), rng.randint(0, 3, 1000),
                         rng.randint(0, 3, 1000)]).astype(float)
    y = (X[:, 0] >= 2).astype(int) ^ (rng.rand(1000) < label_noise)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[:700], y[:700], X[700:], y[700:]


def _order_averaged_error(transform, X_train, y_train, X_test, y_test):
    """3-NN test error averaged over 10 orders of the training rows (k-NN
    breaks ties among merged points by their order)."""
    errors = []
    for seed in range(10):
        order = np.random.RandomState(seed).permutation(y_train.shape[0])
        classifier = KNeighborsClassifier(n_neighbors=3).fit(
            transform(X_train)[order], y_train[order])
        errors.append(1.0 - classifier.score(transform(X_test), y_test))
    return np.mean(errors)


def test_auto_beta_falls_back_where_the_metric_merges_distinct_points(
        pin_auto_beta):
    # At this beta the model is of rank 2 on 3 discrete features and
    # maps distinct training points onto one, and errs more than the
    # Euclidean metric whatever the order of the training rows. The model
    # is the Euclidean one.
    from metric_learn_scml._driver import merges_points
    X_train, y_train, X_test, y_test = _discrete_problem(0.25, 0)
    pin_auto_beta(0.03)
    model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert model.euclidean_fallback_
    np.testing.assert_array_equal(model.components_, np.eye(3))
    # The same beta given (the fit after a choice draws what it draws) is
    # the user's model, which never falls back: the metric it replaced.
    merging = SCML_Supervised(beta=0.03, random_state=0).fit(X_train, y_train)
    assert not merging.euclidean_fallback_
    assert np.linalg.matrix_rank(merging.components_) < 3
    assert merges_points(X_train, merging.components_)
    assert (_order_averaged_error(merging.transform, X_train, y_train,
                                  X_test, y_test)
            > _order_averaged_error(lambda X: X, X_train, y_train,
                                    X_test, y_test))


def test_auto_beta_with_a_basis_array_never_calls_its_model_euclidean(
        pin_auto_beta):
    # The fallback needs a generated basis; with an array the flag said
    # True while the learned weights were returned.
    X_train, y_train, _, _ = _discrete_problem(0.1, 0)
    pin_auto_beta(1e-3, euclidean=True)
    basis = np.random.RandomState(0).randn(20, 3)
    model = SCML_Supervised(basis=basis, random_state=0).fit(X_train, y_train)
    assert model.euclidean_fallback_ is False
    assert model.basis_.shape == (20, 3) and model.weights_.any()


def test_auto_beta_keeps_a_metric_that_merges_nothing_on_discrete_data(
        pin_auto_beta):
    from metric_learn_scml._driver import merges_points
    X_train, y_train, _, _ = _discrete_problem(0.1, 0)
    pin_auto_beta(1e-3)
    model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert not model.euclidean_fallback_
    assert model.n_active_basis_ > 0
    assert not merges_points(X_train, model.components_)


def test_best_beta_keeps_the_densest_model_within_the_noise():
    from metric_learn_scml._driver import best_beta
    betas = np.array([1.0, 0.1, 0.01])
    n = 300
    best = np.zeros(n, dtype=bool)
    best[:60] = True                              # 20 % wrong
    # The smallest beta errs on the same points and 3 more: 0.010 worse,
    # against a paired standard error of 0.0058, so beyond the noise ...
    worse = best.copy()
    worse[60:63] = True
    assert best_beta(betas, np.array([best, best, worse])) == 0.1
    # ... but one that errs on one more point, and on two of the best's
    # points but not on a third, is 0.0033 worse, within its 0.0058: the
    # densest such is kept, not the largest beta (as the former rule did).
    other = np.zeros(n, dtype=bool)
    other[1:62] = True                            # 61 wrong, 59 shared
    assert best_beta(betas, np.array([best, best, other])) == 0.01
    # a clearly worse dense model: the best, the densest of the ties
    clear = np.zeros(n, dtype=bool)
    clear[:120] = True
    assert best_beta(betas, np.array([best, best, clear])) == 0.1
    # ties everywhere: the smallest beta
    assert best_beta(betas, np.zeros((3, n), dtype=bool)) == 0.01
    # The one-standard-error rule takes the largest beta within the band,
    # and never one beyond it.
    assert best_beta(betas, np.array([best, best, other]), True) == 1.0
    assert best_beta(betas, np.array([other, best, best]), True) == 1.0
    assert best_beta(betas, np.array([worse, best, best]), True) == 0.1
    assert best_beta(betas, np.array([clear, best, best]), True) == 0.1


def test_the_choice_keeps_the_sparsest_beta_within_the_band_from_5000_points():
    # Below SPARSE_CHOICE_MIN_POINTS the densest value within the band is
    # kept, from it the sparsest: the part the path is fitted on is then a
    # fifth of the points, whose best multiple of beta_max is larger. On
    # these points the two rules choose different values at both sizes.
    from metric_learn_scml._defaults import SPARSE_CHOICE_MIN_POINTS
    from metric_learn_scml._driver import (best_beta, pool_selections,
                                           select_beta)
    settings = SCML_Supervised()._path_settings(5)
    selections = []
    for n_points, sparsest in ((SPARSE_CHOICE_MIN_POINTS - 1, False),
                               (SPARSE_CHOICE_MIN_POINTS, True)):
        X, y = make_classification(n_points, 5, n_informative=4,
                                   n_redundant=0, n_classes=4, random_state=1)
        selection = select_beta(X, y, settings, random_state=0)
        densest = best_beta(selection.betas, selection.mistakes, False)
        largest = best_beta(selection.betas, selection.mistakes, True)
        assert largest > densest
        assert selection.sparsest is sparsest
        assert selection.beta == (largest if sparsest else densest)
        selections.append(selection)
    # mt-SCML's pooled choice is the sparsest only where every task's is.
    assert not pool_selections(selections).sparsest
    assert pool_selections(selections[1:] * 2).sparsest
    # The fit says which rule chose.
    stage, = [stage for stage in SCML_Supervised(random_state=0).fit(
        X, y).fit_stages_ if stage["stage"] == "choosing beta"]
    assert stage["rule"] == "the sparsest within the band"


def test_small_data_choice_does_not_jump_to_a_sparse_model_on_noise():
    # 150 training points, 8 features, 3 classes of two clusters each. One
    # held-out cut of 30 points, and the sparsest beta among near-ties,
    # chose beta = 0.315 (12 of 28 elements) with random_state=2: 26.0 %
    # test error against the Euclidean metric's 19.0 % (dataset seed 3,
    # random_state=3: 0.26, 14 elements, 34.0 % against 31.3 %). Scored
    # on every point, with the densest beta kept within the noise, every
    # seed keeps a dense model that beats the Euclidean metric.
    X, y = make_classification(450, 8, n_informative=5, n_redundant=1,
                               n_classes=3, n_clusters_per_class=2,
                               class_sep=1.0, random_state=1)
    scaler = StandardScaler().fit(X[:150])
    X_train, X_test = scaler.transform(X[:150]), scaler.transform(X[150:])
    y_train, y_test = y[:150], y[150:]
    euclidean = knn_error(X_train, y_train, X_test, y_test)
    for seed in range(4):
        model = SCML_Supervised(random_state=seed).fit(X_train, y_train)
        assert model.n_active_basis_ >= 18
        assert knn_error(model.transform(X_train), y_train,
                         model.transform(X_test), y_test) < euclidean


def test_selection_on_small_wide_data_keeps_a_dense_metric():
    # 120 points in 60 features, 5 classes, where the class means differ
    # along 20 of the features: every informative direction helps 3-NN,
    # so the right answer is a dense metric. The selection scores every
    # point (five folds) and keeps many elements; one held-out cut of 24
    # points was a coin toss between a dense model and one of a handful
    # of elements.
    from metric_learn_scml._driver import select_beta
    X, y = make_classification(120, 60, n_informative=20, n_redundant=0,
                               n_classes=5, n_clusters_per_class=1,
                               class_sep=1.5, random_state=3)
    X = StandardScaler().fit_transform(X)
    found = select_beta(X, y, _selection_settings(60, 300), 0)
    assert found.n_scored == 120
    assert found.mistakes.shape == (len(found.betas), 120)
    np.testing.assert_allclose(found.errors, found.mistakes.mean(axis=1))
    chosen = np.flatnonzero(found.betas == found.beta)[0]
    assert chosen >= len(found.betas) // 2        # the denser half
    model = SCML_Supervised(random_state=0).fit(X, y)
    assert model.n_active_basis_ >= 20


def test_the_chosen_beta_is_the_same_multiple_of_beta_max_on_all_points():
    # beta='auto' scores its grid on part of the points; a problem's
    # beta_max falls as its points grow denser, so the choice applies as
    # the same multiple of the beta_max of all the points: the value
    # below which a fit on all of them (same triplets and basis, same
    # seed) first keeps an element.
    X, y = make_classification(1800, 6, n_informative=4, n_redundant=0,
                               n_classes=3, n_clusters_per_class=2,
                               random_state=0)
    X = StandardScaler().fit_transform(X)
    model = SCML_Supervised(random_state=0).fit(X, y)
    stages = {stage["stage"]: stage for stage in model.fit_stages_}
    part, whole = stages["choosing beta"], stages["beta for all the points"]
    part_max = part["values_tried"][0] / BETA_RATIO_HIGH
    assert whole["beta_max"] < part_max       # 1,000 points of 1,800
    assert model.beta_ == whole["chosen"] in model.beta_path_
    assert model.beta_ / whole["beta_max"] == pytest.approx(
        part["chosen"] / part_max, rel=1e-12)
    np.testing.assert_allclose(model.beta_path_ / whole["beta_max"],
                               part["values_tried"] / part_max, rtol=1e-12)
    for factor, keeps in ((1.001, False), (0.95, True)):
        fixed = SCML_Supervised(beta=factor * whole["beta_max"],
                                solver="exact", random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fixed.fit(X, y)
        np.testing.assert_array_equal(fixed.basis_, model.basis_)
        assert (fixed.n_active_basis_ > 0) == keeps


def test_set_output_pandas_applies_to_transform(iris):
    # set_output(transform="pandas") was accepted but transform still
    # returned an ndarray: scikit-learn wraps only the methods a class
    # defines itself, and transform came from _LinearMetric.
    pd = pytest.importorskip("pandas")
    X, y = iris
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    scml = SCML_Supervised(beta=1e-4, max_iter=500, random_state=0)
    scml.set_output(transform="pandas").fit(frame, y)
    embedded = scml.transform(frame)
    assert isinstance(embedded, pd.DataFrame)
    assert list(embedded.columns) == list(scml.get_feature_names_out())
    np.testing.assert_allclose(embedded.to_numpy(),
                               frame.to_numpy() @ scml.components_.T)
    pipeline = make_pipeline(StandardScaler(), clone(scml)).set_output(
        transform="pandas")
    assert isinstance(pipeline.fit(frame, y).transform(frame), pd.DataFrame)


@pytest.mark.parametrize("labels", [["a", 1, 2], ["a", "b", None]])
def test_labels_of_mixed_types_name_y(iris, labels):
    # They raised numpy's "'<' not supported between instances of 'int'
    # and 'str'" from a sort inside type_of_target.
    X, y = iris
    mixed = np.array(labels, dtype=object)[y]
    with pytest.raises(TypeError, match="y must hold class labels of one "
                                        "type"):
        SCML_Supervised(beta=1e-4).fit(X, mixed)


def test_metric_function_names_points_of_the_wrong_length(iris):
    # numpy said "operands could not be broadcast together with shapes (4,)
    # (3,)" (or "not aligned" when both points had 3 features).
    X, y = iris
    scml = SCML_Supervised(beta=1e-4, max_iter=500, random_state=0).fit(X, y)
    metric = scml.get_metric()
    with pytest.raises(ValueError, match="metric of SCML_Supervised takes "
                       "two points of 4 features: got u with 4 and v with 3"):
        metric(X[0], X[1, :3])
    with pytest.raises(ValueError, match="got u with 3 and v with 3"):
        metric(X[0, :3], X[1, :3])
    assert metric(X[0], X[1], squared=True) == pytest.approx(
        scml.pair_distance(X[None, :2])[0] ** 2)
    # A point with axes of length one is a point (as for scipy's metrics);
    # several points, or NaN and infinity (a NaN distance before), are not.
    assert metric(X[[0]], X[[1]].T) == metric(X[0], X[1])
    with pytest.raises(ValueError, match="two 1-D points: v has shape"):
        metric(X[0], X[:2])
    for value, message in ((np.nan, "v contains NaN"), (np.inf, "infinity")):
        with pytest.raises(ValueError, match=message):
            metric(X[0], np.full(4, value))


def test_points_beyond_the_fitted_range_are_refused_after_fit(iris):
    # fit refuses features beyond 1e100; after fit, distances of 1e160
    # were inf (NaN under a local metric) and predict followed them.
    X, y = iris
    model = SCML_Supervised(beta=1e-3, max_iter=200, random_state=0).fit(X, y)
    pairs = np.stack([X[:5], X[5:10]], axis=1)
    message = "features up to .* beyond 1e\\+100: their squared distances"
    for method, data in (("pair_distance", pairs * 1e160),
                         ("pair_score", pairs * 1e160),
                         ("transform", X * 1e160)):
        with pytest.raises(ValueError, match=message):
            getattr(model, method)(data)
    assert np.isfinite(model.pair_distance(pairs * 1e40)).all()


def test_zero_weights_warning_names_its_cause():
    # Triplets that compare a point with two equal ones carry no order: the
    # warning blamed beta ("decrease it") even at beta=0.
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    idx = rng.randint(0, 60, (300, 3))
    idx[:, 2] = idx[:, 1]
    for beta in (0.0, 1e-5):
        with pytest.warns(UserWarning, match="no basis element lowers the loss "
                                             "at any beta"):
            SCML(beta=beta, random_state=0).fit(X[idx])
    idx = rng.randint(0, 60, (300, 3))
    with pytest.warns(UserWarning, match="beta=1e\\+06 is too large"):
        SCML(beta=1e6, random_state=0).fit(X[idx])


def test_features_on_very_different_scales_warn_and_name_the_fix(iris):
    X, y = iris
    scaled = X * [1e6, 1.0, 1e-3, 1.0]
    with pytest.warns(UserWarning, match="differ widely.*Standardise the "
                                         "features"):
        SCML_Supervised(beta=1e-3, max_iter=500, random_state=0).fit(scaled, y)
    # One feature far wider than most (34 times their median) makes the
    # Euclidean neighbours alone, though the widest and narrowest are only
    # about 60-fold apart.
    wide = X * [1.0, 100.0, 1.0, 1.0]
    with pytest.warns(UserWarning, match="differ widely"):
        SCML_Supervised(beta=1e-3, max_iter=500, random_state=0).fit(wide, y)
    # The median is of the other features: two features 100-fold apart, or
    # half of them wide, warn too (the median of all would be half the
    # widest).
    for columns, scales in (([0, 1], [100.0, 1.0]),
                            ([0, 1, 2, 3], [100.0, 100.0, 1.0, 1.0])):
        with pytest.warns(UserWarning, match="differ widely"):
            SCML_Supervised(beta=1e-3, max_iter=500, random_state=0).fit(
                X[:, columns] * scales, y)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        SCML_Supervised(beta=1e-3, max_iter=500, random_state=0).fit(X, y)
        # Triplet learners check the points of their triplets.
        triplets = triplets_from_labels(X, y)[:300]
        SCML(beta=1e-3, max_iter=500, random_state=0).fit(X[triplets])
    with pytest.warns(UserWarning, match="differ widely"):
        SCML(beta=1e-3, max_iter=500, random_state=0).fit(scaled[triplets])
    # A constant column is no scale: numpy's std of 0.1 repeated is about
    # 1e-17, not 0, and warned of a factor of 7e15.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        SCML_Supervised(beta=1e-3, max_iter=500, random_state=0).fit(
            np.column_stack([X, np.full(len(X), 0.1)]), y)


def test_triplet_learner_names_its_output_features():
    # SCML_Supervised had get_feature_names_out, SCML (the same transform,
    # learned from triplets) had not.
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    idx = rng.randint(0, 60, (300, 3))
    model = SCML(random_state=0).fit(X[idx])
    names = model.get_feature_names_out()
    assert names.tolist() == ["scml%d" % i for i in range(model.transform(X).shape[1])]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_refit_leaves_no_attribute_of_the_earlier_fit(wine_split):
    X_train, _, y_train, _ = wine_split
    model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert hasattr(model, "beta_path_")
    model.set_params(beta=1e-4).fit(X_train, y_train)
    assert not hasattr(model, "beta_path_")
    assert not hasattr(model, "validation_error_path_")
    assert model.beta_ == 1e-4
    assert model.get_mahalanobis_matrix().shape == (X_train.shape[1],) * 2
    # A refit on fewer features is a new model, partial_fit included.
    model.fit(X_train[:, :5], y_train)
    model.partial_fit(X_train[:, :5], y_train)
    assert model.components_.shape[1] == 5


def test_a_refit_with_an_invalid_parameter_keeps_the_fitted_model(iris):
    X, y = iris
    model = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    before = model.get_mahalanobis_matrix()
    with pytest.raises(ValueError, match="beta"):
        model.set_params(beta=-1.0).fit(X, y)
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(), before)


@pytest.mark.parametrize("make", [
    lambda: SCML_Supervised(random_state=0),
    lambda: MultiTaskSCML_Supervised(random_state=0),
    lambda: LocalSCML_Supervised(random_state=0)])
def test_a_failed_fit_leaves_an_unfitted_model(iris, make):
    # One class: the fit raises after validating the data (n_features_in_
    # and beta_ are set by then); scikit-learn must not see a fitted model.
    X, y = iris
    model = make()
    args = (X, np.zeros(X.shape[0])) + (
        (np.arange(X.shape[0]) % 2,) if isinstance(
            model, MultiTaskSCML_Supervised) else ())
    with pytest.raises(ValueError):
        model.fit(*args)
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


@pytest.mark.parametrize("learner", [SCML, LocalSCML])
def test_triplet_learners_fit_in_a_pipeline(wine_triplets, learner):
    # Pipeline passes y=None to its last step's fit.
    train, test = wine_triplets
    pipe = make_pipeline(learner(random_state=0, max_iter=300)).fit(train[:300])
    assert pipe.score(test[:100]) > 0.5


@pytest.mark.parametrize("learner", [SCML, LocalSCML, MultiTaskSCML])
def test_triplet_classifiers_declare_binary_classifier_tags(learner):
    tags = get_tags(learner())
    assert tags.estimator_type == "classifier"
    assert tags.classifier_tags is not None
    assert not tags.classifier_tags.multi_class


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_basis_arrays_of_any_scale_are_normalised(iris, scale):
    X, y = iris
    reference = SCML_Supervised(beta=1e-3, basis=np.eye(4), random_state=0)
    scaled = SCML_Supervised(beta=1e-3, basis=np.eye(4) * scale, random_state=0)
    np.testing.assert_array_equal(scaled.fit(X, y).get_mahalanobis_matrix(),
                                  reference.fit(X, y).get_mahalanobis_matrix())


@pytest.mark.parametrize("offset", [1e7, 1e9])
def test_data_far_from_the_origin_give_the_model_of_centred_data(iris, offset):
    # Neighbours and the basis' neighbourhoods came from expanded distances,
    # which lose the offset's digits: at 1e8 the metric was 17 % off and
    # beta='auto' chose another value.
    # The reference is the data as stored at that offset, moved back.
    X, y = iris
    far = X + offset
    reference = SCML_Supervised(random_state=0).fit(far - offset, y)
    shifted = SCML_Supervised(random_state=0).fit(far, y)
    assert shifted.beta_ == pytest.approx(reference.beta_, rel=1e-6)
    M = reference.get_mahalanobis_matrix()
    np.testing.assert_allclose(shifted.get_mahalanobis_matrix(), M,
                               atol=1e-6 * np.abs(M).max())


def test_zero_weights_warning_names_a_tiny_gamma(iris):
    X, y = iris
    with pytest.warns(UserWarning, match="gamma=1e-05 is too small"):
        SCML_Supervised(beta=1e-5, gamma=1e-5, solver="rda", max_iter=500,
                        random_state=0).fit(X, y)


@pytest.mark.parametrize("gamma", [1e-7, 1e-50])
def test_a_gamma_below_float_range_is_refused(iris, gamma):
    # (Its iterates, of order 1 / gamma, would lose the hinge's margin in
    # the float32 triplet table, then overflow.)
    X, y = iris
    with pytest.raises(ValueError, match="gamma must be >= 1e-05"):
        SCML_Supervised(gamma=gamma).fit(X, y)


@pytest.mark.parametrize("random_state", [-1, 2 ** 32, "a"])
def test_bad_random_state_is_named(iris, random_state):
    X, y = iris
    with pytest.raises(ValueError, match="random_state must be None"):
        SCML_Supervised(random_state=random_state).fit(X, y)


def test_a_one_dimensional_preprocessor_is_refused_with_the_fix(iris):
    X, _ = iris
    triplets = np.random.RandomState(0).randint(0, X.shape[0], (50, 3))
    with pytest.raises(ValueError, match=r"reshape\(-1, 1\)"):
        SCML(preprocessor=X[:, 0]).fit(triplets)
    # (An empty one said indices "must lie in 0..-1".)
    for empty in (X[:0], X[:, :0]):
        with pytest.raises(ValueError, match=r"needs at least one point of "
                           r"one feature, got shape \(%d, %d\)" % empty.shape):
            SCML(preprocessor=empty).fit(triplets)


@pytest.mark.parametrize("learner", [SCML, LocalSCML])
def test_triplets_of_the_wrong_width_are_called_triplets(wine_triplets, learner):
    train, _ = wine_triplets
    model = learner(random_state=0, max_iter=200).fit(train[:200])
    for method in (model.score, model.predict, model.decision_function):
        with pytest.raises(ValueError, match="triplets have 2 features"):
            method(train[:10, :, :2])


@pytest.mark.parametrize("random_state", range(4))
def test_triplet_diffs_basis_on_repeated_points_whatever_the_draw(random_state):
    # Five values, each repeated 20 times with random labels: most mined
    # triplets join copies of one point, and a small basis drawn from
    # regions of those alone came out empty on some draws (the fit raised
    # "found no basis element"). The triplets that move some point keep
    # the separating direction on every draw.
    X = np.repeat(np.arange(5.0), 20)[:, None]
    y = np.random.RandomState(0).randint(0, 2, 100)
    model = SCML_Supervised(beta=1e-3, basis="triplet_diffs", n_basis=2,
                            random_state=random_state).fit(X, y)
    np.testing.assert_allclose(np.abs(model.basis_), [[1.0]])
    assert model.n_active_basis_ == 1


def test_triplet_diffs_basis_from_labels_as_in_metric_learn(wine_split):
    # metric-learn's SCML_Supervised accepts basis='triplet_diffs': the
    # basis of the triplet learner, on the triplets mined from the labels.
    from metric_learn_scml import SCML_SupervisedCV, scml_path
    from metric_learn_scml._triplets import triplet_basis
    X_train, X_test, y_train, y_test = wine_split
    model = SCML_Supervised(basis="triplet_diffs", beta=1e-4, solver="rda",
                            random_state=0).fit(X_train, y_train)
    rng = np.random.RandomState(0)
    expected = triplet_basis(X_train, triplets_from_labels(
        X_train, y_train, random_state=rng), model.basis_.shape[0],
        random_state=rng)
    np.testing.assert_allclose(model.basis_, expected)
    assert knn_error(model.transform(X_train), y_train, model.transform(X_test),
                     y_test) < knn_error(X_train, y_train, X_test, y_test) + 0.05
    for learner in (SCML_Supervised(basis="triplet_diffs", random_state=0),
                    SCML_SupervisedCV(basis="triplet_diffs", cv=2, random_state=0),
                    LocalSCML_Supervised(basis="triplet_diffs", random_state=0)):
        assert learner.fit(X_train, y_train).basis_.shape[1] == X_train.shape[1]
    _, weights, _, basis = scml_path(X_train, y_train, basis="triplet_diffs",
                                     n_betas=2, random_state=0)
    assert weights.shape == (2, basis.shape[0])


def test_sparse_points_are_refused_with_the_pipeline_fix(iris):
    from scipy.sparse import csr_matrix
    X, y = iris
    with pytest.raises(TypeError, match=r"sparse_output=False"):
        SCML_Supervised(random_state=0).fit(csr_matrix(X), y)
    model = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="needs dense points"):
        model.transform(csr_matrix(X))


def test_selection_with_many_classes_keeps_five_points_per_class():
    # The selection's fit part was capped at 1,000 points whatever the
    # classes: with 1,000 classes, one point each, no triplet (and a
    # ValueError blaming single-member classes of y).
    from sklearn.datasets import make_blobs
    from metric_learn_scml._driver import N_BETAS, select_beta
    X, y = make_blobs(400, 4, centers=40, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        found = select_beta(X, y, _selection_settings(4), 0, min_fit_points=50)
    assert found.betas.shape[0] == N_BETAS and found.reason is None


def test_auto_beta_leaves_single_point_classes_out_of_the_choice(iris):
    # One class of a single point used to skip the choice (beta=1e-5, no
    # held-out check against Euclidean) silently.
    X, y = iris
    y = y.copy()
    y[0] = 7
    model = SCML_Supervised(random_state=0).fit(X, y)
    assert model.beta_path_.shape[0] > 0
    with pytest.warns(UserWarning, match="could not hold out points of every"):
        tiny = SCML_Supervised(random_state=0).fit(X[[0, 1, 50, 51, 100, 101]],
                                                   [0, 0, 1, 1, 2, 2])
    assert tiny.beta_ == 1e-5 and tiny.beta_path_.shape[0] == 0
    # (The count named every class, not those of two points or more.)
    with pytest.warns(UserWarning, match=r"\(1 of 2 classes have three "
                      r"points or more, among 4 points"):
        SCML_Supervised(random_state=0).fit(X[[0, 1, 2, 50]], [0, 0, 0, 1])


# ------------------------------------------------------------ n_components


def top_of(metric, k):
    """The rank-k truncation of a symmetric PSD matrix, by numpy's eigh."""
    eigenvalues, eigenvectors = np.linalg.eigh(metric)
    top = eigenvectors[:, -k:]
    return (top * eigenvalues[-k:]) @ top.T, eigenvalues


@pytest.mark.parametrize("k", [1, 2, 5])
def test_n_components_keeps_the_top_eigen_directions_of_the_metric(wine, k):
    X, y = wine
    full = SCML_Supervised(beta=1e-4, random_state=0).fit(X, y)
    model = SCML_Supervised(beta=1e-4, random_state=0, n_components=k).fit(X, y)
    # The fit is that of the whole metric; only its factor is truncated.
    np.testing.assert_array_equal(model.weights_, full.weights_)
    truncated, eigenvalues = top_of(full.get_mahalanobis_matrix(), k)
    # The k-th direction is well defined (a gap below it).
    assert eigenvalues[-k] > 1.01 * eigenvalues[-k - 1]
    assert model.components_.shape == (k, X.shape[1])
    assert model.transform(X).shape == (X.shape[0], k)
    scale = eigenvalues[-1]
    np.testing.assert_allclose(model.get_mahalanobis_matrix() / scale,
                               truncated / scale, rtol=0, atol=1e-6)
    # Rows are orthogonal, in decreasing order of their eigenvalues.
    gram = model.components_ @ model.components_.T
    np.testing.assert_allclose(gram / scale, np.diag(eigenvalues[::-1][:k])
                               / scale, rtol=0, atol=1e-6)
    # Distances are those of the embedding.
    pairs = np.stack([X[:20], X[20:40]], axis=1)
    embedded = model.transform(X)
    np.testing.assert_allclose(
        model.pair_distance(pairs),
        np.linalg.norm(embedded[:20] - embedded[20:40], axis=1), rtol=1e-6)


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer,
                                    load_digits])
def test_n_components_gives_that_width_on_the_shipped_datasets(loader):
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = SCML_Supervised(n_components=2, random_state=0).fit(X, y)
    assert model.transform(X).shape == (X.shape[0], 2)
    assert np.linalg.matrix_rank(model.get_mahalanobis_matrix()) <= 2


def test_n_components_pads_a_metric_of_lower_rank_with_zeros():
    # metric-learn's sandwich demo with our SCML: a metric of one active
    # element embedded the points in one column, and the 2-D plot failed.
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    idx = rng.randint(0, 60, size=(300, 3))
    gap = np.abs(X[idx[:, 1:], 0] - X[idx[:, [0]], 0])
    swap = gap[:, 0] > gap[:, 1]
    idx[swap, 1:] = idx[swap, 1:][:, ::-1]
    params = dict(basis=np.eye(3), beta=1e-2, random_state=0)
    whole = SCML(**params).fit(X[idx])
    assert whole.n_active_basis_ == 1 and whole.transform(X).shape == (60, 1)
    model = SCML(n_components=2, **params).fit(X[idx])
    embedded = model.transform(X)
    assert embedded.shape == (60, 2)
    assert not embedded[:, 1].any()
    np.testing.assert_allclose(model.get_mahalanobis_matrix(),
                               whole.get_mahalanobis_matrix(), rtol=1e-12)


def test_n_components_of_the_zero_metric_is_zero_columns(wine):
    X, y = wine
    with pytest.warns(UserWarning, match="All basis weights are zero"):
        zero = SCML_Supervised(beta=1e3, n_components=3, random_state=0,
                               basis=np.eye(X.shape[1])).fit(X, y)
    assert zero.transform(X).shape == (X.shape[0], 3)
    assert not zero.transform(X).any()


@pytest.mark.parametrize("value, error, message", [
    (14, ValueError, r"^Invalid n_components, must be in \[1, 13\]"),
    (0, ValueError, r"^Invalid n_components, must be in \[1, 13\]"),
    (-2, ValueError, r"^Invalid n_components, must be in \[1, 13\]"),
    (2.0, TypeError, r"n_components must be an integer or None, got 2.0"),
])
def test_n_components_is_checked_with_a_clear_error(wine, value, error,
                                                    message):
    # metric-learn's message, word for word (its own test suite compares
    # it); the reason and the fix follow as the exception's note.
    X, y = wine
    with pytest.raises(error, match=message) as raised:
        SCML_Supervised(n_components=value, beta=1e-4).fit(X, y)
    if error is ValueError:
        assert str(raised.value) == "Invalid n_components, must be in [1, 13]"
    if error is ValueError and sys.version_info >= (3, 11):
        assert "Give 1 <= n_components <= 13" in raised.value.__notes__[0]
    with pytest.raises(error, match=message):
        SCML(n_components=value).fit(X[triplets_from_labels(X, y)[:50]])


# ------------------------------------------------------------------- pairs


def test_scml_learns_from_labelled_pairs():
    # Two of six features decide similarity; pairs are labelled by
    # thresholding their distance in those two.
    rng = np.random.RandomState(0)
    X = rng.randn(200, 6)
    pairs = rng.randint(0, 200, size=(3000, 2))
    gap = np.linalg.norm(X[pairs[:, 0], :2] - X[pairs[:, 1], :2], axis=1)
    y = np.where(gap < np.median(gap), 1, -1)
    train, test = slice(0, 2000), slice(2000, None)
    model = SCML(preprocessor=X, random_state=0).fit(pairs[train], y[train])
    weights = np.diag(model.get_mahalanobis_matrix())
    assert weights[:2].min() > 10 * weights[2:].max()
    # The same pairs as points give the same model.
    points = SCML(random_state=0).fit(X[pairs[train]], y[train])
    np.testing.assert_allclose(points.get_mahalanobis_matrix(),
                               model.get_mahalanobis_matrix(), rtol=1e-6)
    euclidean = np.linalg.norm(X[pairs[:, 0]] - X[pairs[:, 1]], axis=1)
    learned = model.pair_distance(pairs)
    accuracy = {name: threshold_accuracy(d[train], y[train], d[test], y[test])
                for name, d in (("euclidean", euclidean), ("learned", learned))}
    assert accuracy["learned"] > 0.9 > accuracy["euclidean"] + 0.15


def test_pairs_that_share_no_point_are_refused_with_the_fix():
    # (SCML learns from them, as quadruplets: tests/test_pairs.py.)
    X = np.random.RandomState(0).randn(8, 2)
    disjoint = np.stack([X[[0, 2, 4, 6]], X[[1, 3, 5, 7]]], axis=1)
    with pytest.raises(ValueError, match=r"form no triplet: no point has both "
                                         r"a similar \(y=\+1\).*share points"
                                         r".*use SCML"):
        LocalSCML().fit(disjoint, [1, -1, 1, -1])
    with pytest.raises(ValueError, match=r"labels \(y\) should contain only "
                                         r"values in \[-1, 1\]"):
        SCML().fit(disjoint, [1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"got pairs .* without their labels"
                                         r".*fit\(pairs, y\)"):
        SCML().fit(disjoint)


def test_verbose_reports_every_stage_and_fit_stages_keeps_them(wine, capsys):
    X, y = wine
    model = SCML_Supervised(verbose=True, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    names = [stage["stage"] for stage in model.fit_stages_]
    assert names == ["mining triplets", "choosing beta", "building the basis",
                     "pair table", "beta for all the points",
                     "RDA at beta=%.3g" % model.beta_, "exact phase"]
    assert all(stage["seconds"] >= 0 for stage in model.fit_stages_)
    choice, carried = model.fit_stages_[1], model.fit_stages_[4]
    assert carried["chosen"] == model.beta_
    np.testing.assert_array_equal(carried["values_tried"], model.beta_path_)
    # the same multiples of each beta_max
    np.testing.assert_allclose(
        choice["values_tried"] / choice["values_tried"][0],
        model.beta_path_ / model.beta_path_[0], rtol=1e-12)
    assert choice["chosen"] / choice["values_tried"][0] == pytest.approx(
        model.beta_ / model.beta_path_[0], rel=1e-12)
    assert choice["held_out_points"] > 0
    assert model.fit_stages_[0]["triplets"] == 178 * 30
    assert model.fit_stages_[2]["elements"] == model.basis_.shape[0]
    assert model.fit_stages_[3]["elements"] == model.basis_.shape[0]
    exact = model.fit_stages_[6]
    assert exact["active"] == model.n_active_basis_
    # wine's phase ends well within its budget, certified
    assert exact["certified"] and not exact["out_of_budget"]
    # RDA's work sets the budget, and the phase spent less than it
    assert exact["budget"] == max(model.fit_stages_[5]["work"], 2e8)
    assert 0 < exact["work"] <= exact["budget"]
    for name in names:
        assert "[SCML_Supervised] %s: " % name in out
    assert "betas scored on" in out and "chosen %.3g" % model.beta_ in out
    # a quiet fit keeps the same record and prints nothing
    quiet = SCML_Supervised(random_state=0).fit(X, y)
    assert capsys.readouterr().out == ""
    assert [stage["stage"] for stage in quiet.fit_stages_] == names


def test_verbose_names_a_fallback_and_its_reason(wine_split, pin_auto_beta,
                                                 capsys):
    X_train, _, y_train, _ = wine_split
    pin_auto_beta(1e6)
    model = SCML_Supervised(verbose=True, random_state=0).fit(X_train, y_train)
    assert model.euclidean_fallback_
    note = model.fit_stages_[-1]
    assert note["stage"] == "Euclidean metric kept"
    assert note["reason"] == "the chosen beta keeps no element"
    assert "Euclidean metric kept: reason the chosen beta keeps no element" \
        in capsys.readouterr().out


def test_fit_stages_of_triplets_local_and_partial_fit(wine_split):
    X_train, _, y_train, _ = wine_split
    triplets = X_train[triplets_from_labels(X_train, y_train)]
    weak = SCML(beta=1e-4, random_state=0).fit(triplets)
    assert weak.fit_stages_[0]["stage"] == "building the basis"
    local = LocalSCML_Supervised(max_iter=300, random_state=0).fit(
        X_train, y_train)
    stages = [stage["stage"] for stage in local.fit_stages_]
    assert "kernel PCA embedding" in stages and any(
        stage.startswith("local stage") for stage in stages)
    # (then, where the local stage kept its start, a note that says so)
    assert stages[-1].startswith("local stage") or stages[-1] == (
        "global metric kept")
    model = SCML_Supervised(beta=1e-3, random_state=0).partial_fit(
        X_train[:60], y_train[:60])
    model.partial_fit(X_train[60:], y_train[60:])
    # each call keeps its own stages (no choice of beta, no basis anew)
    assert [stage["stage"] for stage in model.fit_stages_][0] == \
        "mining triplets"


@pytest.mark.parametrize("learner", ["global", "cv", "local", "multitask",
                                     "triplets"])
def test_fitted_scalars_and_stage_records_are_python_values(wine, learner):
    # json.dumps(model.fit_stages_) (arrays aside) and a logged n_iter_
    # must not meet numpy scalars
    import json
    X, y = wine
    tasks = np.where(X[:, 0] > X[:, 0].mean(), "a", "b")
    fits = {
        "global": lambda: SCML_Supervised(random_state=0).fit(X, y),
        "cv": lambda: SCML_SupervisedCV(n_betas=2, cv=2, random_state=0).fit(
            X, y),
        "local": lambda: LocalSCML_Supervised(max_iter=300,
                                              random_state=0).fit(X, y),
        "multitask": lambda: MultiTaskSCML_Supervised(
            solver="exact", random_state=0).fit(X, y, tasks),
        "triplets": lambda: SCML(beta=1e-4, random_state=0).fit(
            X[triplets_from_labels(X, y)]),
    }
    model = fits[learner]()
    assert type(model.n_iter_) is int
    assert type(model.objective_) is float
    if hasattr(model, "dual_gap_"):
        assert type(model.dual_gap_) is float
    for stage in model.fit_stages_:
        scalars = {key: value for key, value in stage.items()
                   if not isinstance(value, np.ndarray)}
        json.dumps(scalars)


def test_get_metric_measures_with_the_components_as_they_are(iris):
    # metric-learn's API tests set components_ by hand and measure scalars
    # with get_metric: the metric is that of components_ now, and points of
    # another length than its columns are refused with both lengths named.
    X, y = iris
    model = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    metric = model.get_metric()
    u, v = X[0], X[60]
    assert metric(u, v) == pytest.approx(
        np.linalg.norm(model.components_ @ (u - v)), rel=1e-12)
    model.components_ = np.array([[3.1]])
    assert model.get_metric()(5, 6.7) == pytest.approx(3.1 * 1.7, rel=1e-12)
    with pytest.raises(ValueError, match="takes two points of 1 features: "
                                         "got u with 4 and v with 4"):
        model.get_metric()(u, v)


def test_a_fit_the_budget_stops_is_reproducible():
    # digits at this beta: the exact phase runs out of its budget. The
    # budget counts work, not seconds, so the same fit gives the same
    # weights however loaded the machine is (two SCML_SupervisedCV fits
    # once differed on a busy CI runner under a budget of seconds).
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X[:1200])
    fits = [SCML_Supervised(beta=5e-3, random_state=0).fit(X, y[:1200])
            for _ in range(2)]
    rda, exact = fits[0].fit_stages_[-2:]
    assert exact["stage"] == "exact phase" and exact["out_of_budget"]
    # 36,000 triplets: RDA's work is the budget, with no floor
    assert not exact["certified"] and exact["budget"] == rda["work"]
    assert exact["work"] <= exact["budget"]
    np.testing.assert_array_equal(fits[0].weights_, fits[1].weights_)
    assert fits[0].dual_gap_ == fits[1].dual_gap_ > 0


def test_missing_labels_and_tasks_are_named(iris):
    # pandas.NA among object labels failed with "boolean value of NA is
    # ambiguous" (inside scikit-learn, numpy or pandas), and NaN among them
    # with "Input contains NaN", naming neither y nor tasks.
    pd = pytest.importorskip("pandas")
    from metric_learn_scml import MetricKNeighborsClassifier
    X, y = iris
    fast = dict(max_iter=20, random_state=0)
    tasks = np.array(["a", "b"] * 75, dtype=object)
    for missing in (pd.NA, np.nan):
        labels = y.astype(object)
        labels[7] = missing
        unknown_tasks = tasks.copy()
        unknown_tasks[3] = missing
        calls = [
            lambda: SCML_Supervised(**fast).fit(X, labels),
            lambda: triplets_from_labels(X, labels),
            lambda: MetricKNeighborsClassifier(SCML_Supervised(**fast)).fit(
                X, labels),
            lambda: MultiTaskSCML_Supervised(**fast).fit(
                X, y, tasks=unknown_tasks),
            lambda: MetricKNeighborsClassifier(
                MultiTaskSCML_Supervised(**fast)).fit(X, y, unknown_tasks),
            lambda: knn_scorer(SCML_Supervised(**fast).fit(X, y), X, labels),
        ]
        for call in calls:
            with pytest.raises(ValueError, match=r"(y|tasks) contains missing "
                               r"values \(NaN or pandas.NA\)"):
                call()
    # Pair labels in pandas' nullable integers: their NA is not a label.
    pairs = triplets_from_labels(X, y, 2, 3)[:100, :2]
    pair_labels = pd.array([1, -1] * 49 + [1, pd.NA], dtype="Int64")
    with pytest.raises(ValueError, match=r"labels \(y\) should contain only "
                       r"values in \[-1, 1\].* got nan"):
        SCML(preprocessor=X, **fast).fit(pairs, pair_labels)
    model = MultiTaskSCML_Supervised(**fast).fit(X, y, tasks=tasks)
    with pytest.raises(ValueError, match=r"Unknown task <NA>: the known "
                       r"tasks are \['a', 'b'\]"):
        model.transform(X[:4], task=pd.NA)


def test_knn_scorer_without_labels_says_they_are_needed(iris):
    # (It said "y should be a 1d array, got an array of shape ()".)
    X, y = iris
    model = SCML_Supervised(max_iter=20, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="knn_scorer needs the class labels "
                                         "y of X"):
        knn_scorer(model, X, None)


def test_text_features_are_refused_naming_the_input(iris):
    # numpy's "could not convert string to float" named no parameter.
    pd = pytest.importorskip("pandas")
    from metric_learn_scml import LocalSCML_Supervised
    X, y = iris
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["a"] = frame["a"].astype(str)
    frame.loc[3, "a"] = "x"
    basis = np.eye(4).astype(str)
    basis[0, 0] = "a"
    model = SCML_Supervised(max_iter=20, random_state=0).fit(X, y)
    local = LocalSCML_Supervised(max_iter=20, random_state=0).fit(X, y)
    calls = [
        ("X", lambda: SCML_Supervised().fit(frame, y)),
        ("X", lambda: triplets_from_labels(frame, y)),
        ("X", lambda: model.transform(frame.values)),
        ("basis", lambda: SCML_Supervised(basis=basis).fit(X, y)),
        ("u", lambda: model.get_metric()(["a", 1, 2, 3], X[0])),
        ("Y", lambda: local.pairwise_distances(X[:2], frame.values[:5])),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=r"^%s holds a value that is not "
                           r"a number \(could not convert string to float"
                           % name):
            call()
    # (scikit-learn's words, then the whole array.)
    with pytest.raises(ValueError, match=r"^X holds complex numbers \(Complex "
                       r"data not supported\): .* np.hstack"):
        SCML_Supervised().fit(X + 0j, y)
    # A complex scalar failed in numpy with a TypeError that named nothing.
    with pytest.raises(ValueError, match=r"^basis holds complex numbers"):
        SCML_Supervised(basis=1 + 1j).fit(X, y)


def test_boolean_features_are_points_after_fit_too(iris):
    # fit took them as floats; transform, pair_distance, k-NN predictions,
    # local distances and task metrics failed in the scale check (numpy
    # has no minus sign for booleans): pandas' get_dummies gives booleans.
    X, y = iris
    binary = X > np.median(X, axis=0)
    as_float = binary.astype(float)
    model = SCML_Supervised(max_iter=200, random_state=0).fit(binary, y)
    np.testing.assert_array_equal(model.transform(binary),
                                  model.transform(as_float))
    pairs = np.stack([binary[:5], binary[50:55]], axis=1)
    np.testing.assert_array_equal(model.pair_distance(pairs),
                                  model.pair_distance(pairs.astype(float)))
    local = LocalSCML_Supervised(max_iter=200, random_state=0).fit(binary, y)
    np.testing.assert_array_equal(local.pairwise_distances(binary[:5]),
                                  local.pairwise_distances(as_float[:5]))
    indexed = SCML_Supervised(max_iter=200, random_state=0,
                              preprocessor=binary).fit(np.arange(150), y)
    np.testing.assert_array_equal(indexed.transform(np.arange(3)),
                                  model.transform(as_float[:3]))


def test_pair_distances_of_integer_points_do_not_wrap_around(iris):
    # metric-learn's pair_distance took the difference in the points' own
    # integer type: uint8 points 3 - 100 wrapped around to 159, and the
    # distances were silently wrong (1.98 for 5.18).
    X, y = iris
    small = (X * 10).astype(np.uint8)
    model = SCML_Supervised(max_iter=200, random_state=0).fit(small, y)
    pairs = np.stack([small[:3], small[100:103]], axis=1)
    expected = np.array([model.get_metric()(a, b) for a, b in pairs])
    np.testing.assert_allclose(model.pair_distance(pairs), expected,
                               rtol=1e-12)
    np.testing.assert_allclose(model.pair_score(pairs), -expected, rtol=1e-12)
    indexed = SCML_Supervised(max_iter=200, random_state=0,
                              preprocessor=small).fit(np.arange(150), y)
    np.testing.assert_allclose(
        indexed.pair_distance([[0, 100], [1, 101], [2, 102]]), expected,
        rtol=1e-12)
    tasks = np.arange(150) % 2
    multi = MultiTaskSCML_Supervised(max_iter=200, random_state=0).fit(
        small, y, tasks)
    metric = multi.for_task(1).get_metric()
    np.testing.assert_allclose(multi.pair_distance(pairs, task=1),
                               [metric(a, b) for a, b in pairs], rtol=1e-12)


def test_zero_weights_after_too_few_iterations_name_max_iter(wine):
    # The zero-weights warning blamed beta ("too large; decrease it"),
    # even beta=0, where one RDA step had not beaten W = 0.
    X, y = wine
    for beta in (0.0, 1e-3):
        with pytest.warns(UserWarning, match="stopped at max_iter=1 "
                          "iterations .* raise max_iter"):
            SCML_Supervised(beta=beta, max_iter=1, solver="rda",
                            random_state=0).fit(X, y)


def test_separable_triplets_are_certified_at_the_lp_tolerance():
    # Five separable triplets: objective 1.3e-5, a gap of 8.6e-8 (HiGHS'
    # tolerance) was 7e-3 of it, and the fit warned "not certified ...
    # standardise the features" on standard normal data.
    rng = np.random.RandomState(0)
    X = rng.randn(100, 4)
    triplets = ordered_triplets(X, 600, rng)
    few = triplets[np.random.RandomState(2).choice(600, 5, replace=False)]
    for solver in ("auto", "exact"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model = SCML(preprocessor=X, solver=solver,
                         random_state=0).fit(few)
        assert model.objective_ < 1e-3
        assert 0 <= model.dual_gap_ <= 1e-6
        assert model.score(few) == 1.0


def test_warnings_name_the_learner(iris):
    # Inside a Pipeline or a search, a warning that names no learner
    # cannot be traced to one.
    X, y = iris
    with pytest.warns(UserWarning, match="every distance of SCML_Supervised "
                      "is 0"):
        SCML_Supervised(beta=1e6, max_iter=50, random_state=0).fit(X, y)
    cv = [(np.flatnonzero(y < 2), np.flatnonzero(y > 0))]
    with pytest.warns(UserWarning, match="^SCML_SupervisedCV: the test part "
                      "of split 0 of cv holds classes"):
        SCML_SupervisedCV(cv=cv, betas=[1e-3], max_iter=50,
                          random_state=0).fit(X, y)


def test_pair_distance_checks_the_pairs_shape_before_the_fit():
    # metric-learn's order (its own suite checks it on an unfitted model
    # whose preprocessor is set): the tuples' size, then the fitted metric.
    for model in (SCML(), SCML_Supervised()):
        model._check_preprocessor()
        triplets = np.ones((2, 3, 2))
        with pytest.raises(ValueError, match="^Tuples of 2 element"):
            model.pair_distance(triplets)
        with pytest.raises(NotFittedError):
            model.pair_distance(triplets[:, :2])


def test_auto_beta_keeps_the_euclidean_metric_where_no_element_lowers_the_loss():
    # 200 hard classes, each point's 10 nearest impostors: on the 1,000
    # points the choice fits the path on, no element lowers the triplets'
    # loss, and the fit at the fallback beta (no held-out check) kept 5
    # elements on 60,000 points, 3-NN accuracy 0.027 against the Euclidean
    # 0.138. (The default impostors find elements, and the held-out check
    # keeps the Euclidean metric.)
    X, y = make_classification(n_samples=6000, n_features=20, n_informative=10,
                               n_redundant=4, n_classes=200,
                               n_clusters_per_class=1, random_state=0)
    X = StandardScaler().fit_transform(X)
    with pytest.warns(UserWarning, match=r"found no basis element that "
                      r"lowers the loss.*Euclidean metric is kept"):
        model = SCML_Supervised(k_impostor=10, random_state=0).fit(X, y)
    assert model.euclidean_fallback_ and model.beta_path_.shape[0] == 0
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(), np.eye(20))


def test_auto_impostors_learn_a_metric_where_the_nearest_ones_cannot():
    # 100 overlapping classes of 21 training points: each point's 10 nearest
    # impostors all lie closer than its 3 targets in every direction, no
    # element lowers the loss, and the Euclidean metric is kept, with a
    # warning that names the cause. k_impostor='auto' spreads the 10 over
    # the 100 nearest, which reach the targets' scale (3-NN errors of
    # 0.824-0.836 on three such sets, against the Euclidean 0.886-0.900).
    X, y = make_classification(n_samples=3000, n_features=20, n_informative=10,
                               n_redundant=4, n_classes=100,
                               n_clusters_per_class=1, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    with pytest.warns(UserWarning, match=r"Euclidean metric is kept.*a "
                      r"larger k_impostor, such as the number of classes"):
        nearest = SCML_Supervised(k_impostor=10, random_state=0).fit(
            X_train, y_train)
    assert nearest.euclidean_fallback_
    model = SCML_Supervised(random_state=0).fit(X_train, y_train)
    assert not model.euclidean_fallback_
    # (Measured 0.824 against 0.886 on 900 test points: over four paired
    # standard errors.)
    assert knn_error(model.transform(X_train), y_train,
                     model.transform(X_test), y_test) < knn_error(
        X_train, y_train, X_test, y_test) - 0.02
