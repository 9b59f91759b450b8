import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

from metric_learn_scml._triplets import triplets_from_labels

from metric_learn_scml._arrays import (distinct_rows, search_algorithm,
                                      triplets_to_indices)

from metric_learn_scml._problem import pair_index


def brute_force_triplets(X, y, k_genuine, k_impostor, anchors=None,
                         ranks=None):
    """``ranks``: the impostors' ranks among the nearest, else the first
    ``k_impostor``."""
    anchors = np.arange(X.shape[0]) if anchors is None else anchors
    expected = set()
    for i, row in zip(anchors, cdist(X[anchors], X)):
        same = np.flatnonzero((y == y[i]) & (np.arange(len(y)) != i))
        other = np.flatnonzero(y != y[i])
        targets = same[np.argsort(row[same], kind="stable")][:k_genuine]
        ordered = other[np.argsort(row[other], kind="stable")]
        impostors = (ordered[:k_impostor] if ranks is None
                     else ordered[ranks])
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


def test_auto_impostors_spread_where_the_nearest_lie_inside_the_targets():
    # k_impostor='auto', the default: the 10 nearest with 10 classes or
    # fewer. With 25 classes, a class whose anchors mostly have their 10
    # nearest impostors all closer than their 3rd target takes 10 at ranks
    # j * 25 // 10 of their 25 nearest; the other classes the 10 nearest.
    rng = np.random.RandomState(0)
    X = rng.randn(150, 3)
    few = np.arange(150) % 4
    assert set(map(tuple, triplets_from_labels(X, few))) == (
        brute_force_triplets(X, few, 3, 10))
    spread = [0, 2, 5, 7, 10, 12, 15, 17, 20, 22]
    # Overlapping classes spread, and 5 well-separated ones keep the
    # nearest.
    many = np.arange(150) % 25
    X[many < 5] += 100 * rng.randn(5, 3)[many[many < 5]]
    expected = set()
    for c in range(25):
        rows = np.flatnonzero(many == c)
        distances = cdist(X[rows], X)
        reach = np.sort(np.where(many == c, distances, np.inf), axis=1)[:, 3]
        tenth = np.sort(distances[:, many != c], axis=1)[:, 9]
        inside = np.mean(tenth < reach) >= 0.5
        assert inside == (c >= 5)
        expected |= {row for row in brute_force_triplets(
            X, many, 3, 25, ranks=spread if inside else np.arange(10))
            if row[0] in rows}
    triplets = triplets_from_labels(X, many)
    assert triplets.shape[0] == 150 * 3 * 10
    assert set(map(tuple, triplets)) == expected


def test_large_searches_on_many_features_find_the_exact_neighbours():
    # Among 5,000 points or more on more than 8 features the searches
    # compare every pair instead of scikit-learn's k-d tree: still the
    # exact neighbours, and points far from the origin keep the tree.
    rng = np.random.RandomState(0)
    X = rng.randn(10200, 10)
    y = np.repeat([0, 1], 5100)
    anchors = rng.choice(10200, 40, replace=False)
    for offset in (0.0, 1e6):
        assert search_algorithm(X[y == 0] + offset) == (
            "brute" if offset == 0 else "auto")
        triplets = triplets_from_labels(X + offset, y, k_genuine=2,
                                        k_impostor=4, anchors=anchors)
        assert set(map(tuple, triplets)) == brute_force_triplets(
            X, y, 2, 4, anchors)


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


def test_public_triplets_are_metric_learns_knn_triplets(iris):
    import metric_learn_scml
    from metric_learn import Constraints
    X, y = iris
    given = X.copy(), y.copy()
    triplets = metric_learn_scml.triplets_from_labels(X, list(y), 2, 4)
    assert triplets.dtype == np.intp and triplets.shape == (150 * 2 * 4, 3)
    expected = Constraints(y).generate_knntriplets(X, 2, 4)
    assert set(map(tuple, triplets)) == set(map(tuple, expected))
    np.testing.assert_array_equal(X, given[0])
    np.testing.assert_array_equal(y, given[1])


@pytest.mark.parametrize("arguments, error, match", [
    (dict(k_genuine=0), ValueError, "k_genuine == 0, must be >= 1"),
    (dict(k_impostor=2.5), TypeError, "k_impostor must be an instance of"),
    (dict(k_impostor="nearest"), ValueError,
     "k_impostor must be an int or 'auto', got 'nearest'"),
    (dict(y=np.zeros(4)), ValueError, "inconsistent numbers of samples"),
    (dict(y=np.array([1, "a", 2, "b", 3], dtype=object)), TypeError,
     "y must hold class labels of one type"),
    (dict(X=np.full((5, 2), np.nan)), ValueError, "Input X contains NaN"),
    # As the estimators refuse them (a NaN label was a class of its own).
    (dict(y=np.array([0, 0, np.nan, 1, 1])), ValueError,
     "Input y contains NaN"),
    (dict(y=np.array([0, 0, None, 1, 1], dtype=object)), TypeError,
     "y must hold class labels of one type .*, without None"),
    # (Continuous y said "Every class of y has a single member".)
    (dict(y=np.linspace(0.0, 1.0, 5)), ValueError,
     "Unknown label type 'continuous' for y: triplets_from_labels builds"),
    (dict(y=np.array([0, 0, 1, 1, 1], dtype=object)), ValueError,
     "Unknown label type 'unknown' for y"),
    # (An empty list was taken for float indices, an empty int array for
    # classes of one member.)
    (dict(anchors=[]), ValueError, "anchors is empty: give the indices"),
    (dict(anchors=np.zeros(0, dtype=int)), ValueError, "anchors is empty"),
    # (These three were taken: True as 1, a 2-D array flattened, and a bad
    # seed unless the anchors were sampled.)
    (dict(max_anchors=True), TypeError, "max_anchors must be an int"),
    (dict(anchors=[[0, 1], [3, 4]]), ValueError,
     r"anchors must be a 1-D array .* shape \(2, 2\)"),
    (dict(random_state="x"), ValueError, "random_state must be None"),
    # As the estimators refuse them (numpy failed in a reshape at 1e160,
    # and 1e-200 underflowed to ties that gave other triplets).
    (dict(X=np.random.RandomState(0).randn(5, 2) * 1e160), ValueError,
     "triplets_from_labels got features up to .* overflow"),
    (dict(X=np.random.RandomState(0).randn(5, 2) * 1e-200), ValueError,
     "triplets_from_labels got features of at most .* underflow"),
    (dict(progress=5), TypeError, "progress must be a callable .*or None, "
                                  "got 5 of type int"),
    # (approximate search was removed, and its keyword with it)
    (dict(neighbors="auto"), TypeError, "unexpected keyword argument "
                                        "'neighbors'"),
])
def test_public_triplets_name_a_bad_argument(arguments, error, match):
    from metric_learn_scml import triplets_from_labels as public
    values = dict(X=np.random.RandomState(0).randn(5, 2),
                  y=np.array([0, 0, 1, 1, 1]))
    values.update(arguments)
    with pytest.raises(error, match=match):
        public(**values)


def test_public_triplets_of_identical_points_at_zero_only_tie():
    # Points all 0 are no scale problem: every neighbour ties, as at 1.
    y = np.array([0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(
        triplets_from_labels(np.zeros((6, 2)), y, 2, 3),
        triplets_from_labels(np.ones((6, 2)), y, 2, 3))


def test_public_triplets_take_a_column_of_labels_with_a_warning(iris):
    # As the estimators (scikit-learn's column_or_1d(y, warn=True)).
    from sklearn.exceptions import DataConversionWarning
    X, y = iris
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = triplets_from_labels(X, y[:, None], 2, 3)
    np.testing.assert_array_equal(column, triplets_from_labels(X, y, 2, 3))


@pytest.mark.parametrize("max_anchors, n_anchors", [(1, 3), (2, 3), (3, 3),
                                                    (4, 6), (149, 150)])
def test_max_anchors_rounds_up_in_each_class(iris, max_anchors, n_anchors):
    # The documented rule: ceil(n_c * max_anchors / n) anchors of each class,
    # so from max_anchors to max_anchors + n_classes - 1 in all (not capped
    # at max_anchors: capping would change the triplets mined at scale).
    X, y = iris
    triplets = triplets_from_labels(X, y, 2, 3, random_state=0,
                                    max_anchors=max_anchors)
    anchors = np.unique(triplets[:, 0])
    assert anchors.shape[0] == n_anchors
    np.testing.assert_array_equal(np.bincount(y[anchors]),
                                  [n_anchors // 3] * 3)
    assert "ceil(n_c * max_anchors / n)" in " ".join(
        triplets_from_labels.__doc__.split())


def test_pairs_give_the_triplets_of_their_shared_points():
    from metric_learn_scml._triplets import triplets_from_pairs
    pairs = np.array([[0, 1], [2, 0], [0, 3], [1, 3], [4, 4], [5, 6]])
    y = np.array([1, 1, -1, -1, -1, 1])
    triplets = triplets_from_pairs(pairs, y)
    # point 0: similar to 1 and 2, dissimilar to 3; point 1: similar to 0,
    # dissimilar to 3; point 3 has no similar pair, 4 only itself.
    assert set(map(tuple, triplets)) == {(0, 1, 3), (0, 2, 3), (1, 0, 3)}
    assert triplets.dtype == np.intp
    assert triplets_from_pairs(pairs[4:], y[4:]).shape == (0, 3)


def test_pair_triplets_are_bounded_per_anchor():
    from metric_learn_scml._triplets import triplets_from_pairs
    # One hub with 20 similar and 20 dissimilar partners: 400 combinations.
    partners = np.arange(1, 41)
    pairs = np.column_stack([np.zeros(40, dtype=int), partners])
    y = np.where(partners <= 20, 1, -1)
    first = triplets_from_pairs(pairs, y, max_per_anchor=30, random_state=0)
    assert first.shape == (30, 3)
    assert len(set(map(tuple, first))) == 30
    assert np.all(first[:, 1] <= 20) and np.all(first[:, 2] > 20)
    np.testing.assert_array_equal(
        first, triplets_from_pairs(pairs, y, max_per_anchor=30,
                                   random_state=0))


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


def todays_triplets(X, y, k_genuine, k_impostor):
    # The exact search, written out with one index per class and per other
    # classes.
    blocks = []
    for c in np.unique(y):
        members, others = np.flatnonzero(y == c), np.flatnonzero(y != c)
        n_targets = min(k_genuine, len(members) - 1)
        if n_targets < 1:
            continue
        n_impostors = min(k_impostor, len(others))
        targets = members[NearestNeighbors(n_neighbors=n_targets).fit(
            X[members]).kneighbors(return_distance=False)]
        impostors = others[NearestNeighbors(n_neighbors=n_impostors).fit(
            X[others]).kneighbors(X[members], return_distance=False)]
        blocks.append(np.column_stack([
            np.repeat(members, n_targets * n_impostors),
            np.repeat(targets, n_impostors, axis=1).ravel(),
            np.tile(impostors, (1, n_targets)).ravel()]))
    return np.concatenate(blocks)


@pytest.mark.parametrize("seed", range(6))
def test_exact_search_is_todays_bit_for_bit(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(5, 150)
    # a small grid: many exact duplicates and tied distances
    X = (rng.randint(0, 3, size=(n, 2)).astype(float) if seed % 2
         else rng.randn(n, 3))
    y = rng.randint(0, 4, n)
    y[:2] = [0, 1]
    k_genuine, k_impostor = rng.randint(1, 5), rng.randint(1, 12)
    np.testing.assert_array_equal(
        triplets_from_labels(X, y, k_genuine, k_impostor),
        todays_triplets(X, y, k_genuine, k_impostor))


def class_sizes_dataset():
    # classes of several sizes, the last without a target
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1, 2, 3], [300, 120, 9, 1])
    return rng.randn(len(y), 6) + y[:, None], y


def test_sampled_anchors_keep_their_exact_triplets():
    X, y = class_sizes_dataset()
    everyone = triplets_from_labels(X, y, 3, 10)
    sampled = triplets_from_labels(X, y, 3, 10, random_state=0,
                                   max_anchors=100)
    anchors = np.unique(sampled[:, 0])
    # stratified: ceil(n_c * 100 / 430) of each class with a target
    counts = np.bincount(y[anchors], minlength=4)
    np.testing.assert_array_equal(counts, [70, 28, 3, 0])
    # each anchor's rows are exactly its rows among all points'
    np.testing.assert_array_equal(
        sampled, everyone[np.isin(everyone[:, 0], anchors)])


def test_given_anchors_keep_their_triplets_among_all_points():
    # (partial_fit's batch against the points it remembers.)
    X, y = class_sizes_dataset()
    everyone = triplets_from_labels(X, y, 3, 10)
    # Class 3 (no target) and most of class 2 left out.
    anchors = np.flatnonzero((np.arange(y.shape[0]) % 3 == 0) & (y != 3))
    mined = triplets_from_labels(X, y, 3, 10, anchors=anchors)
    np.testing.assert_array_equal(
        mined, everyone[np.isin(everyone[:, 0], anchors)])
    # Beyond max_anchors, a stratified sample of the given anchors.
    sampled = triplets_from_labels(X, y, 3, 10, anchors=anchors,
                                   max_anchors=20, random_state=0)
    assert set(np.unique(sampled[:, 0])) < set(anchors)
    with pytest.raises(ValueError, match="anchors must be indices"):
        triplets_from_labels(X, y, anchors=[0, y.shape[0]])


def test_sampled_anchors_with_duplicates_never_target_themselves():
    X = np.zeros((60, 2))
    X[30:] = 1.0
    y = np.repeat([0, 1], 30)
    triplets = triplets_from_labels(X, y, 3, 2, random_state=0, max_anchors=10)
    assert np.unique(triplets[:, 0]).shape[0] == 10
    assert np.all(triplets[:, 0] != triplets[:, 1])
    assert np.all(y[triplets[:, 0]] == y[triplets[:, 1]])
