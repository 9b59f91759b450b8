"""Tests of SCML-Local: embedding, solver, estimators and per-point interface."""

import inspect
import pickle
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.decomposition import KernelPCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.neighbors import KNeighborsClassifier

from metric_learn_scml import (LocalSCML, LocalSCML_Supervised,
                               MetricKNeighborsClassifier, SCML_Supervised)
import metric_learn_scml._local as embedding_module
from metric_learn_scml._local import (KernelPCAEmbedding, _squared_distances,
                                      forward_backward, local_hinge_gradient,
                                      local_kkt_residual, local_objective,
                                      local_weights, oriented_pairs)
import metric_learn_scml._local as local_solver
from metric_learn_scml._problem import SquaredDifferences, pair_index
from metric_learn_scml._triplets import triplets_from_labels

# Short solver schedules keep these tests fast; whether a fit converges is
# asserted where it matters (pytest.warns, or warnings turned into errors).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

# Both stages' beta pinned at the paper's value: these tests are about the
# solvers and the local model, not about choosing beta (test_scml covers
# 'auto'; the global_beta tests below, its use by the local model).
FAST = dict(beta=1e-5, global_beta=None, max_iter=2000, output_iter=100,
            random_state=0)


@pytest.fixture(scope="module")
def iris_model(iris):
    X, y = iris
    model = LocalSCML_Supervised(embedding_dim=10, **FAST).fit(X, y)
    # On iris the triplets of held-out points turn the local stage down
    # (A = 0 stays); the tests of this fixture are about the methods of a
    # metric that varies, so A is given one.
    assert not model.coef_.any()
    # and the record says so (a user would otherwise see no difference)
    assert model.fit_stages_[-1]["stage"] == "global metric kept"
    assert "held-out triplets" in model.fit_stages_[-1]["reason"]
    model.coef_ = 0.1 * np.random.RandomState(0).randn(
        *model.coef_.shape) * model.intercept_
    return model


def two_regions(n_samples, random_state):
    """Left half: the class is in feature 1; right half: in feature 2.

    Features 1 and 2 are swapped between the halves in relevance, so no
    single metric suits both, while a local one does.
    """
    rng = np.random.RandomState(random_state)
    side = rng.uniform(-1, 1, n_samples)
    noise = rng.uniform(-1, 1, (n_samples, 2))
    label_feature = np.where(side < 0, noise[:, 0], noise[:, 1])
    y = (label_feature > 0).astype(int) + 2 * (side > 0)
    # The irrelevant feature of each half is stretched so that Euclidean and
    # global neighbours are dominated by it.
    X = np.column_stack([side, noise[:, 0] * np.where(side < 0, 0.3, 3.0),
                         noise[:, 1] * np.where(side < 0, 3.0, 0.3)])
    return X, y


# --------------------------------------------------------------------------
# Kernel PCA embedding
# --------------------------------------------------------------------------


def test_embedding_matches_kernel_pca_and_median_bandwidth():
    rng = np.random.RandomState(0)
    X, X_new = rng.randn(80, 5), rng.randn(20, 5)
    embedding = KernelPCAEmbedding(6, random_state=0).fit(X)
    distances = euclidean_distances(X)[np.triu_indices(80, 1)]
    assert embedding.bandwidth_ == pytest.approx(np.median(distances))
    reference = KernelPCA(6, kernel="rbf", gamma=0.5 / embedding.bandwidth_ ** 2,
                          eigen_solver="dense").fit(X)
    signs = np.sign((embedding.embedding_ * reference.transform(X)).sum(0))
    np.testing.assert_allclose(embedding.embedding_ * signs,
                               reference.transform(X), atol=1e-8)
    np.testing.assert_allclose(embedding.transform(X_new) * signs,
                               reference.transform(X_new), atol=1e-8)
    # The training rows are the embedding of the training points, centred.
    np.testing.assert_allclose(embedding.transform(X), embedding.embedding_,
                               atol=1e-10)
    np.testing.assert_allclose(embedding.embedding_.mean(0), 0, atol=1e-10)


def test_embedding_arpack_path_matches_dense():
    # Above 600 points the top eigenpairs come from ARPACK in single
    # precision: the embedding must agree with the exact one to 1e-5.
    X = np.random.RandomState(1).randn(700, 3)
    embedding = KernelPCAEmbedding(5, random_state=0).fit(X)
    reference = KernelPCA(5, kernel="rbf", gamma=0.5 / embedding.bandwidth_ ** 2,
                          eigen_solver="dense").fit(X)
    exact = reference.transform(X[:50])
    signs = np.sign((embedding.embedding_[:50] * exact).sum(0))
    scale = np.abs(exact).max()
    np.testing.assert_allclose(embedding.embedding_[:50] * signs, exact,
                               atol=1e-5 * scale)
    np.testing.assert_allclose(embedding.transform(X[:50]) * signs, exact,
                               atol=1e-5 * scale)


@pytest.mark.parametrize("block_elements", [1 << 21, 50])  # one block, many
def test_squared_distances_in_blocks(monkeypatch, block_elements):
    # A test of the private blocking itself: many blocks need a block size
    # no public parameter sets (16 MiB of distances per block).
    monkeypatch.setattr(embedding_module, "DISTANCE_BLOCK_ELEMENTS",
                        block_elements)
    X = np.random.RandomState(2).randn(37, 4)
    expected = euclidean_distances(X, squared=True)
    found = _squared_distances(X, np.float64)
    assert found.dtype == np.float64 and np.all(np.diag(found) == 0)
    # (Both expand ||x||^2 + ||y||^2 - 2 x.y: rounding of the norms.)
    np.testing.assert_allclose(found, expected,
                               atol=1e-13 * np.abs(expected).max())
    single = _squared_distances(X, np.float32)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=1e-6, atol=1e-6)


def test_embedding_with_fewer_samples_than_components():
    X = np.random.RandomState(0).randn(6, 3)
    embedding = KernelPCAEmbedding(40).fit(X)
    assert embedding.n_components_ == 5
    assert np.isfinite(embedding.transform(np.random.randn(4, 3))).all()
    # Coinciding points: no variance, no component, no NaN.
    flat = KernelPCAEmbedding(3).fit(np.ones((4, 3)))
    assert flat.n_components_ == 0
    assert flat.transform(np.zeros((2, 3))).shape == (2, 0)


# --------------------------------------------------------------------------
# Solver pieces
# --------------------------------------------------------------------------


def test_local_hinge_gradient_matches_finite_differences():
    rng = np.random.RandomState(0)
    n_triplets, n_dims, n_basis = 40, 4, 6
    coef = rng.randn(n_dims + 1, n_basis)
    anchor_embedding = np.column_stack([rng.randn(n_triplets, n_dims),
                                        np.ones(n_triplets)])
    gaps = rng.randn(n_triplets, n_basis)
    loss, gradient = local_hinge_gradient(coef, anchor_embedding, gaps)
    roots = anchor_embedding @ coef
    margins = 1 + (roots ** 2 * gaps).sum(1)
    assert loss == pytest.approx(np.maximum(margins, 0).mean())
    # Away from the kinks of the hinge, central differences are exact to
    # O(h^2).
    assert np.abs(margins).min() > 1e-3
    numeric = np.empty_like(coef)
    h = 1e-6
    for index in np.ndindex(*coef.shape):
        step = np.zeros_like(coef)
        step[index] = h
        numeric[index] = (local_hinge_gradient(coef + step, anchor_embedding,
                                               gaps)[0]
                          - local_hinge_gradient(coef - step,
                                                 anchor_embedding, gaps)[0]
                          ) / (2 * h)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-7)


def test_local_kkt_residual_is_the_gradient_of_the_objective(iris,
                                                            monkeypatch):
    # At non-zero columns, away from the hinge's kinks, F = f + beta *
    # sum_k ||A_k|| is differentiable and the residual is the largest
    # column norm of its gradient: central differences of F itself (the
    # penalty included, so a sign error on either term shows).
    X, y = iris
    rng = np.random.RandomState(1)
    triplets = triplets_from_labels(X, y)[::7]
    basis = rng.randn(5, 4)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    embedding = np.column_stack([rng.randn(X.shape[0], 2),
                                 np.ones(X.shape[0])])
    coef = 0.3 * rng.randn(3, 5)
    coef[:, 2] = 0.0
    beta = 0.05
    P = X @ basis.T
    gaps = ((P[triplets[:, 0]] - P[triplets[:, 1]]) ** 2
            - (P[triplets[:, 0]] - P[triplets[:, 2]]) ** 2)
    anchors = embedding[triplets[:, 0]]

    def objective(c):
        margins = 1 + ((anchors @ c) ** 2 * gaps).sum(1)
        return (np.maximum(margins, 0).mean()
                + beta * np.linalg.norm(c, axis=0).sum())

    margins = 1 + ((anchors @ coef) ** 2 * gaps).sum(1)
    assert np.abs(margins).min() > 1e-3
    numeric = np.zeros_like(coef)
    h = 1e-6
    for index in np.ndindex(*coef.shape):
        if index[1] == 2:
            continue
        step = np.zeros_like(coef)
        step[index] = h
        numeric[index] = (objective(coef + step)
                          - objective(coef - step)) / (2 * h)
    expected = np.linalg.norm(numeric, axis=0).max()
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(P, pairs, max_bytes=0)
    # Several blocks of triplets, summed: a test of the private blocking,
    # whose 1 MiB blocks a problem small enough to differentiate fills once.
    monkeypatch.setattr(local_solver, "chunk_rows", lambda n_columns: 7)
    residual = local_kkt_residual(differences, triplet_pairs, triplets[:, 0],
                                  embedding, coef, beta)
    assert residual == pytest.approx(expected, rel=1e-5)
    # No live column: nothing to violate.
    assert local_kkt_residual(differences, triplet_pairs, triplets[:, 0],
                              embedding, np.zeros_like(coef), beta) == 0.0


def test_fitted_kkt_residual_is_in_the_users_units(iris):
    # The fit computes it at unit scale; recomputed on the user's data (here
    # far from unit scale) and parameters it is the same number.
    X, y = iris
    X = 37.0 * X
    model = LocalSCML_Supervised(embedding_dim=10, **FAST).fit(X, y)
    triplets = triplets_from_labels(X, y, model.k_genuine, model.k_impostor)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ model.basis_.T, pairs, max_bytes=0)
    embedding = np.column_stack([model.embedding_.embedding_,
                                 np.ones(X.shape[0])])
    coef = np.vstack([model.coef_, model.intercept_])
    expected = local_kkt_residual(differences, triplet_pairs, triplets[:, 0],
                                  embedding, coef, model.beta_)
    assert model.kkt_residual_ > 0
    assert model.kkt_residual_ == pytest.approx(expected, rel=1e-6)


def test_local_objective_agrees_with_per_triplet_loss(iris):
    X, y = iris
    rng = np.random.RandomState(0)
    triplets = triplets_from_labels(X, y)
    basis = rng.randn(7, 4)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    embedding = np.column_stack([rng.randn(X.shape[0], 3),
                                 np.ones(X.shape[0])])
    coef = rng.randn(4, 7)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs)
    couples, triplet_couples = oriented_pairs(triplets[:, 0], triplet_pairs)
    total, loss = local_objective(differences, couples, triplet_couples,
                                  embedding, coef, beta=0.1)
    P = X @ basis.T
    gaps = ((P[triplets[:, 0]] - P[triplets[:, 1]]) ** 2
            - (P[triplets[:, 0]] - P[triplets[:, 2]]) ** 2)
    expected = local_hinge_gradient(coef, embedding[triplets[:, 0]], gaps)[0]
    assert loss == pytest.approx(expected, rel=1e-5)
    assert total == pytest.approx(
        expected + 0.1 * np.linalg.norm(coef, axis=0).sum(), rel=1e-5)


# --------------------------------------------------------------------------
# The estimators
# --------------------------------------------------------------------------


@pytest.mark.parametrize("global_beta", [None, "auto"])
def test_zero_coef_is_the_global_model(iris, iris_model, global_beta):
    # The global stage is SCML_Supervised at global_beta (None: at beta)
    X, y = iris
    model = clone(iris_model).set_params(global_beta=global_beta).fit(X, y)
    parameters = {name: value for name, value in model.get_params().items()
                  if name in SCML_Supervised().get_params()}
    if global_beta is not None:
        parameters["beta"] = global_beta
    global_model = SCML_Supervised(**parameters).fit(X, y)
    assert model.global_beta_ == global_model.beta_
    assert model.beta_ == 1e-5
    np.testing.assert_array_equal(model.global_weights_, global_model.weights_)
    model.coef_ = np.zeros_like(model.coef_)
    model.intercept_ = np.sqrt(model.global_weights_)
    reference = euclidean_distances(global_model.transform(X))
    np.testing.assert_allclose(model.pairwise_distances(X), reference,
                               atol=1e-6)
    np.testing.assert_allclose(model.get_mahalanobis_matrix(X[7]),
                               global_model.get_mahalanobis_matrix(),
                               atol=1e-10)


def test_training_objective_never_worse_than_global_start(iris):
    X, y = iris
    triplets = triplets_from_labels(X, y)
    # A reasonable step improves on the start; a wild one diverges, and the
    # start (the global solution) is kept.
    for learning_rate in (0.5, 1e4):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = LocalSCML_Supervised(embedding_dim=8,
                                         learning_rate=learning_rate,
                                         **FAST).fit(X, y)
        start = model.training_objective(
            X, triplets, coef=np.zeros_like(model.coef_),
            intercept=np.sqrt(model.global_weights_))
        assert start == pytest.approx(model.start_objective_)
        assert model.training_objective(X, triplets) == pytest.approx(
            model.objective_)
        assert model.objective_ <= model.start_objective_
        assert np.isfinite(model.pairwise_distances(X)).all()
    assert model.objective_ == model.start_objective_
    assert not model.coef_.any()
    assert any("diverged" in str(w.message) for w in caught)
    assert not any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_local_metric_beats_global_where_relevance_changes():
    X, y = two_regions(400, random_state=0)
    X_test, y_test = two_regions(400, random_state=1)
    errors = {}
    for name, learner in (("global", SCML_Supervised(random_state=0)),
                          ("local", LocalSCML_Supervised(embedding_dim=10,
                                                         learning_rate=0.5,
                                                         random_state=0))):
        knn = MetricKNeighborsClassifier(learner).fit(X, y)
        errors[name] = 1 - knn.score(X_test, y_test)
    errors["euclidean"] = 1 - KNeighborsClassifier(3).fit(X, y).score(
        X_test, y_test)
    assert errors["local"] < errors["global"] - 0.02
    assert errors["local"] < errors["euclidean"] - 0.02


def test_local_metrics_vary_and_are_smooth(iris, iris_model):
    X, _ = iris
    weights = iris_model.local_weights(X)
    assert weights.shape == (X.shape[0], iris_model.basis_.shape[0])
    assert (weights >= 0).all()
    # Different points get different metrics ...
    spread = np.abs(weights - weights.mean(0)).mean()
    assert spread > 1e-3 * weights.mean()
    # ... and nearby points nearly the same: the change over a step of 1e-3
    # is tiny against the change to a random other point.
    rng = np.random.RandomState(0)
    nudged = X + 1e-3 * rng.randn(*X.shape)
    near = np.abs(iris_model.local_weights(nudged) - weights).mean()
    far = np.abs(weights[rng.permutation(X.shape[0])] - weights).mean()
    assert near < 0.01 * far


def test_per_point_metrics_are_consistent(iris, iris_model):
    X, _ = iris
    metrics = iris_model.get_mahalanobis_matrix(X[:5])
    assert metrics.shape == (5, 4, 4)
    assert iris_model.get_mahalanobis_matrix(X[2]).shape == (4, 4)
    np.testing.assert_allclose(metrics[2],
                               iris_model.get_mahalanobis_matrix(X[2]))
    # exactly symmetric, as the global and per-task matrices are
    np.testing.assert_array_equal(metrics, metrics.transpose(0, 2, 1))
    assert np.linalg.eigvalsh(metrics).min() > -1e-10
    differences = X[:5, None, :] - X[None, :, :]
    expected = np.sqrt(np.einsum("ijd,ide,ije->ij", differences, metrics,
                                 differences))
    distances = iris_model.pairwise_distances(X[:5], X)
    np.testing.assert_allclose(distances, expected, rtol=1e-6, atol=1e-6)
    # Y=None: the same distances, with the diagonal exactly 0
    own = iris_model.pairwise_distances(X[:5])
    assert np.all(np.diag(own) == 0)
    np.testing.assert_allclose(iris_model.pairwise_distances(X[:5], X[:5]),
                               own, atol=1e-6)
    pairs = np.stack([X[:5], X[10:15]], axis=1)
    np.testing.assert_allclose(iris_model.pair_distance(pairs),
                               expected[np.arange(5), np.arange(10, 15)],
                               rtol=1e-6)
    np.testing.assert_allclose(iris_model.pair_score(pairs),
                               -iris_model.pair_distance(pairs))
    # The first point's metric: swapping the pair changes the distance.
    swapped = iris_model.pair_distance(pairs[:, ::-1])
    assert not np.allclose(swapped, iris_model.pair_distance(pairs))
    metric = iris_model.get_metric()
    assert metric(X[0], X[10]) == pytest.approx(expected[0, 10])
    assert metric(X[0], X[10], squared=True) == pytest.approx(
        expected[0, 10] ** 2)


def test_metric_function_names_a_length_mismatch(iris_model, iris):
    # numpy said "all input arrays must have the same shape".
    X, _ = iris
    metric = iris_model.get_metric()
    with pytest.raises(ValueError, match="metric of LocalSCML_Supervised "
                       "takes two points of 4 features: got u with 4 and v "
                       "with 3"):
        metric(X[0], X[1, :3])


def test_pairwise_distances_names_a_bad_y(iris_model, iris):
    # (A NaN or a feature count of Y was reported as X's.)
    X, _ = iris
    Y = X[:3].copy()
    Y[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input Y contains NaN"):
        iris_model.pairwise_distances(X[:5], Y)
    with pytest.raises(ValueError, match="Y has 3 features, but "
                       "LocalSCML_Supervised is expecting 4"):
        iris_model.pairwise_distances(X[:5], X[:3, :3])


def test_pairwise_distances_refuses_a_squared_that_is_not_a_bool(
        iris_model, iris):
    # (Any truthy value, the string 'False' included, meant squared.)
    with pytest.raises(TypeError, match="squared must be a bool, got "
                       "'False'"):
        iris_model.pairwise_distances(iris[0][:2], squared="False")


def test_transform_explains_what_to_use(iris_model, iris):
    with pytest.raises(AttributeError, match="pairwise_distances"):
        iris_model.transform(iris[0])
    # Not a transformer to scikit-learn either.
    assert not hasattr(iris_model, "transform")
    assert not hasattr(LocalSCML_Supervised(), "transform")


def test_metric_without_points_says_to_pass_them(iris_model):
    # metric-learn's global learners take no argument; a local metric
    # needs the points it is taken at.
    with pytest.raises(TypeError, match=r"every point.*get_mahalanobis_matrix\(X\)"):
        iris_model.get_mahalanobis_matrix()
    with pytest.raises(NotFittedError):
        LocalSCML_Supervised().get_mahalanobis_matrix()


def test_triplet_learner_predicts_with_the_anchor_metric():
    X, y = two_regions(200, random_state=0)
    triplets = X[triplets_from_labels(X, y)]
    model = LocalSCML(embedding_dim=6, learning_rate=0.5, **FAST).fit(triplets)
    decision = model.decision_function(triplets[:50])
    anchors, positives, negatives = (triplets[:50, i] for i in range(3))
    expected = (model.pair_distance(np.stack([anchors, negatives], 1))
                - model.pair_distance(np.stack([anchors, positives], 1)))
    np.testing.assert_allclose(decision, expected)
    np.testing.assert_array_equal(model.predict(triplets[:50]),
                                  np.where(expected >= 0, 1, -1))
    assert model.score(triplets) > 0.8
    assert model.objective_ <= model.start_objective_


def test_preprocessor_indices(iris):
    X, y = iris
    model = LocalSCML_Supervised(embedding_dim=5, preprocessor=X,
                                 **FAST).fit(np.arange(150), y)
    reference = LocalSCML_Supervised(embedding_dim=5, **FAST).fit(X, y)
    np.testing.assert_allclose(model.pairwise_distances(np.arange(3)),
                               reference.pairwise_distances(X[:3]))
    assert model.get_mahalanobis_matrix(np.arange(3)).shape == (3, 4, 4)


def test_verbose_prints_the_local_table(iris, capsys):
    X, y = iris
    LocalSCML_Supervised(embedding_dim=4, verbose=True, **FAST).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("[LocalSCML_Supervised]") > 6
    assert "Objective" in out


def test_clone_and_pickle(iris, iris_model):
    X, _ = iris
    restored = pickle.loads(pickle.dumps(iris_model))
    np.testing.assert_array_equal(restored.pairwise_distances(X[:4]),
                                  iris_model.pairwise_distances(X[:4]))
    params = clone(iris_model).get_params()
    assert params["embedding_dim"] == 10


def test_tiny_features_are_fitted_and_evaluated_at_unit_scale(iris):
    # The local stage and training_objective work on the data at unit
    # scale and give [A; c] in the user's units: at 1e-20 the objective
    # evaluated on the user's data underflowed to NaN with RuntimeWarnings.
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = LocalSCML_Supervised(**{**FAST, "beta": 0.0},
                                     embedding_dim=10).fit(X * 1e-20, y)
        value = model.training_objective(X * 1e-20,
                                         triplets_from_labels(X, y))
    assert model.n_active_basis_ > 0
    assert value == pytest.approx(model.objective_, rel=1e-6)
    assert model.objective_ <= model.start_objective_ < 1


def test_local_stage_without_any_element_warns_with_the_fix(iris):
    # The global stage keeps elements but the local one drops them all:
    # the zero metric (chance-level k-NN) came with no warning.
    X, y = iris
    # Triplets anchored at held-out points turn that model down (every
    # distance 0 orders none of them), so the start stays; on one point
    # nothing can be held out, and the zero metric warns.
    model = LocalSCML_Supervised(**{**FAST, "beta": 2.0},
                                 embedding_dim=10).fit(X, y)
    assert model.n_active_basis_ == np.count_nonzero(model.global_weights_)
    assert model.objective_ == model.start_objective_
    with pytest.warns(UserWarning, match="local stage kept no basis element"
                                         ".*beta=2 is too large.*decrease"):
        # (The first 30 triplets share their anchor, the first point.)
        model = LocalSCML(**{**FAST, "beta": 2.0}, embedding_dim=10).fit(
            X[triplets_from_labels(X, y)[:30]])
    assert model.global_weights_.any() and model.n_active_basis_ == 0


def test_global_stage_defaults_follow_the_global_learner():
    local = inspect.signature(LocalSCML_Supervised).parameters
    for name, parameter in inspect.signature(SCML_Supervised).parameters.items():
        # The global stage's beta is global_beta; beta is the local
        # stage's penalty (on the roots of the weights), at the paper's
        # value. A local metric has no linear embedding to truncate, and
        # the local learners no partial_fit.
        if name not in ("beta", "n_components", "partial_fit_memory"):
            assert local[name].default == parameter.default, name
    assert local["global_beta"].default == parameter_default(
        SCML_Supervised, "beta")
    assert local["beta"].default == 1e-5


def parameter_default(cls, name):
    return inspect.signature(cls).parameters[name].default


def test_small_data_caps_the_embedding():
    X = np.array([[0.0, 0], [0.1, 0], [1, 1], [1.1, 1], [0, 1.1], [0.1, 1]])
    y = np.array([0, 0, 1, 1, 2, 2])
    model = LocalSCML_Supervised(embedding_dim=40, k_genuine=1, k_impostor=2,
                                 **FAST).fit(X, y)
    assert model.embedding_dim_ <= 5
    assert model.coef_.shape == (model.embedding_dim_,
                                 model.basis_.shape[0])
    assert np.isfinite(model.pairwise_distances(X)).all()


@pytest.mark.parametrize("params, error, match", [
    (dict(embedding_dim=0), ValueError, "embedding_dim"),
    (dict(embedding_dim=-3), ValueError, "embedding_dim"),
    (dict(embedding_dim=2.5), TypeError, "embedding_dim"),
    (dict(learning_rate=0.0), ValueError, "learning_rate"),
    (dict(beta=-1.0), ValueError, "beta"),
])
def test_bad_parameters(iris, params, error, match):
    X, y = iris
    with pytest.raises(error, match=match):
        LocalSCML_Supervised(**params).fit(X, y)


def test_bad_data(iris, iris_model):
    X, y = iris
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LocalSCML_Supervised(**FAST).fit(bad, y)
    with pytest.raises(ValueError, match="NaN"):
        iris_model.pairwise_distances(bad)
    with pytest.raises(ValueError, match="single class"):
        LocalSCML_Supervised(**FAST).fit(X, np.zeros(150))
    with pytest.raises(ValueError, match="sample"):
        LocalSCML_Supervised(**FAST).fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="features"):
        iris_model.local_weights(X[:, :3])
    with pytest.raises(ValueError, match="features"):
        iris_model.pair_distance(np.zeros((2, 2, 3)))
    with pytest.raises(NotFittedError):
        LocalSCML_Supervised().local_weights(X)


def test_scikit_learn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator
    results = check_estimator(
        LocalSCML_Supervised(embedding_dim=5, max_iter=300, output_iter=100,
                             random_state=0), on_fail=None)
    failed = [(result["check_name"], result["exception"])
              for result in results if result["status"] == "failed"]
    assert not failed


def test_nystroem_embedding_through_the_estimator(iris):
    X, y = iris
    model = LocalSCML_Supervised(embedding_dim=5, embedding_method="nystroem",
                                 n_landmarks=50, **FAST).fit(X, y)
    assert model.embedding_.method_ == "nystroem"
    assert model.get_mahalanobis_matrix(X[:3]).shape == (3, 4, 4)
    with pytest.raises(ValueError, match="embedding_method"):
        LocalSCML_Supervised(embedding_method="pca").fit(X, y)


def standardised_iris():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_global_beta_auto_is_euclidean_where_held_out_prefers_it(
        pin_auto_beta):
    # Where the held-out points prefer the Euclidean metric to every global
    # model, the model is the Euclidean metric (the coordinate axes, each of
    # weight one, A = 0): the local stage keeps its start, silently.
    X, y = standardised_iris()
    pin_auto_beta(1e-3, euclidean=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = LocalSCML_Supervised(max_iter=300, random_state=0).fit(X, y)
    assert model.euclidean_fallback_ is True
    assert model.beta_path_.shape[0] > 0
    np.testing.assert_array_equal(model.basis_, np.eye(4))
    np.testing.assert_array_equal(model.global_weights_, np.ones(4))
    assert model.coef_.shape[1] == 4 and not model.coef_.any()
    assert model.n_iter_ == 0
    assert "preferred the Euclidean" in model.fit_stages_[-1]["reason"]
    assert model.objective_ == model.start_objective_
    # (The triplets of 150 points are the k nearest: no draw.)
    start = model.training_objective(
        X, triplets_from_labels(X, y, 3, 10, random_state=0),
        coef=np.zeros_like(model.coef_), intercept=np.ones(4))
    assert start == pytest.approx(model.start_objective_, rel=1e-6)
    assert model.global_n_iter_ == 0 and np.isnan(model.global_objective_)
    np.testing.assert_allclose(model.pairwise_distances(X),
                               euclidean_distances(X), atol=1e-9)


def test_global_beta_auto_never_starts_from_a_zero_metric(pin_auto_beta):
    # A chosen beta whose global model keeps no element (KEEL marketing,
    # where the impostors are as near as the targets) left the local stage
    # at its zero start, a stationary point it cannot leave: every distance
    # was 0. It now starts from the Euclidean metric, without a warning.
    X, y = standardised_iris()
    pin_auto_beta(1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LocalSCML_Supervised(max_iter=300, random_state=0).fit(X, y)
    assert model.global_beta_ == 1e6 and model.beta_ == 1e-5
    assert model.euclidean_fallback_ is True
    # The attributes describe the Euclidean start, not the discarded solve
    assert model.global_n_iter_ == 0 and np.isnan(model.global_objective_)
    assert model.n_active_basis_ > 0
    assert np.all(model.pairwise_distances(X[:5], X[5:10]) > 0)
    # This fallback is no verdict on learned metrics: the local stage runs.
    assert model.coef_.any() and model.n_iter_ > 0
    assert "global metric kept" not in [stage["stage"]
                                        for stage in model.fit_stages_]
    # A beta the user gives is kept, with the warning naming it.
    with pytest.warns(UserWarning, match="zero.*global_beta=1e"):
        given = LocalSCML_Supervised(global_beta=1e6, max_iter=300,
                                     random_state=0).fit(X, y)
    assert given.euclidean_fallback_ is False
    assert given.pairwise_distances(X).max() == 0
    # A refit at another global_beta leaves the fallback behind
    given.set_params(global_beta=None).fit(X, y)
    assert given.euclidean_fallback_ is False
    assert given.basis_.shape[0] > 4 and given.global_weights_.any()


def test_global_beta_auto_falls_back_where_the_start_merges_points(
        pin_auto_beta):
    # 3 discrete features: a chosen beta whose few elements map distinct
    # training points onto one starts the local stage from the Euclidean
    # metric, as SCML_Supervised returns it.
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.randint(0, 4, 700), rng.randint(0, 3, 700),
                         rng.randint(0, 3, 700)]).astype(float)
    y = (X[:, 0] >= 2).astype(int) ^ (rng.rand(700) < 0.25)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    pin_auto_beta(0.03)
    linear = SCML_Supervised(random_state=0).fit(X, y)
    assert linear.euclidean_fallback_
    model = LocalSCML_Supervised(embedding_dim=5, max_iter=300,
                                 random_state=0).fit(X, y)
    assert model.euclidean_fallback_
    np.testing.assert_array_equal(model.basis_, np.eye(3))
    # The same global beta given never falls back: the start it replaced.
    kept = LocalSCML_Supervised(global_beta=0.03, embedding_dim=5,
                                max_iter=300, random_state=0).fit(X, y)
    assert not kept.euclidean_fallback_ and kept.basis_.shape[0] > 3


def test_global_beta_sets_the_global_stage_alone(iris):
    X, y = iris
    model = LocalSCML_Supervised(**{**FAST, "global_beta": 1e-3},
                                 embedding_dim=5).fit(X, y)
    assert (model.global_beta_, model.beta_) == (1e-3, 1e-5)
    reference = SCML_Supervised(beta=1e-3, max_iter=2000, output_iter=100,
                                random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.global_weights_, reference.weights_)
    # beta='auto': the local stage's beta follows from the global stage's
    both = LocalSCML_Supervised(**{**FAST, "beta": "auto",
                                   "global_beta": 1e-3},
                                embedding_dim=5).fit(X, y)
    active = both.global_weights_[both.global_weights_ > 0]
    assert both.global_beta_ == 1e-3
    assert both.beta_ == pytest.approx(2e-3 * np.median(np.sqrt(active)))
    # From triplets: a float or None, never 'auto' (no labels to score)
    triplets = X[triplets_from_labels(X, y, 3, 10, random_state=0)]
    weak = LocalSCML(global_beta=1e-3, embedding_dim=5, max_iter=300,
                     random_state=0).fit(triplets)
    assert (weak.global_beta_, weak.beta_) == (1e-3, 1e-5)
    with pytest.raises(ValueError, match="global_beta"):
        LocalSCML(global_beta="auto").fit(triplets)
    with pytest.raises(ValueError, match="global_beta"):
        LocalSCML_Supervised(global_beta=-1.0).fit(X, y)


def test_a_pandas_row_keeps_its_feature_names():
    # df.iloc[i] is a Series: its metric is the row's, with no warning
    # about feature names (a fit on a DataFrame records them)
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True, as_frame=True)
    X = (X - X.mean()) / X.std()
    model = LocalSCML_Supervised(max_iter=300, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        metric = model.get_mahalanobis_matrix(X.iloc[3])
    np.testing.assert_allclose(metric,
                               model.get_mahalanobis_matrix(X.iloc[3:4])[0])
    assert isinstance(X.iloc[3], pd.Series)


def test_embedding_is_the_same_in_any_units():
    # The kernel was exp(-d**2 / median d): data in other units gave
    # another embedding.
    rng = np.random.RandomState(0)
    X, X_new = rng.randn(80, 5), rng.randn(20, 5)
    unit = KernelPCAEmbedding(6, random_state=0).fit(X)
    scaled = KernelPCAEmbedding(6, random_state=0).fit(100.0 * X)
    signs = np.sign((unit.embedding_ * scaled.embedding_).sum(0))
    np.testing.assert_allclose(scaled.transform(100.0 * X_new) * signs,
                               unit.transform(X_new), atol=1e-8)


def test_new_points_get_weights_as_varied_as_the_training_points():
    # On standardised data in 50 dimensions the old kernel was about
    # exp(-10) between typical points: every new point got nearly the same
    # embedding (weight spread 0.005 against 0.33 on the training points).
    rng = np.random.RandomState(0)
    X, X_new = rng.randn(200, 50), rng.randn(100, 50)
    embedding = KernelPCAEmbedding(10, random_state=0).fit(X)
    spread_train = embedding.embedding_.std(axis=0).mean()
    spread_new = embedding.transform(X_new).std(axis=0).mean()
    assert spread_new > 0.3 * spread_train


def test_auto_local_beta_gives_the_same_model_in_any_units(wine_split):
    # beta='auto' was the global stage's beta, which scales as the square
    # of the data while the local penalty acts on roots that scale as the
    # data: on wine times 1000 the local stage kept no element and 44 % of
    # the predictions matched.
    X_train, X_test, y_train, _ = wine_split
    predictions = []
    for scale in (1.0, 1000.0):
        model = MetricKNeighborsClassifier(LocalSCML_Supervised(
            beta="auto", embedding_dim=8, max_iter=2000, random_state=0))
        predictions.append(model.fit(scale * X_train, y_train).predict(
            scale * X_test))
        local = model.estimator_
        assert local.beta_ == pytest.approx(2 * local.global_beta_ * np.median(
            np.sqrt(local.global_weights_[local.global_weights_ > 0])))
    assert np.mean(predictions[0] == predictions[1]) > 0.95


def test_training_objective_refuses_indices_outside_the_points(iris, iris_model):
    X, _ = iris
    assert np.isfinite(iris_model.training_objective(X, [[0, 1, 149]]))
    for bad, match in (([[0, 1, -1]], "0..149; got -1"),
                       ([[0, 1, 150]], "0..149; got 150"),
                       ([[0.0, 1.0, 2.0]], "integer"), ([0, 1, 2], "shape")):
        with pytest.raises(ValueError, match=match):
            iris_model.training_objective(X, bad)


def test_training_objective_takes_the_documented_scalar_coef(iris, iris_model):
    # The docstring's call: coef=0 with intercept=sqrt(global_weights_) is
    # the global start (it raised numpy's concatenation error).
    X, y = iris
    triplets = triplets_from_labels(X, y)
    start = np.sqrt(iris_model.global_weights_)
    documented = iris_model.training_objective(X, triplets, coef=0,
                                               intercept=start)
    assert np.isfinite(documented)
    assert documented == iris_model.training_objective(
        X, triplets, coef=np.zeros_like(iris_model.coef_), intercept=start)
    # A number is broadcast to the intercept's shape too.
    assert iris_model.training_objective(X, triplets, coef=0.0,
                                         intercept=0.5) == \
        iris_model.training_objective(
            X, triplets, coef=np.zeros_like(iris_model.coef_),
            intercept=np.full_like(start, 0.5))


def test_training_objective_names_a_wrong_coef_or_intercept(iris, iris_model):
    X, y = iris
    triplets = triplets_from_labels(X, y)
    coef_shape = re.escape(str(iris_model.coef_.shape))
    n_basis = iris_model.intercept_.shape[0]
    for kwargs, match in (
            (dict(coef=np.zeros((3, 3))),
             r"coef must be a number or an array of shape \(embedding_dim_, "
             r"n_basis\) = %s.*got shape \(3, 3\)" % coef_shape),
            (dict(coef=iris_model.coef_.T),
             r"coef must be .*got shape \(%d, %d\)"
             % iris_model.coef_.T.shape),
            (dict(intercept=np.ones(3)),
             r"intercept must be a number or an array of shape \(n_basis,\) = "
             r"\(%d,\).*got shape \(3,\)" % n_basis),
            (dict(coef=np.full_like(iris_model.coef_, np.nan)),
             "coef contains NaN or infinity"),
            (dict(coef=np.nan), "coef contains NaN or infinity"),
            (dict(intercept=np.full(n_basis, np.inf)),
             "intercept contains NaN or infinity"),
            (dict(coef="0"), "coef must be .*got dtype"),
            (dict(intercept=[[1.0], [1.0, 2.0]]),
             "intercept must be .*ragged")):
        with pytest.raises(ValueError, match=match):
            iris_model.training_objective(X, triplets, **kwargs)


@pytest.fixture(scope="module")
def pair_model(iris):
    """LocalSCML fitted on labelled pairs of iris: ``(model, pairs, y)``."""
    X, y = iris
    index = np.random.RandomState(0).randint(0, X.shape[0], (300, 2))
    labels = np.where(y[index[:, 0]] == y[index[:, 1]], 1, -1)
    model = LocalSCML(embedding_dim=5, **FAST).fit(X[index], labels)
    return model, X[index], labels


@pytest.mark.parametrize("method", ["predict", "decision_function", "score"])
def test_triplet_methods_refuse_pairs_with_the_fix(pair_model, method):
    # A local distance depends on which point of the pair is the anchor:
    # the model is no pair classifier, and says what to use instead (it
    # raised metric-learn's "Tuples of 3 element(s) expected").
    model, pairs, _ = pair_model
    with pytest.raises(ValueError, match=(
            r"LocalSCML\.%s scores triplets .* got pairs .*pair_distance"
            r"\(pairs\) or pair_score\(pairs\)\. To cross-validate a model "
            r"fitted on pairs.*roc_auc_score" % method)):
        getattr(model, method)(pairs)


def test_a_model_fitted_on_pairs_scores_triplets_and_its_pairs_by_pair_score(
        iris, pair_model):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_score
    X, y = iris
    model, pairs, labels = pair_model
    triplets = X[triplets_from_labels(X, y)]
    decision = model.decision_function(triplets)
    expected = (model.pair_distance(triplets[:, [0, 2]])
                - model.pair_distance(triplets[:, [0, 1]]))
    np.testing.assert_allclose(decision, expected)
    np.testing.assert_array_equal(model.predict(triplets),
                                  np.where(expected > 0, 1, -1))
    assert model.score(triplets) == np.mean(expected > 0) > 0.8
    # The cross-validation the message suggests.
    scores = cross_val_score(
        clone(model), pairs, labels, cv=2,
        scoring=lambda model, pairs, y: roc_auc_score(
            y, model.pair_score(pairs)))
    assert scores.min() > 0.8


def test_score_pairs_is_deprecated_as_in_metric_learn(iris, iris_model):
    X, _ = iris
    pairs = np.stack([X[:5], X[5:10]], axis=1)
    with pytest.warns(FutureWarning, match="pair_distance"):
        scores = iris_model.score_pairs(pairs)
    np.testing.assert_array_equal(scores, iris_model.pair_distance(pairs))


def test_data_far_from_the_origin_give_the_local_model_of_centred_data(iris):
    # The kernel embedding and pairwise_distances expand squared distances,
    # which lose an offset's digits (at 1e9 a distance of 0 between
    # distinct points, and 650 % off pair_distance).
    # The reference is the data as stored at that offset, moved back.
    X, y = iris
    X = (X + 1e9) - 1e9
    reference = LocalSCML_Supervised(embedding_dim=5, **FAST).fit(X, y)
    shifted = LocalSCML_Supervised(embedding_dim=5, **FAST).fit(X + 1e9, y)
    pairs = np.stack([X[:20], X[20:40]], axis=1)
    np.testing.assert_allclose(shifted.pair_distance(pairs + 1e9),
                               reference.pair_distance(pairs), rtol=1e-6)
    distances = shifted.pairwise_distances(X[:20] + 1e9, X[20:40] + 1e9)
    np.testing.assert_allclose(np.diag(distances),
                               shifted.pair_distance(pairs + 1e9), rtol=1e-6)


def test_get_metric_keeps_the_metric_of_its_fit(iris):
    X, y = iris
    model = LocalSCML_Supervised(embedding_dim=5, **FAST).fit(X, y)
    metric = model.get_metric()
    before = metric(X[0], X[1])
    model.fit(X[:, ::-1], y)
    assert metric(X[0], X[1]) == before


def test_one_index_gives_one_matrix_with_a_preprocessor(iris):
    X, y = iris
    triplets = triplets_from_labels(X, y)
    model = LocalSCML(preprocessor=X, embedding_dim=5, **FAST).fit(triplets)
    np.testing.assert_array_equal(model.get_mahalanobis_matrix(3),
                                  model.get_mahalanobis_matrix([3])[0])


def test_local_stage_stops_on_held_out_triplets_not_at_max_iter():
    # Noisy 3-class data of 240 points: the training objective kept falling
    # by more than tol, so the rule on it ran to max_iter (and on data of
    # this kind ended 7 points worse than its global start on test points).
    # The held-out triplet error stops improving within a few thousand
    # steps, and that is where the stage stops.
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler
    X, y = make_classification(n_samples=240, n_features=9, n_informative=5,
                               n_redundant=2, n_classes=3, class_sep=0.5,
                               flip_y=0.1, random_state=0)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LocalSCML_Supervised(max_iter=5000, embedding_dim=20,
                                     random_state=0).fit(X, y)
    assert model.n_iter_ < 5000
    held_out_errors = model.objective_history_[:, 1]
    assert 0 <= held_out_errors.min() <= held_out_errors[0] <= 1
    assert model.objective_ <= model.start_objective_


def test_early_stopping_keeps_the_best_held_out_iterate_and_never_the_worse():
    X, y = two_regions(200, random_state=0)
    triplets = triplets_from_labels(X, y)
    pairs, triplet_pairs = pair_index(triplets)
    n_features = X.shape[1]
    differences = SquaredDifferences(X, pairs)     # the basis: the axes
    embedding = np.column_stack([X, np.ones(len(X))])
    start = np.zeros((n_features + 1, n_features))
    start[-1] = 1.0
    held = np.flatnonzero(np.isin(triplets[:, 0], np.arange(0, 200, 5)))

    def held_out_error(coef):
        weights = local_weights(embedding, coef)[triplets[held, 0]]
        near = np.einsum("nk,nk->n", weights, np.square(
            X[triplets[held, 0]] - X[triplets[held, 1]]))
        far = np.einsum("nk,nk->n", weights, np.square(
            X[triplets[held, 0]] - X[triplets[held, 2]]))
        return np.mean(near >= far)

    for learning_rate in (0.5, 1e4):
        result = forward_backward(differences, triplet_pairs, triplets[:, 0],
                                  embedding, start, beta=1e-4,
                                  learning_rate=learning_rate, max_iter=3000,
                                  eval_every=100, random_state=0,
                                  held_out=held)
        values = np.array([h[1] for h in result.history])
        assert values[0] == pytest.approx(held_out_error(start))
        assert result.objective == np.nanmin(values)
        assert held_out_error(result.weights) == pytest.approx(
            result.objective)
    # The wild step blew up; its NaN error stopped it and the start stayed.
    assert np.isnan(values).any()
    np.testing.assert_array_equal(result.weights, start)
