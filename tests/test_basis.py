import tracemalloc
import warnings

import numpy as np
import pytest
from scipy.linalg import eigh
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.covariance import ledoit_wolf_shrinkage

import metric_learn_scml._arrays as arrays_module
import metric_learn_scml._triplets as basis_module
from metric_learn_scml._triplets import (REGION_BLOCK_ELEMENTS, RIDGE,
                                         default_n_basis,
                                         discriminant_directions,
                                         distinct_elements, lda_basis)
from metric_learn_scml._triplets import \
    ledoit_wolf_shrinkage as ledoit_wolf_shrinkage_batch
from metric_learn_scml._triplets import (region_blocks, triplet_basis,
                                         triplets_from_labels)


@pytest.mark.parametrize("n_rows", [40, 3])   # direct and Woodbury paths
def test_discriminant_directions_solve_the_generalised_eigenproblem(n_rows):
    rng = np.random.RandomState(0)
    n_features = 5
    # anisotropic, so that the shrinkage is strictly between 0 and 1
    rows = rng.randn(3, n_rows, n_features) * [0.1, 0.3, 1.0, 3.0, 10.0]
    within = np.swapaxes(rows, 1, 2) @ rows
    between = rng.randn(3, n_features, 3)
    directions = discriminant_directions(rows, between, 2)
    assert directions.shape == (6, n_features)
    np.testing.assert_allclose(np.linalg.norm(directions, axis=1), 1)
    for region in range(3):
        # S_w + rho I is proportional to scikit-learn's shrunk scatter
        shrinkage = ledoit_wolf_shrinkage(rows[region], assume_centered=True)
        assert 0 < shrinkage < 1
        ridge = (max(shrinkage / (1 - shrinkage), RIDGE)
                 * np.trace(within[region]) / n_features)
        values, vectors = eigh(between[region] @ between[region].T,
                               within[region] + ridge * np.eye(n_features))
        for rank in range(2):
            expected = vectors[:, -1 - rank]
            expected /= np.linalg.norm(expected)
            found = directions[2 * region + rank]
            assert abs(found @ expected) == pytest.approx(1, abs=1e-6)


@pytest.mark.parametrize("n_rows, n_features", [(12, 40), (3, 5), (200, 6)])
def test_shrinkage_matches_scikit_learn(n_rows, n_features):
    # fewer points than features (the case it is for), and more
    rng = np.random.RandomState(n_rows)
    rows = rng.randn(4, n_rows, n_features) * np.linspace(0.1, 3, n_features)
    expected = [ledoit_wolf_shrinkage(region, assume_centered=True)
                for region in rows]
    np.testing.assert_allclose(ledoit_wolf_shrinkage_batch(rows), expected,
                               rtol=1e-8)


def test_shrinkage_of_a_zero_region_is_zero():
    assert ledoit_wolf_shrinkage_batch(np.zeros((1, 5, 3)))[0] == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shrunk_basis_does_not_overfit_small_high_dimensional_regions(seed):
    # 30 points per class in 60 dimensions, one informative feature: the
    # unshrunk Fisher direction (ridge 1e-3) follows the near-null space of
    # the within scatter (its weight on the feature: 0.41, 0.50, 0.29 for
    # these seeds); the shrunk one follows the feature (0.75, 0.70, 0.76).
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1], 30)
    X = rng.randn(60, 60)
    X[:, 0] += 3 * y
    direction = lda_basis(X, y, n_basis=1, random_state=0)[0]
    assert abs(direction[0]) > 0.65


def test_lda_basis_rows_are_unit_and_discriminative():
    rng = np.random.RandomState(0)
    n = 300
    y = rng.randint(0, 2, size=n)
    X = rng.randn(n, 4)
    X[:, 2] += 3 * y           # only feature 2 separates the classes
    basis = lda_basis(X, y, n_basis=20, random_state=0)
    # regions whose shrunk scatter is isotropic give the same element (the
    # class-mean difference), kept once
    assert 15 <= basis.shape[0] <= 20 and basis.shape[1] == 4
    assert np.all(np.isfinite(basis))
    np.testing.assert_allclose(np.linalg.norm(basis, axis=1), 1)
    # local FDA on 10-20 points per class is noisy, but the separating
    # feature dominates every direction
    weight = np.median(np.abs(basis), axis=0)
    assert weight[2] > 0.75 and weight[2] > 3 * np.delete(weight, 2).max()


def test_lda_basis_regions_smaller_than_dimension():
    # 3 classes of 4 points in 30 dimensions: every region has fewer points
    # than dimensions, and within-class scatter is singular.
    rng = np.random.RandomState(1)
    X = rng.randn(12, 30)
    y = np.repeat([0, 1, 2], 4)
    basis = lda_basis(X, y, n_basis=16, random_state=0)
    assert basis.shape[0] > 0 and np.all(np.isfinite(basis))
    np.testing.assert_allclose(np.linalg.norm(basis, axis=1), 1)


def test_lda_basis_with_duplicate_points_has_no_nan():
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]]), 5, axis=0)
    y = np.repeat([0, 1, 0], 5)
    basis = lda_basis(X, y, n_basis=10, random_state=0)
    assert basis.shape[0] > 0 and np.all(np.isfinite(basis))


@pytest.mark.parametrize("block_bytes", [2 ** 20, 64])  # one block, many
def test_distinct_elements_drops_repeats_up_to_sign(monkeypatch, block_bytes):
    # A test of the private blocking itself (1 MiB blocks otherwise).
    monkeypatch.setattr(arrays_module, "CHUNK_BYTES", block_bytes)
    rng = np.random.RandomState(0)
    # 20 elements, then their repeats past the first block of 16 rows
    rows = rng.randn(20, 4)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    near = rows[1] + 1e-3 * rng.randn(4)        # close, but another element
    near /= np.linalg.norm(near)
    basis = np.vstack([rows, -rows[2], rows[0] * (1 + 1e-13), near, rows[18]])
    kept = distinct_elements(basis)
    np.testing.assert_array_equal(kept, np.vstack([rows, near]))
    # and the outer products of what is dropped are those of a kept row
    outer = np.einsum("ki,kj->kij", basis, basis)
    for dropped in (20, 21, 23):
        assert min(np.abs(outer[dropped] - outer[k]).max()
                   for k in range(20)) < 1e-12


def test_lda_basis_has_no_repeated_element_when_classes_are_small():
    # 11 classes of 12 points: at the scales 10 and 20 points per class the
    # larger takes every point in every region, and those regions all give
    # the same directions. Each must appear once.
    rng = np.random.RandomState(4)
    X = rng.randn(132, 10)
    y = np.repeat(np.arange(11), 12)
    basis = lda_basis(X, y, n_basis=400, random_state=0)
    cosines = np.abs(basis @ basis.T)
    np.fill_diagonal(cosines, 0)
    assert cosines.max() < 1 - 1e-6
    # 20 regions at the smaller scale (up to 10 directions each) and one
    # set of at most 10 directions at the larger
    assert 100 < basis.shape[0] <= 210


def test_triplet_basis_has_no_repeated_element():
    rng = np.random.RandomState(5)
    X = rng.randn(40, 6)
    y = rng.randint(0, 3, 40)
    triplets = triplets_from_labels(X, y, 2, 3)    # fewer than a region's 200
    basis = triplet_basis(X, triplets, n_basis=200, random_state=0)
    cosines = np.abs(basis @ basis.T)
    np.fill_diagonal(cosines, 0)
    assert cosines.max() < 1 - 1e-6


def test_lda_basis_is_reproducible():
    rng = np.random.RandomState(2)
    X, y = rng.randn(80, 3), rng.randint(0, 3, 80)
    np.testing.assert_array_equal(lda_basis(X, y, 30, random_state=3),
                                  lda_basis(X, y, 30, random_state=3))


def test_triplet_basis_finds_the_relevant_direction():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, size=200)
    X = rng.randn(200, 3)
    X[:, 0] += 4 * y
    triplets = triplets_from_labels(X, y, 3, 5)
    basis = triplet_basis(X, triplets, n_basis=24, random_state=0)
    assert basis.shape[1] == 3 and np.all(np.isfinite(basis))
    np.testing.assert_allclose(np.linalg.norm(basis, axis=1), 1)
    # the strongest direction of each region is the separating feature
    strongest = basis[::3]
    assert np.median(np.abs(strongest[:, 0])) > 0.9


def test_default_n_basis():
    assert default_n_basis(4) == 400
    assert default_n_basis(30) == 600
    assert default_n_basis(256) == 1000


@pytest.mark.parametrize("n_features", [4, 120])     # m >= D and m < D
def test_region_blocks_change_no_direction(monkeypatch, n_features):
    rng = np.random.RandomState(n_features)
    X = rng.randn(150, n_features)
    y = rng.randint(0, 3, 150)
    triplets = triplets_from_labels(X, y, 3, 5)
    whole = (lda_basis(X, y, 60, random_state=0),
             triplet_basis(X, triplets, 60, random_state=0))
    # one region per block: a test of the private blocking itself, whose
    # blocks hold 4M elements otherwise
    monkeypatch.setattr(basis_module, "REGION_BLOCK_ELEMENTS", 1)
    blocked = (lda_basis(X, y, 60, random_state=0),
               triplet_basis(X, triplets, 60, random_state=0))
    for before, after in zip(whole, blocked):
        assert before.shape == after.shape
        # Eigenvectors of the same regions in other batch shapes: equal
        # up to eps * norm / eigengap.
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-7)


def test_region_blocks_cover_every_region_once():
    assert list(region_blocks(10, 3, 4)) == [slice(0, 10)]
    blocks = list(region_blocks(1000, 500, 3000))
    covered = np.concatenate([np.arange(1000)[b] for b in blocks])
    np.testing.assert_array_equal(covered, np.arange(1000))
    assert all((b.stop - b.start) * 500 * 3000 <= REGION_BLOCK_ELEMENTS
               for b in blocks)


def test_many_features_basis_peak_is_set_by_the_data():
    # 56 regions of 300 points in 2,000 dimensions: 270 MB per array when
    # all regions were solved at once, for 4.8 MB of data.
    rng = np.random.RandomState(0)
    X = rng.randn(300, 2000)
    y = np.repeat(np.arange(10), 30)
    tracemalloc.start()
    try:
        basis = lda_basis(X, y, 1000, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert basis.shape[1] == 2000
    assert peak < 150e6


def test_region_centres_use_minibatch_kmeans_from_the_threshold():
    X = np.random.RandomState(5).randn(basis_module.MINIBATCH_MIN_SAMPLES, 4)
    below = basis_module.region_centres(X[:-1], 6, random_state=0)
    np.testing.assert_array_equal(below, KMeans(
        6, n_init=1, random_state=0).fit(X[:-1]).cluster_centers_)
    above = basis_module.region_centres(X, 6, random_state=0)
    np.testing.assert_array_equal(above, MiniBatchKMeans(
        6, n_init=1, random_state=0).fit(X).cluster_centers_)
    # a basis built on mini-batch regions is a basis
    y = np.random.RandomState(6).randint(0, 3, X.shape[0])
    basis = lda_basis(X, y, 12, random_state=0)
    assert basis.shape[1] == 4
    np.testing.assert_allclose(np.linalg.norm(basis, axis=1), 1)


@pytest.mark.parametrize("n_rows, n_features, n_columns", [
    (40, 5, 8), (8, 6, 10),          # the n_columns x n_columns form
    (40, 5, 30), (8, 6, 20)])        # many classes: the D x D form
def test_discriminant_directions_solve_the_generalised_problem(
        n_rows, n_features, n_columns):
    # S_b v = lambda (S_w + rho I) v, rho from the Ledoit-Wolf intensity, in
    # either form; both give scipy's leading directions (up to sign).
    from scipy.linalg import eigh

    from metric_learn_scml._triplets import (RIDGE, discriminant_directions,
                                             ledoit_wolf_shrinkage)
    rng = np.random.RandomState(n_columns)
    # Anisotropic within scatter, so that the shrinkage stays below 1.
    rows = rng.randn(3, n_rows, n_features) * np.geomspace(0.1, 3, n_features)
    factor = rng.randn(3, n_features, n_columns) * rng.rand(3, 1, n_columns)
    found = discriminant_directions(rows, factor, 4)
    shrinkage = ledoit_wolf_shrinkage(rows)
    assert shrinkage.max() < 1
    ridge = (np.maximum(shrinkage / np.maximum(1 - shrinkage, 1e-12), RIDGE)
             * np.einsum("rmd,rmd->r", rows, rows) / n_features)
    expected = []
    for region in range(3):
        _, vectors = eigh(factor[region] @ factor[region].T,
                          rows[region].T @ rows[region]
                          + ridge[region] * np.eye(n_features))
        leading = vectors[:, ::-1][:, :min(4, n_features)].T
        expected.append(leading / np.linalg.norm(leading, axis=1, keepdims=True))
    expected = np.concatenate(expected)
    assert found.shape == expected.shape
    np.testing.assert_allclose(np.abs(np.sum(found * expected, axis=1)), 1.0,
                               atol=1e-9)


def test_regions_of_points_distinct_only_in_their_last_digits_warn_nothing():
    # (k-means found fewer distinct clusters than the distinct points, and
    # scikit-learn's ConvergenceWarning named an n_clusters nobody set.)
    from sklearn.datasets import load_iris

    from metric_learn_scml._triplets import region_centres
    X = load_iris().data * [1e6, 1, 1e-6, 1]
    X = X[np.random.RandomState(0).permutation(150)[:100]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        centres = region_centres(X, 100, random_state=0)
    assert centres.shape[1] == 4 and np.isfinite(centres).all()
