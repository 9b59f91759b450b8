"""The Nyström path of SCML-Local's kernel PCA embedding, and the exact one
on repeated points (the exact path is otherwise tested with the local
learners, in test_local.py)."""

import tracemalloc

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.datasets import make_blobs

import metric_learn_scml._local as embedding_module
from metric_learn_scml._local import (NYSTROEM_MIN_SAMPLES,
                                      KernelPCAEmbedding,
                                      _squared_distances)


def captured_variance(Z, W):
    """Share of the squared norm of Z's columns within W's column span."""
    basis, _ = np.linalg.qr(W)
    return np.linalg.norm(basis.T @ Z) ** 2 / np.linalg.norm(Z) ** 2


def test_nystroem_spans_nearly_the_exact_subspace():
    X, _ = make_blobs(1500, n_features=5, centers=4, random_state=0)
    exact = KernelPCAEmbedding(10, random_state=0, method="exact").fit(X)
    approximate = KernelPCAEmbedding(10, random_state=0, method="nystroem",
                                     n_landmarks=300).fit(X)
    assert approximate.method_ == "nystroem"
    assert approximate.bandwidth_ == pytest.approx(exact.bandwidth_, rel=0.05)
    # the leading components (the blobs) to a fraction of a degree
    angles = subspace_angles(exact.embedding_[:, :3],
                             approximate.embedding_[:, :3])
    assert np.degrees(angles).max() < 2
    assert captured_variance(exact.embedding_, approximate.embedding_) > 0.99


def test_nystroem_embedding_is_its_transform_and_centred():
    rng = np.random.RandomState(0)
    X = rng.randn(400, 3)
    embedding = KernelPCAEmbedding(8, random_state=0, method="nystroem",
                                   n_landmarks=50).fit(X)
    assert embedding.n_components_ == 8
    np.testing.assert_allclose(embedding.transform(X), embedding.embedding_,
                               atol=1e-10)
    np.testing.assert_allclose(embedding.embedding_.mean(axis=0), 0, atol=1e-10)
    # components come out by decreasing variance
    variances = embedding.embedding_.var(axis=0)
    assert np.all(np.diff(variances) <= 1e-12)
    new = embedding.transform(rng.randn(7, 3))
    assert new.shape == (7, 8) and np.isfinite(new).all()


def test_nystroem_with_few_points_and_coinciding_points():
    X = np.random.RandomState(1).randn(6, 3)
    few = KernelPCAEmbedding(40, method="nystroem").fit(X)   # 6 landmarks
    assert few.n_components_ == 5
    flat = KernelPCAEmbedding(3, method="nystroem").fit(np.ones((4, 3)))
    assert flat.n_components_ == 0 and flat.bandwidth_ == 1.0
    assert flat.transform(np.zeros((2, 3))).shape == (2, 0)


def test_auto_is_exact_below_the_threshold():
    X = np.random.RandomState(2).randn(200, 4)
    auto = KernelPCAEmbedding(5, random_state=0).fit(X)
    exact = KernelPCAEmbedding(5, random_state=0, method="exact").fit(X)
    assert auto.method_ == "exact" and 200 < NYSTROEM_MIN_SAMPLES
    np.testing.assert_array_equal(auto.embedding_, exact.embedding_)


def test_auto_above_the_threshold_never_builds_the_n_by_n_kernel():
    n_samples, n_landmarks = NYSTROEM_MIN_SAMPLES, 200
    X = np.random.RandomState(3).randn(n_samples, 4)
    tracemalloc.start()
    try:
        embedding = KernelPCAEmbedding(10, random_state=0,
                                       n_landmarks=n_landmarks).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert embedding.method_ == "nystroem"
    # The n x n kernel alone would be 4 n^2 bytes in single precision, its
    # distances as much again; the Nystroem route holds a few
    # n x n_landmarks arrays in double precision.
    assert peak < 5 * n_samples * n_landmarks * 8


@pytest.mark.parametrize("params, match", [
    (dict(method="kernel"), "method must be"),
    (dict(method="nystroem", n_landmarks=0), "n_landmarks must be"),
    (dict(method="nystroem", n_landmarks=2.5), "n_landmarks must be"),
])
def test_bad_method_or_landmarks_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        KernelPCAEmbedding(3, **params).fit(np.random.RandomState(0).randn(9, 2))


def repeated_points(n_distinct, n_samples, random_state):
    rng = np.random.RandomState(random_state)
    distinct = rng.randn(n_distinct, 3)
    copies = np.concatenate([np.arange(n_distinct), rng.randint(
        0, n_distinct, n_samples - n_distinct)])
    return distinct[rng.permutation(copies)]


def test_weighted_median_is_that_of_all_the_pairs():
    rng = np.random.RandomState(0)
    for counts in ([1, 1, 1], [3, 1, 2, 5], [1, 7], [4]):
        distinct = rng.randn(len(counts), 2)
        X = np.repeat(distinct, counts, axis=0)
        expected = embedding_module._median_pair_distance(
            _squared_distances(X, np.float64))
        assert embedding_module._median_pair_distance(
            _squared_distances(distinct, np.float64),
            np.array(counts)) == pytest.approx(expected, rel=1e-9)


def test_repeated_points_embed_as_their_full_kernel():
    # Above the dense limit, points that are few distinct ones repeated are
    # embedded through the distinct ones: the same bandwidth, eigenvalues
    # and embedding (up to each component's sign) as the n x n kernel.
    n_samples = embedding_module.DENSE_EIGEN_POINTS + 100
    X = repeated_points(40, n_samples, 0)
    fitted = KernelPCAEmbedding(10, random_state=0).fit(X)
    assert fitted.X_fit_.shape[0] == 40
    squared = _squared_distances(X, np.float64)
    bandwidth = embedding_module._median_pair_distance(squared)
    assert fitted.bandwidth_ == pytest.approx(bandwidth, rel=1e-9)
    kernel = np.exp(-squared / (2 * bandwidth ** 2))
    centring = np.eye(n_samples) - 1.0 / n_samples
    eigenvalues, eigenvectors = np.linalg.eigh(centring @ kernel @ centring)
    eigenvalues, eigenvectors = eigenvalues[::-1][:10], eigenvectors[:, ::-1][:, :10]
    expected = eigenvectors * np.sqrt(eigenvalues)
    signs = np.sign(np.sum(expected * fitted.embedding_, axis=0))
    np.testing.assert_allclose(fitted.embedding_ * signs, expected, atol=1e-9)
    np.testing.assert_allclose(fitted.transform(X), fitted.embedding_, atol=1e-9)
    new = np.random.RandomState(1).randn(5, 3)
    rows = np.exp(-_squared_new(new, X) / (2 * bandwidth ** 2)) - kernel.mean(axis=0)
    np.testing.assert_allclose(fitted.transform(new) * signs,
                               rows @ eigenvectors / np.sqrt(eigenvalues),
                               atol=1e-9)


def _squared_new(Y, X):
    return ((Y[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)


def test_repeated_points_embed_the_same_every_time():
    # (ARPACK gave two fits of these points different embeddings.)
    X = repeated_points(14, embedding_module.DENSE_EIGEN_POINTS + 800, 0)
    first = KernelPCAEmbedding(40, random_state=0).fit(X)
    assert first.n_components_ == 13
    for random_state in (0, 1):
        np.testing.assert_array_equal(
            KernelPCAEmbedding(40, random_state=random_state).fit(X).embedding_,
            first.embedding_)
