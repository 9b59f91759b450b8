"""Triplet constraints: built from labels, or checked when given.

A triplet ``(i, j, k)`` of indices into a data matrix ``X`` states that
``x_j`` should be closer to ``x_i`` than ``x_k`` is. The supervised learners
build them as in LMNN and in the SCML paper (Shi, Bellet and Sha, 2014,
section "Global Metric Learning"): for every point ``i``, its
``k_genuine`` nearest neighbours of the same class ("targets" ``j``) and its
``k_impostor`` nearest neighbours of another class ("impostors" ``k``), all
``k_genuine * k_impostor`` combinations, under the Euclidean distance.

The neighbours are exact (scikit-learn's ``NearestNeighbors``), at a cost
of about ``n^2`` distances in all up to :data:`MAX_ANCHORS` points.

Beyond :data:`MAX_ANCHORS` points the triplets are those of a random
:data:`MAX_ANCHORS` of the points as anchors, their targets and impostors
still the nearest among all points (:func:`sample_anchors`). This goes
beyond the paper, which mines every point: the solver draws at most
``max_iter * batch_size`` triplets (640,000 at the defaults), fewer than
:data:`MAX_ANCHORS` anchors give, so more anchors only cost search time,
which then grows as ``n * MAX_ANCHORS`` rather than ``n^2``.
"""

import numbers

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_array, check_random_state, check_scalar
from sklearn.utils.validation import check_consistent_length, column_or_1d

from ._defaults import MAX_ANCHORS
from ._arrays import centred


# The most triplets the pairs of one anchor give (the k_genuine * k_impostor
# of the triplets mined from labels at their defaults): an anchor in many
# pairs would give the product of its similar and dissimilar partners.
# Evidence: the k_genuine x k_impostor default.
MAX_PAIR_TRIPLETS = 30

# Pairs that share no point (form no triplet) are each compared with this
# many pairs of the other kind, as quadruplets (beyond the paper): the
# k_impostor default, so a similar pair meets as many dissimilar ones as a
# point meets impostors in the triplets mined from labels, and the number
# of quadruplets stays at most this many times the number of pairs.
# Evidence: on the tasks of benchmarks/pairs.py (10 splits), 3, 10 and 30
# gave held-out pair accuracies of 97.4 / 97.1 / 97.3 % (generated), 82.0 /
# 82.1 / 81.8 % (digits) and 81.4 / 82.5 / 82.0 % (digits_shared), standard
# errors 0.1 to 0.6: 10 is as good as any, at a third of 30's quadruplets.
PAIR_QUADRUPLETS = 10


def sample_anchors(members_of, max_anchors, random_state):
    """The anchors of each class: all, or a stratified random subset.

    With more than ``max_anchors`` points in all, each class keeps
    ``ceil(n_c * max_anchors / n)`` of its ``n_c`` points, drawn without
    replacement and kept in order.

    Returns
    -------
    anchors_of : list of (None or ndarray)
        Per class, positions into its members; None means all of them.
    """
    n_samples = sum(members.shape[0] for members in members_of)
    if n_samples <= max_anchors:
        return [None] * len(members_of)
    rng = check_random_state(random_state)
    return [np.sort(rng.choice(members.shape[0], int(np.ceil(
        members.shape[0] * max_anchors / n_samples)), replace=False))
        for members in members_of]


def _no_anchor(positions):
    """Whether a class's anchors (:func:`sample_anchors`) are none."""
    return positions is not None and positions.shape[0] == 0


def _leave_out(found, own):
    """Drop each row's own index from ``k + 1`` neighbours, else its last.

    An anchor is usually its own nearest neighbour, but with exact
    duplicates it may be missing from the ``k + 1``; its duplicates are
    then all kept.
    """
    keep = found != own[:, None]
    keep[keep.all(axis=1), -1] = False
    return found[keep].reshape(found.shape[0], found.shape[1] - 1)


def _exact_neighbours(X, class_index, members_of, anchors_of, k_genuine,
                      k_impostor):
    """Targets and impostors of every class by exact search.

    Yields
    ------
    (positions, targets, impostors) per class : the anchors' positions in
        the class (None: all), and ndarrays of indices into ``X``
    """
    for c, (members, positions) in enumerate(zip(members_of, anchors_of)):
        others = np.flatnonzero(class_index != c)
        n_targets = min(k_genuine, members.shape[0] - 1)
        if n_targets < 1 or _no_anchor(positions):
            yield None, None, None
            continue
        n_impostors = min(k_impostor, others.shape[0])
        index = NearestNeighbors(n_neighbors=n_targets).fit(X[members])
        if positions is None:
            # kneighbors() without X leaves each point out of its own
            # neighbours, even when it has exact duplicates.
            queries = X[members]
            targets = members[index.kneighbors(return_distance=False)]
        else:
            queries = X[members[positions]]
            targets = members[_leave_out(index.kneighbors(
                queries, n_targets + 1, return_distance=False), positions)]
        impostors = others[NearestNeighbors(n_neighbors=n_impostors)
                           .fit(X[others])
                           .kneighbors(queries, return_distance=False)]
        yield positions, targets, impostors


def triplets_from_labels(X, y, k_genuine=3, k_impostor=10, *,
                         random_state=None, max_anchors=MAX_ANCHORS,
                         anchors=None, progress=None):
    """Triplet constraints from class labels, as the supervised learners mine them.

    For every point (the anchor ``a``), each of its ``k_genuine`` nearest
    neighbours of the same class (targets ``b``) with each of its
    ``k_impostor`` nearest neighbours of other classes (impostors ``c``)
    under the Euclidean distance: the triplets of LMNN and of the SCML
    paper (Shi, Bellet and Sha, 2014), as metric-learn's
    ``Constraints.generate_knntriplets`` builds them. ``X[triplets]`` are
    triplets of points for :class:`~metric_learn_scml.SCML`, and
    ``triplets`` themselves are its input with ``preprocessor=X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    y : array-like of shape (n_samples,)
        Class labels (any type :func:`numpy.unique` can sort), two classes
        or more.
    k_genuine : int, default=3
        Targets per point. A class with fewer than ``k_genuine + 1`` members
        uses all its other members; a class of one member gives no triplet.
    k_impostor : int, default=10
        Impostors per point (at most the number of points of other classes).
    random_state : int, RandomState instance or None, default=None
        Seed of the anchors drawn beyond ``max_anchors`` points.
    max_anchors : int, default=50000
        Beyond this many points, only the triplets of a stratified random
        ``max_anchors`` of them (each class keeps its share; their targets
        and impostors are still searched among all points). Beyond the
        paper.
    anchors : array-like of int, default=None
        The indices of the points whose triplets are mined (then at most
        ``max_anchors`` of them); the others serve only as targets and
        impostors. None: every point. Beyond the paper (``partial_fit``
        mines a batch against the points it remembers).
    progress : callable, default=None
        Called as ``progress(done, total)`` after each class is searched.

    Returns
    -------
    triplets : ndarray of shape (n_triplets, 3), dtype=intp
        Rows ``(anchor, target, impostor)`` of indices into ``X``, grouped
        by anchor: ``d(X[a], X[b]) < d(X[a], X[c])`` is wanted.

    Raises
    ------
    ValueError
        If ``y`` has fewer than two classes, or no class has two members,
        or an argument is malformed (the message names it).

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml import SCML, triplets_from_labels
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.2], [1.0, 1.0],
    ...               [1.2, 1.0]])
    >>> y = np.array([0, 0, 0, 1, 1])
    >>> triplets = triplets_from_labels(X, y, k_genuine=1, k_impostor=2)
    >>> triplets[:2]
    array([[0, 1, 3],
           [0, 1, 4]])
    >>> SCML(preprocessor=X, random_state=0).fit(triplets).transform(X).shape[0]
    5
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    y = column_or_1d(y)
    check_consistent_length(X, y)
    for name, value in (("k_genuine", k_genuine), ("k_impostor", k_impostor),
                        ("max_anchors", max_anchors)):
        check_scalar(value, name, numbers.Integral, min_val=1)
    X = centred(X)
    try:
        classes, class_index = np.unique(y, return_inverse=True)
    except TypeError as error:
        raise TypeError("y must hold class labels of one type (all strings "
                        "or all numbers): %s." % error) from None
    if classes.shape[0] < 2:
        raise ValueError(
            "y has a single class (%r): triplet constraints need at least two "
            "classes. Pass labels with two or more classes." % (classes[0],))
    members_of = [np.flatnonzero(class_index == c)
                  for c in range(classes.shape[0])]
    if anchors is None:
        anchors_of = sample_anchors(members_of, max_anchors, random_state)
    else:
        # Positions into each class of its anchors (then of a sample).
        anchors = np.asarray(anchors).reshape(-1)
        if anchors.dtype.kind not in "iu" or (
                (anchors < 0) | (anchors >= X.shape[0])).any():
            raise ValueError("anchors must be indices of points of X, in "
                             "0..%d." % (X.shape[0] - 1))
        is_anchor = np.zeros(X.shape[0], dtype=bool)
        is_anchor[anchors] = True
        candidates = [np.flatnonzero(is_anchor[members])
                      for members in members_of]
        anchors_of = [found if drawn is None else found[drawn]
                      for found, drawn in zip(candidates, sample_anchors(
                          candidates, max_anchors, random_state))]
    found = _exact_neighbours(X, class_index, members_of, anchors_of,
                              k_genuine, k_impostor)
    blocks = []
    for done, (members, (positions, targets, impostors)) in enumerate(
            zip(members_of, found), 1):
        if progress is not None:
            progress(done, len(members_of))
        if targets is None:
            continue
        if positions is not None:
            members = members[positions]
        n_impostors = impostors.shape[1]
        per_anchor = targets.shape[1] * n_impostors
        blocks.append(np.column_stack([
            np.repeat(members, per_anchor),
            np.repeat(targets, n_impostors, axis=1).ravel(),
            np.tile(impostors, (1, targets.shape[1])).ravel(),
        ]))
    if not blocks:
        raise ValueError(
            "Every class of y has a single member, so no point has a same-class "
            "neighbour to build triplets from. Each class needs at least two "
            "samples.")
    return np.concatenate(blocks).astype(np.intp, copy=False)


def triplets_from_pairs(pairs, y, max_per_anchor=MAX_PAIR_TRIPLETS,
                        random_state=None):
    """Triplets from labelled pairs that share a point (beyond the paper).

    For every point ``a`` of a similar pair ``(a, b)`` (``y = +1``) and a
    dissimilar pair ``(a, c)`` (``y = -1``), in either orientation of each
    pair, the triplet ``(a, b, c)``: ``b`` should be closer to ``a`` than
    ``c`` is. A pair given twice counts once; a point paired with itself, or
    with one point both ways, gives nothing.

    Parameters
    ----------
    pairs : ndarray of shape (n_pairs, 2) of int
        Indices of the points.
    y : ndarray of shape (n_pairs,)
        +1 (similar) or -1 (dissimilar).
    max_per_anchor : int, default=MAX_PAIR_TRIPLETS
        An anchor with more combinations keeps this many, drawn uniformly
        without replacement.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    triplets : ndarray of shape (n_triplets, 3), dtype=intp
        Grouped by anchor, in increasing order of anchor; empty when no
        point has both a similar and a dissimilar pair.
    """
    rng = check_random_state(random_state)
    anchors = np.concatenate([pairs[:, 0], pairs[:, 1]])
    partners = np.concatenate([pairs[:, 1], pairs[:, 0]])
    similar = np.tile(np.asarray(y) > 0, 2)
    distinct = anchors != partners
    partners_of = []
    for kind in (similar & distinct, ~similar & distinct):
        order = np.argsort(anchors[kind], kind="stable")
        partners_of.append((anchors[kind][order], partners[kind][order]))
    blocks = []
    for anchor in np.intersect1d(partners_of[0][0], partners_of[1][0]):
        targets, impostors = (np.unique(found[np.searchsorted(
            sorted_anchors, anchor):np.searchsorted(sorted_anchors, anchor,
                                                    "right")])
            for sorted_anchors, found in partners_of)
        n_combinations = targets.shape[0] * impostors.shape[0]
        chosen = (np.arange(n_combinations) if n_combinations <= max_per_anchor
                  else np.sort(rng.choice(n_combinations, max_per_anchor,
                                          replace=False)))
        block = np.column_stack([np.full(chosen.shape[0], anchor),
                                 targets[chosen // impostors.shape[0]],
                                 impostors[chosen % impostors.shape[0]]])
        blocks.append(block[block[:, 1] != block[:, 2]])
    return np.concatenate(blocks or [np.zeros((0, 3))]).astype(np.intp)


def pairs_without_triplet(pairs, y):
    """Which pairs form no triplet in :func:`triplets_from_pairs`.

    A pair ``(a, b)`` forms one when ``a`` (or ``b``) has a pair of the
    other kind with a third point (neither ``a`` nor ``b``). Decided from
    the pairs alone, before any triplet is drawn.

    Parameters
    ----------
    pairs : ndarray of shape (n_pairs, 2) of int
    y : ndarray of shape (n_pairs,)
        +1 (similar) or -1 (dissimilar).

    Returns
    -------
    mask : ndarray of shape (n_pairs,), dtype=bool
    """
    n_pairs = pairs.shape[0]
    n_points = int(pairs.max()) + 1 if pairs.size else 1
    anchors = np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int64)
    partners = np.concatenate([pairs[:, 1], pairs[:, 0]]).astype(np.int64)
    kind = np.tile(np.asarray(y) > 0, 2).astype(np.int64)
    distinct = anchors != partners
    # Each (anchor, partner, kind) once; then each anchor's partners per kind.
    links = np.unique(((anchors * n_points + partners) * 2 + kind)[distinct])
    count = np.zeros((n_points, 2), dtype=np.int64)
    np.add.at(count, (links // 2 // n_points, links % 2), 1)
    # A partner of the other kind that is the pair's own other point (the
    # pair given with both labels) makes no triplet (b == c).
    other = 1 - kind
    same_points = np.isin((anchors * n_points + partners) * 2 + other, links)
    forms = distinct & (count[anchors, other] - same_points > 0)
    return ~(forms[:n_pairs] | forms[n_pairs:])


def quadruplets_from_pairs(pairs, y, rows=None, n_compared=PAIR_QUADRUPLETS,
                           random_state=None):
    """Quadruplets from labelled pairs that need not share a point (beyond the paper).

    The paper's constraints are triplets; independent pairs (two points of
    their own each, as in face verification) give the same hinge through
    quadruplets ``(a, b, c, d)`` of a similar pair ``(a, b)`` and a
    dissimilar pair ``(c, d)``: :math:`[1 + d_w(a, b) - d_w(c, d)]_+`, a
    unit margin between the two distances, linear in the weights inside
    the hinge as a triplet's is.

    Every pair of ``rows`` is compared with ``min(n_compared, n_other)``
    distinct pairs of the other kind (``n_other`` of them in all): the
    pairs of the other kind are put in a random order and dealt out
    cyclically, ``n_compared`` consecutive ones to each pair. So every
    given pair is in at least ``min(n_compared, n_other)`` quadruplets,
    each pair of the other kind is dealt equally often (within one), and
    there are at most ``n_compared * len(rows)`` quadruplets: none of the
    pairs is left out or repeated by chance, as independent draws would
    (about ``exp(-n_compared)`` of them unused, others drawn twice as
    often), and the count is linear in the number of pairs (all
    ``n_similar * n_dissimilar`` combinations would be quadratic). A
    combination dealt from both of its pairs is kept once.

    Parameters
    ----------
    pairs : ndarray of shape (n_pairs, 2) of int
        Indices of the points.
    y : ndarray of shape (n_pairs,)
        +1 (similar) or -1 (dissimilar).
    rows : ndarray of int, default=None
        The pairs to compare (each with pairs of the other kind among all
        ``pairs``); None: every pair.
    n_compared : int, default=PAIR_QUADRUPLETS
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    quadruplets : ndarray of shape (n_quadruplets, 4), dtype=intp
        Rows ``(a, b, c, d)`` with ``(a, b)`` a similar pair and ``(c, d)``
        a dissimilar one: ``d(a, b) + 1 <= d(c, d)`` is wanted. Empty when
        one kind has no pair.
    """
    rng = check_random_state(random_state)
    similar = np.asarray(y) > 0
    rows = np.arange(pairs.shape[0]) if rows is None else np.asarray(rows)
    kinds = (np.flatnonzero(similar), np.flatnonzero(~similar))
    if not (kinds[0].size and kinds[1].size and rows.size):
        return np.zeros((0, 4), dtype=np.intp)
    dealt = []   # (similar pair, dissimilar pair) ids
    for own_kind, others in ((True, kinds[1]), (False, kinds[0])):
        own = rows[similar[rows] == own_kind]
        per = min(n_compared, others.shape[0])
        order = others[rng.permutation(others.shape[0])]
        partner = order[np.arange(own.shape[0] * per) % order.shape[0]]
        pair_ids = [np.repeat(own, per), partner]
        dealt.append(np.column_stack(pair_ids if own_kind else pair_ids[::-1]))
    dealt = np.concatenate(dealt).astype(np.int64)
    codes = np.unique(dealt[:, 0] * pairs.shape[0] + dealt[:, 1])
    return np.column_stack([pairs[codes // pairs.shape[0]],
                            pairs[codes % pairs.shape[0]]]).astype(np.intp)
