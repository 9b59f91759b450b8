import numpy as np
import pytest
from scipy.spatial.distance import cdist

from metric_learn_scml._triplets import (distinct_rows, pair_index,
                                         triplets_from_labels,
                                         triplets_to_indices)


def brute_force_triplets(X, y, k_genuine, k_impostor):
    distances = cdist(X, X)
    expected = set()
    for i in range(X.shape[0]):
        same = np.flatnonzero((y == y[i]) & (np.arange(len(y)) != i))
        other = np.flatnonzero(y != y[i])
        targets = same[np.argsort(distances[i, same], kind="stable")][:k_genuine]
        impostors = other[np.argsort(distances[i, other],
                                     kind="stable")][:k_impostor]
        expected |= {(i, j, k) for j in targets for k in impostors}
    return expected


def test_triplets_match_brute_force():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    y = rng.randint(0, 3, size=40)
    triplets = triplets_from_labels(X, y, k_genuine=3, k_impostor=5)
    assert triplets.shape[1] == 3
    assert set(map(tuple, triplets)) == brute_force_triplets(X, y, 3, 5)
    assert len(set(map(tuple, triplets))) == len(triplets)


def test_small_classes_use_what_they_have():
    X = np.arange(12, dtype=float).reshape(-1, 1)
    y = np.array([0] * 8 + [1] * 2 + [2] * 1 + [3] * 1)
    triplets = triplets_from_labels(X, y, k_genuine=3, k_impostor=10)
    anchors, counts = np.unique(triplets[:, 0], return_counts=True)
    # class 1 (2 members) has one target each; singletons give no triplets
    assert counts[anchors == 8][0] == 1 * 10
    assert 10 not in anchors and 11 not in anchors
    # class 0 has 4 impostors available only
    assert counts[anchors == 0][0] == 3 * 4
    assert np.all(y[triplets[:, 0]] == y[triplets[:, 1]])
    assert np.all(y[triplets[:, 0]] != y[triplets[:, 2]])


def test_duplicates_never_target_themselves():
    X = np.zeros((6, 2))
    y = np.array([0, 0, 0, 1, 1, 1])
    triplets = triplets_from_labels(X, y, k_genuine=2, k_impostor=2)
    assert np.all(triplets[:, 0] != triplets[:, 1])


def test_single_class_and_all_singletons_raise():
    X = np.random.RandomState(0).randn(5, 2)
    with pytest.raises(ValueError, match="single class"):
        triplets_from_labels(X, np.zeros(5))
    with pytest.raises(ValueError, match="at least two samples"):
        triplets_from_labels(X, np.arange(5))


def test_pair_index_reconstructs_triplets():
    rng = np.random.RandomState(1)
    triplets = rng.randint(0, 30, size=(200, 3))
    pairs, triplet_pairs = pair_index(triplets)
    assert len(np.unique(pairs, axis=0)) == len(pairs)
    assert np.all(pairs[:, 0] <= pairs[:, 1])
    target = pairs[triplet_pairs[:, 0]]
    impostor = pairs[triplet_pairs[:, 1]]
    np.testing.assert_array_equal(np.sort(triplets[:, [0, 1]], axis=1), target)
    np.testing.assert_array_equal(np.sort(triplets[:, [0, 2]], axis=1),
                                  impostor)


def test_pair_index_by_task_groups_each_tasks_distinct_pairs():
    rng = np.random.RandomState(4)
    triplets = rng.randint(0, 12, size=(90, 3))   # tasks share points
    task_offsets = [0, 30, 31, 90]
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, task_offsets)
    assert pair_offsets[0] == 0 and pair_offsets[-1] == len(pairs)
    for t in range(3):
        own = slice(task_offsets[t], task_offsets[t + 1])
        lo, hi = pair_offsets[t], pair_offsets[t + 1]
        # every triplet of the task points into the task's block ...
        assert np.all((triplet_pairs[own] >= lo) & (triplet_pairs[own] < hi))
        # ... which holds exactly the task's distinct pairs
        expected = np.unique(np.sort(np.concatenate(
            [triplets[own][:, [0, 1]], triplets[own][:, [0, 2]]]), axis=1), axis=0)
        np.testing.assert_array_equal(pairs[lo:hi], expected)
    np.testing.assert_array_equal(pairs[triplet_pairs[:, 0]],
                                  np.sort(triplets[:, [0, 1]], axis=1))
    np.testing.assert_array_equal(pairs[triplet_pairs[:, 1]],
                                  np.sort(triplets[:, [0, 2]], axis=1))
    # one task: the ungrouped index
    single = pair_index(triplets, [0, len(triplets)])
    plain = pair_index(triplets)
    np.testing.assert_array_equal(single[0], plain[0])
    np.testing.assert_array_equal(single[1], plain[1])


def test_points_to_indices_round_trip():
    rng = np.random.RandomState(2)
    X = rng.randn(10, 4)
    points = X[rng.randint(0, 10, size=(25, 3))]
    indices, distinct = triplets_to_indices(points)
    np.testing.assert_array_equal(distinct[indices], points)
    assert distinct.shape[0] == len(np.unique(points.reshape(-1, 4), axis=0))


def test_distinct_rows():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    first, inverse = distinct_rows(X)
    assert len(first) == 2
    np.testing.assert_array_equal(X[first][inverse], X)
