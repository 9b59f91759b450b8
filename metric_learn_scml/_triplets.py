r"""Triplet constraints (built from labels, or checked when given) and the
basis elements drawn from them.

A triplet ``(i, j, k)`` of indices into a data matrix ``X`` states that
``x_j`` should be closer to ``x_i`` than ``x_k`` is. The supervised learners
build them as in LMNN and in the SCML paper (Shi, Bellet and Sha, 2014,
section "Global Metric Learning"): for every point ``i``, its
``k_genuine`` nearest neighbours of the same class ("targets" ``j``) and its
``k_impostor`` nearest neighbours of another class ("impostors" ``k``), all
``k_genuine * k_impostor`` combinations, under the Euclidean distance.

``k_impostor='auto'`` (the learners' default) goes beyond the paper with
many classes. With ``C`` classes that overlap, a point's ``k``-th target
is about its ``(k C)``-th neighbour, while its nearest impostors are its
first neighbours: beyond a few tens of classes every nearest impostor lies
closer than the targets in every direction, no element of the basis
lowers the triplets' loss, and the metric learnt is the Euclidean one
(50 generated classes: 3-NN error 0.80-0.83 for both). 'auto' takes
:data:`AUTO_IMPOSTORS` impostors: the nearest, as ``k_impostor=10``, with
10 classes or fewer and wherever the nearest do not all lie inside the
targets' reach; else spread over a point's ``C`` nearest others, which
reach the targets' scale (:func:`spread_impostors`). The triplets are as
many either way.

The neighbours are exact (scikit-learn's ``NearestNeighbors``), at a cost
of about ``n^2`` distances in all up to :data:`MAX_ANCHORS` points.

Beyond :data:`MAX_ANCHORS` points the triplets are those of a stratified
random sample of about :data:`MAX_ANCHORS` of the points as anchors (each
class's share rounded up, :func:`sample_anchors`), their targets and
impostors still the nearest among all points. This goes
beyond the paper, which mines every point: the solver draws at most
``max_iter * batch_size`` triplets (640,000 at the defaults), and stops
far earlier on large data, so more anchors only cost search time, which
then grows as ``n * MAX_ANCHORS`` rather than ``n^2``.

**Basis sets**: the rank-one "locally discriminative" elements of SCML.
Every SCML metric is a non-negative combination
:math:`M = \sum_k w_k b_k b_k^T` of the rows :math:`b_k` of a basis
:math:`B` (``n_basis x n_features``, unit-norm rows). The paper (Shi, Bellet
and Sha, 2014, section "Experiments") builds them by Fisher discriminant
analysis in local regions: divide the data into regions by k-means, and for
each region centre and each scale :math:`J`, run FDA on the :math:`J`
nearest points of every class; the top discriminant directions are basis
rows.

Both generators here share one kernel, :func:`discriminant_directions`, the
leading solutions of the generalised eigenproblem

.. math:: S_b v = \lambda (S_w + \rho I) v

for many small regions at once, where :math:`S_b = H H^T` is given by a
factor :math:`H`. The ridge :math:`\rho` is the Ledoit-Wolf shrinkage of
the within scatter (as in scikit-learn's
``LinearDiscriminantAnalysis(shrinkage='auto')``), chosen from each
region's own points: a region with about as many points as features, or
fewer, has a singular :math:`S_w`, along whose null space one direction
separates the region's classes perfectly and carries over to no new point.
Shrinking towards :math:`\mu I` (:math:`\mu` the mean eigenvalue) by the
amount that minimises the expected squared error of the covariance
estimate removes those directions; a well-sampled region is shrunk little.
The paper's FDA is unregularised; the shrinkage goes beyond it because,
without it, small high-dimensional tasks collapse to a few such directions
(movement_libras cut into 60-point tasks: 26.4 % 3-NN error against
Euclidean's 16.4 %).

- :func:`lda_basis` (labels): :math:`S_w` is the within-class scatter of
  the region's points and :math:`H` holds
  :math:`\sqrt{n_c}(\mu_c - \mu)`, one column per class.
- :func:`triplet_basis` (triplets only, no labels): the triplets whose
  anchors lie in the region play the roles of the classes: :math:`S_w` is
  the scatter of their anchor-target differences and :math:`H` holds their
  anchor-impostor differences, so the directions stretch impostors
  relative to targets (a local form of metric-learn's ``'triplet_diffs'``).
"""

import math
import numbers
import warnings

import numpy as np
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state, check_scalar, check_X_y
from sklearn.utils.multiclass import type_of_target

from ._arrays import (binary_scales, centred, check_known_labels, check_range,
                      checked_random_state, chunk_rows, compared_pairs,
                      distinct_rows, named_errors, nearest_index, plain)
from ._defaults import MAX_ANCHORS, MINIBATCH_MIN_SAMPLES

# Impostors a point gets under k_impostor='auto': metric-learn's and the
# paper's k_impostor default.
AUTO_IMPOSTORS = 10

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

    With more than ``max_anchors`` points in all (``n``), each class keeps
    ``ceil(n_c * max_anchors / n)`` of its ``n_c`` points, drawn without
    replacement and kept in order: from ``max_anchors`` to ``max_anchors +
    n_classes - 1`` anchors in all.

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


def _kept(found, own):
    """Which of each row's ``k + 1`` neighbours are kept: all but the row's
    own index, else its last.

    An anchor is usually its own nearest neighbour, but with exact
    duplicates it may be missing from the ``k + 1``; its duplicates are
    then all kept.
    """
    keep = found != own[:, None]
    keep[keep.all(axis=1), -1] = False
    return keep


def impostor_pool(k_impostor, n_classes, n_others):
    """How many of a point's nearest others are searched: ``k_impostor``,
    or under ``'auto'`` ``max(AUTO_IMPOSTORS, n_classes)`` (at most
    ``n_others``)."""
    wanted = (max(AUTO_IMPOSTORS, n_classes) if k_impostor == "auto"
              else k_impostor)
    return min(wanted, n_others)


def spread_impostors(impostors, distances, reach):
    """The impostors of one class's anchors under ``k_impostor='auto'``.

    ``impostors`` and ``distances`` (rows sorted by distance) are each
    anchor's ``pool`` nearest others (:func:`impostor_pool`), ``reach``
    its distance to its farthest target. Where at least half the anchors
    have their :data:`AUTO_IMPOSTORS` nearest impostors all closer than
    their targets, those nearest impostors cannot be pushed out in any
    direction: the class takes :data:`AUTO_IMPOSTORS` spread evenly over
    the pool (ranks ``j * pool // AUTO_IMPOSTORS``) instead, farther ones
    that reach the targets' scale. Otherwise (and with a pool of
    :data:`AUTO_IMPOSTORS` or fewer, so with 10 classes or fewer) the
    nearest.

    Evidence (stratified splits, ``StandardScaler``, 3-NN error of
    ``SCML_Supervised``, paired against the 10 nearest, mean difference in
    points and its standard error): ``make_classification`` (20 features,
    10 informative, one cluster a class) at 20, 50 and 100 classes, -2.50
    (0.75), -9.67 (0.76), -5.89 (0.40); letter at 300, 1,400 and 3,000
    training points, -0.50 (0.35), -0.09 (0.15), -0.05 (0.14);
    movement_libras at 100, -0.67 (0.57). Spreading every class's
    impostors did as well on the generated sets but cost letter at 3,000
    points +0.73 (0.16), where the targets lie close and the nearest
    impostors are the informative ones.
    """
    pool, count = impostors.shape[1], min(AUTO_IMPOSTORS, impostors.shape[1])
    if pool <= count or np.mean(distances[:, count - 1] < reach) < 0.5:
        return impostors[:, :count]
    return impostors[:, np.arange(count) * pool // count]


def _exact_neighbours(X, class_index, members_of, anchors_of, k_genuine,
                      k_impostor):
    """Targets and impostors of every class by exact search
    (``k_impostor`` an int or ``'auto'``, :func:`spread_impostors`).

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
        index = nearest_index(X[members], n_targets)
        if positions is None:
            # kneighbors() without X leaves each point out of its own
            # neighbours, even when it has exact duplicates.
            queries = X[members]
            reach, found = index.kneighbors()
        else:
            queries = X[members[positions]]
            reach, found = index.kneighbors(queries, n_targets + 1)
            keep = _kept(found, positions)
            shape = (found.shape[0], n_targets)
            reach, found = reach[keep].reshape(shape), found[keep].reshape(
                shape)
        targets = members[found]
        distances, nearest = nearest_index(
            X[others], impostor_pool(k_impostor, len(members_of),
                                     others.shape[0])).kneighbors(queries)
        impostors = others[nearest]
        if k_impostor == "auto":
            impostors = spread_impostors(impostors, distances,
                                         reach.max(axis=1))
        yield positions, targets, impostors


def combinations(anchors, targets, impostors):
    """The triplets ``(anchor, target, impostor)`` of every anchor with each
    of its targets (row of ``targets``) and impostors (row of
    ``impostors``): ``n_targets * n_impostors`` rows an anchor, in order."""
    n_targets, n_impostors = targets.shape[1], impostors.shape[1]
    return np.column_stack([
        np.repeat(anchors, n_targets * n_impostors),
        np.repeat(targets, n_impostors, axis=1).ravel(),
        np.tile(impostors, (1, n_targets)).ravel()])


def triplets_from_labels(X, y, k_genuine=3, k_impostor="auto", *,
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
        Class labels, two classes or more, as the estimators take them:
        binary or multiclass targets in scikit-learn's sense (integers,
        strings, or floats of integral values), no NaN, of one type. A
        column of shape (n_samples, 1) is raveled with a
        ``DataConversionWarning``.
    k_genuine : int, default=3
        Targets per point. A class with fewer than ``k_genuine + 1`` members
        uses all its other members; a class of one member gives no triplet.
    k_impostor : int or 'auto', default='auto'
        Impostors per point (at most the number of points of other
        classes): its ``k_impostor`` nearest. 'auto': its 10 nearest,
        except with more than 10 classes (``C``) where a class's nearest
        impostors mostly lie closer than its targets: its points then take
        10 spread over their ``C`` nearest (beyond the paper, see the
        module's docstring), which a metric can push out.
    random_state : int, RandomState instance or None, default=None
        Seed of the anchors drawn beyond ``max_anchors`` points.
    max_anchors : int, default=20000
        Beyond this many candidate anchors (``n``: every point, or the
        ``anchors`` given), only the triplets of a stratified random sample
        of them: each class keeps ``ceil(n_c * max_anchors / n)`` of its
        ``n_c`` candidates, its share rounded up, so from ``max_anchors``
        to ``max_anchors + n_classes - 1`` anchors are mined in all, not
        exactly ``max_anchors`` (on 150 points of 3 classes of 50,
        ``max_anchors=149`` keeps all 150 and ``max_anchors=1`` keeps 3).
        Their targets and impostors are still searched among all points.
        Beyond the paper.
    anchors : array-like of int, default=None
        The indices of the points whose triplets are mined (at least one;
        a stratified sample of them beyond ``max_anchors``, as above); the
        others serve only as targets and impostors. None: every point.
        Beyond the paper (``partial_fit`` mines a batch against the points
        it remembers).
    progress : callable or None, default=None
        Called as ``progress(done, total)`` after each class is searched.

    Returns
    -------
    triplets : ndarray of shape (n_triplets, 3), dtype=intp
        Rows ``(anchor, target, impostor)`` of indices into ``X``, grouped
        by anchor: ``d(X[a], X[b]) < d(X[a], X[c])`` is wanted.

    Raises
    ------
    ValueError
        If ``y`` holds NaN or is not class labels (continuous values, say),
        has fewer than two classes, or no class has two members, if
        ``anchors`` is empty, or if an argument is malformed (the message
        names it).
    TypeError
        If ``y`` mixes labels of several types (or None), or ``progress``
        is not callable.

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
    # y as the estimators check it, with the same messages: NaN would be
    # a class of its own, and continuous values classes of one member each.
    check_known_labels(y, "y")
    with named_errors("X"):
        X, y = check_X_y(X, y, dtype=np.float64,
                         estimator="triplets_from_labels")
    if X.any():
        # (Identical points at 0 only tie, as at any other value.)
        check_range("triplets_from_labels", X)
    check_class_labels(y, "triplets_from_labels")
    for name, value in (("k_genuine", k_genuine), ("k_impostor", k_impostor),
                        ("max_anchors", max_anchors)):
        if name == "k_impostor" and isinstance(value, str):
            if value != "auto":
                raise ValueError("k_impostor must be an int or 'auto', got "
                                 "%r." % (value,))
            continue
        if isinstance(value, bool):
            # (check_scalar takes a bool for an int.)
            raise TypeError("%s must be an int, got %r." % (name, value))
        check_scalar(value, name, numbers.Integral, min_val=1)
    random_state = checked_random_state(random_state)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable or None, got %r of "
                        "type %s." % (progress, type(progress).__name__))
    X = centred(X)
    classes, class_index = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            "y has a single class (%r): triplet constraints need at least two "
            "classes. Pass labels with two or more classes." % (
                plain(classes[0]),))
    members_of = [np.flatnonzero(class_index == c)
                  for c in range(classes.shape[0])]
    if anchors is None:
        anchors_of = sample_anchors(members_of, max_anchors, random_state)
    else:
        # Positions into each class of its anchors (then of a sample).
        anchors = np.asarray(anchors)
        if anchors.ndim > 1:
            raise ValueError("anchors must be a 1-D array of indices of "
                             "points of X, got shape %s." % (anchors.shape,))
        anchors = anchors.reshape(-1)
        if anchors.shape[0] == 0:
            # (Else every class would be left without an anchor, and the
            # error would blame classes of one member.)
            raise ValueError(
                "anchors is empty: give the indices of at least one point of "
                "X, in 0..%d, whose triplets are mined, or anchors=None for "
                "every point." % (X.shape[0] - 1))
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
        blocks.append(combinations(members, targets, impostors))
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


# Smallest relative ridge of the within-region scatter (where Ledoit-Wolf
# shrinks less): it keeps every solve finite and well conditioned.
# Evidence: this module's docstring; NOTES.md, "Issue 26 item 4, measured
# and not adopted".
RIDGE = 1e-3

# Directions kept per region by the triplet basis, which has no class count
# to set it (the label basis keeps n_classes - 1).
TRIPLET_DIRECTIONS = 4

# Triplets per region at each scale of the triplet basis: about the number a
# 10- or 20-point neighbourhood yields under 3 targets x 10 impostors.
TRIPLET_SCALES = (60, 200)

# Task bases a default (n_basis=None) union holds in full; more tasks share
# that budget (see task_basis_size).
# Evidence: NOTES.md, "Scale (issue 14)".
MAX_DEFAULT_TASKS = 4

# Two unit rows are one basis element when |b . c| exceeds this: then
# b b^T = c c^T up to rounding. Regions whose neighbourhoods coincide (every
# region of a scale at least as large as every class takes the whole class)
# give identical FDA directions.
# Evidence: numerical (rounding only).
DUPLICATE_COSINE = 1.0 - 1e-9

# Float64 elements of the per-region arrays built at once (32 MiB): a
# block of regions holds its points and the solve's square matrices.
# Evidence: memory only (results identical for any value).
REGION_BLOCK_ELEMENTS = 1 << 22


def within_gram(within_rows):
    """Each region's Gram matrix in the smaller space: :math:`C C^T` when
    ``m < D``, else :math:`C^T C` (both have the same Frobenius norm, the
    one :func:`ledoit_wolf_shrinkage` needs)."""
    rows_t = np.swapaxes(within_rows, 1, 2)
    if within_rows.shape[1] < within_rows.shape[2]:
        return within_rows @ rows_t
    return rows_t @ within_rows


def ledoit_wolf_shrinkage(within_rows, gram=None):
    r"""Ledoit-Wolf shrinkage of each region's scatter, from its Gram matrix.

    For rows :math:`C` (``m x D``, taken as centred) with
    :math:`S = C^T C / m`, :math:`\mu = \operatorname{tr} S / D`, the
    Ledoit-Wolf (2004) coefficient of :math:`(1 - a) S + a \mu I` is
    :math:`a = \min(b, d) / d` with

    .. math::

        d = \tfrac1D \|S - \mu I\|_F^2, \qquad
        b = \tfrac{1}{D m^2} \sum_i \|c_i c_i^T - S\|_F^2
          = \tfrac{1}{D m} \Big(\tfrac1m \sum_i \|c_i\|^4
            - \|S\|_F^2\Big),

    the value of :func:`sklearn.covariance.ledoit_wolf_shrinkage` with
    ``assume_centered=True``. Every term is a trace of the ``m x m`` Gram
    matrix :math:`C C^T` (:math:`\|S\|_F = \|C C^T\|_F / m`), so a region
    of 40 points in 3,000 dimensions never forms a ``D x D`` matrix; with
    more points than features, :math:`\|C^T C\|_F` is the same and
    cheaper.

    Parameters
    ----------
    within_rows : ndarray of shape (n_regions, m, n_features)
    gram : ndarray, default=None
        :func:`within_gram` of ``within_rows``, when the caller has it.

    Returns
    -------
    shrinkage : ndarray of shape (n_regions,)
        In ``[0, 1]``; 0 for a region whose rows are all zero.
    """
    n_regions, n_rows, n_features = within_rows.shape
    if gram is None:
        gram = within_gram(within_rows)
    # The intensity is scale-free: compute it at a power-of-two scale per
    # region (the same bits), where fourth powers neither overflow nor
    # underflow whatever the data's units.
    factors = binary_scales(within_rows, axis=(1, 2))
    within_rows = within_rows * factors[:, None, None]
    gram = gram * np.square(factors)[:, None, None]
    row_norms = np.einsum("rmd,rmd->rm", within_rows, within_rows)
    trace = row_norms.sum(axis=1) / n_rows
    mu = trace / n_features
    # ||C C^T||_F = ||C^T C||_F: the product in the smaller space.
    scatter_norm = np.einsum("rab,rab->r", gram, gram) / n_rows ** 2
    spread = ((np.square(row_norms).sum(axis=1) / n_rows - scatter_norm)
              / (n_features * n_rows))
    distance = (scatter_norm - 2 * mu * trace + n_features * mu ** 2) / n_features
    with np.errstate(invalid="ignore", divide="ignore"):
        shrinkage = np.minimum(spread, distance) / distance
    return np.clip(np.where(distance > 0, shrinkage, 0.0), 0.0, 1.0)


def neighbourhood_scales(n_features):
    """The two neighbourhood sizes :math:`J` of the original SCML code.

    ``(10, 20)`` points per class, or ``(20, 50)`` when ``n_features > 50``.
    """
    return (20, 50) if n_features > 50 else (10, 20)


def discriminant_directions(within_rows, between_factor, n_directions,
                            shrink=True, unit_rows=True):
    r"""Leading generalised eigenvectors of :math:`(H H^T, S_w + \rho I)`.

    :math:`S_w = C^T C` is given by its rows :math:`C` (``m x D``) and
    :math:`\rho = \max(a / (1 - a), \text{RIDGE})` times the mean
    eigenvalue of :math:`S_w`, with :math:`a` the Ledoit-Wolf shrinkage
    (:func:`ledoit_wolf_shrinkage`): :math:`S_w + \rho I` is then
    proportional to the shrunk scatter :math:`(1 - a) S + a \mu I`. With
    :math:`Z = (S_w + \rho I)^{-1} H`, every solution with a non-zero
    eigenvalue is :math:`v = Z a` for an eigenvector :math:`a` of the small
    symmetric matrix :math:`H^T Z` (then
    :math:`H H^T v = \lambda (S_w + \rho I) v`). :math:`Z` is computed in
    the smaller of the two spaces: directly when :math:`m \ge D`, else by
    the Woodbury identity
    :math:`Z = (H - C^T (\rho I + C C^T)^{-1} C H) / \rho`, so a region of
    40 points in 300 dimensions costs ``40 x 40`` solves, not ``300 x 300``.
    All regions are solved at once.

    Parameters
    ----------
    within_rows : ndarray of shape (n_regions, m, n_features)
        Rows :math:`C` of each region's within scatter (centred points, or
        difference vectors).
    between_factor : ndarray of shape (n_regions, n_features, n_columns)
        Factors :math:`H` of the between scatter :math:`S_b = H H^T`.
    n_directions : int
        Directions kept per region (at most ``n_columns`` and
        ``n_features``).
    shrink : bool, default=True
        Ledoit-Wolf shrinkage of :math:`S_w`; without it :math:`\rho` is
        ``RIDGE`` times the mean eigenvalue.
    unit_rows : bool, default=True
        False returns every region's rows unscaled, none dropped, for
        :func:`unit_nonzero_rows` to finish over several blocks of regions
        (its cut is relative to the strongest row of all of them).

    Returns
    -------
    directions : ndarray of shape (n_regions * n_directions, n_features)
        Unit-norm rows, strongest direction of each region first. Rows that
        come out zero (a region whose :math:`S_b` vanishes) are dropped, so
        no row is NaN.
    """
    n_regions, n_rows, n_features = within_rows.shape
    mean_eigenvalue = np.einsum("rmd,rmd->r", within_rows,
                                within_rows) / n_features
    # The solve's matrix is this Gram matrix plus the ridge.
    gram = within_gram(within_rows)
    shrinkage = (ledoit_wolf_shrinkage(within_rows, gram) if shrink
                 else np.zeros(n_regions))
    # a -> 1 (S carries no information beyond its trace) makes rho infinite:
    # 1e12 is as good there, since the solves divide by rho.
    relative = np.maximum(shrinkage / np.maximum(1.0 - shrinkage, 1e-12), RIDGE)
    ridge = relative * np.where(mean_eigenvalue > 0, mean_eigenvalue, 1.0)
    rows_t = np.swapaxes(within_rows, 1, 2)
    gram += ridge[:, None, None] * np.eye(gram.shape[-1])
    if between_factor.shape[-1] > 2 * n_features:
        # (Then n_rows >= n_features: each class or triplet of H gives a row
        # of C, and gram is S_w + rho I.)
        directions = _feature_space_directions(gram, between_factor,
                                               n_directions)
        return unit_nonzero_rows(directions) if unit_rows else directions
    if n_rows < n_features:
        solved = between_factor - rows_t @ np.linalg.solve(
            gram, within_rows @ between_factor)
        solved /= ridge[:, None, None]
    else:
        solved = np.linalg.solve(gram, between_factor)
    small = np.swapaxes(between_factor, 1, 2) @ solved
    _, vectors = np.linalg.eigh((small + np.swapaxes(small, 1, 2)) / 2)
    n_directions = min(n_directions, n_features, vectors.shape[-1])
    directions = solved @ vectors[:, :, ::-1][:, :, :n_directions]
    directions = np.swapaxes(directions, 1, 2).reshape(-1, n_features)
    return unit_nonzero_rows(directions) if unit_rows else directions


def _feature_space_directions(within, between_factor, n_directions):
    r""":func:`discriminant_directions` where :math:`H` has many more
    columns than features (many classes in few dimensions).

    The small matrix :math:`H^T Z` would be ``n_columns`` on a side, solved
    by an eigendecomposition per region (1,000 classes: 1,000 x 1,000, the
    larger part of a fit). :math:`S_b = H H^T` has rank at most ``D``, so
    the same directions solve the ``D x D`` symmetric-definite problem
    :math:`S_b v = \lambda (S_w + \rho I) v`, whitened by the Cholesky
    factor :math:`L L^T = S_w + \rho I`: :math:`v = L^{-T} u` for the
    eigenvectors :math:`u` of :math:`L^{-1} S_b L^{-T}`. Each direction is
    scaled by :math:`\sqrt{\max(\lambda, 0)}`, so a region whose
    :math:`S_b` vanishes gives zero rows (dropped, as by the other form).
    ``within`` is :math:`S_w + \rho I`, shape ``(regions, D, D)``.
    """
    n_features = within.shape[-1]
    lower = np.linalg.cholesky(within)
    between = between_factor @ np.swapaxes(between_factor, 1, 2)
    half = np.linalg.solve(lower, between)               # L^-1 S_b
    whitened = np.linalg.solve(lower, np.swapaxes(half, 1, 2))
    values, vectors = np.linalg.eigh((whitened + np.swapaxes(whitened, 1, 2)) / 2)
    n_directions = min(n_directions, n_features)
    top = vectors[:, :, ::-1][:, :, :n_directions] * np.sqrt(
        np.maximum(values[:, ::-1][:, None, :n_directions], 0.0))
    directions = np.linalg.solve(np.swapaxes(lower, 1, 2), top)
    return np.swapaxes(directions, 1, 2).reshape(-1, n_features)


def unit_nonzero_rows(directions):
    """``directions`` scaled to unit rows, less the zero and non-finite ones.

    A row counts as zero below ``1e-12`` times the largest row norm.
    """
    norms = np.linalg.norm(directions, axis=1)
    keep = np.isfinite(norms) & (norms > 1e-12 * max(norms.max(), 1e-300))
    return directions[keep] / norms[keep, None]


def region_blocks(n_regions, n_rows, n_features):
    r"""Slices of regions whose arrays fit in :data:`REGION_BLOCK_ELEMENTS`.

    A region of :math:`m` rows in :math:`D` dimensions holds its
    ``m x D`` rows (and their centred copy) and the square matrix of
    :func:`discriminant_directions`' solve, ``min(m, D)`` on a side. All
    regions at once would hold ``n_regions * m * D`` values, many times the
    data when ``D`` is large (every region takes ``J`` points of every
    class); in blocks, the peak is a few blocks, whatever the number of
    regions. Every region is solved on its own (batched BLAS and LAPACK
    calls loop over regions), so the blocks change no result.

    Yields
    ------
    block : slice
    """
    per_region = n_rows * n_features + min(n_rows, n_features) ** 2
    step = max(1, REGION_BLOCK_ELEMENTS // max(per_region, 1))
    for start in range(0, n_regions, step):
        yield slice(start, min(start + step, n_regions))


def region_centres(X, n_regions, random_state):
    """K-means centres of ``n_regions`` regions (at most one per distinct point).

    Lloyd's k-means (scikit-learn's ``KMeans``, one initialisation) costs
    ``n * n_regions * n_features`` per iteration over up to 300
    iterations, and the iterations it needs grow with ``n`` too; from
    :data:`MINIBATCH_MIN_SAMPLES` points on, ``MiniBatchKMeans`` (Sculley,
    2010) takes its steps on batches of 1,024 points and stops when they no
    longer improve the objective, a few passes over the data. Its centres
    are slightly worse (within 2 % of Lloyd's mean squared distance on
    10-class, 50-feature data), which matters little here: a centre only
    picks the neighbourhood whose Fisher directions become basis elements.
    Mini-batch k-means is the cheaper at every size measured; the
    threshold keeps Lloyd's below it, so that earlier results (the largest
    committed fit has 18,000 points) do not change, and is where Lloyd's
    starts to cost over a second.

    Call it with thread pools limited (see ``_base.single_threaded``): the
    problems are small, and on a busy two-core machine k-means with a
    thread per core is many times slower.
    """
    n_regions = max(1, min(n_regions, distinct_rows(X)[0].shape[0]))
    if X.shape[0] >= MINIBATCH_MIN_SAMPLES:
        kmeans = MiniBatchKMeans(n_clusters=n_regions, n_init=1,
                                 random_state=random_state)
    else:
        kmeans = KMeans(n_clusters=n_regions, n_init=1,
                        random_state=random_state)
    with warnings.catch_warnings():
        # Points distinct only in their last digits make fewer clusters
        # than asked: fewer centres are fine here, and the warning would
        # name an n_clusters the user never set.
        warnings.filterwarnings("ignore", "Number of distinct clusters",
                                ConvergenceWarning)
        return kmeans.fit(X).cluster_centers_


def distinct_elements(basis):
    r"""The unit rows of ``basis`` less repeats of an earlier row's element.

    Row :math:`c` is dropped when an earlier row :math:`b` has
    :math:`|b^T c| >` ``DUPLICATE_COSINE``, that is when
    :math:`c c^T = b b^T` up to rounding (the sign of a row is free). A
    repeated element adds nothing the first copy cannot express, but the
    solvers would give every copy the same weight: the copies would count
    as many active elements and move the metric that many times faster
    along one direction. Order is kept; the Gram matrix is formed in the
    solvers' blocks of rows (:func:`._arrays.chunk_rows`).
    """
    n_rows = basis.shape[0]
    keep = np.ones(n_rows, dtype=bool)
    block = chunk_rows(n_rows)
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        cosines = np.abs(basis[start:stop] @ basis[:stop].T)
        earlier = np.arange(stop)[None, :] < np.arange(start, stop)[:, None]
        keep[start:stop] = ~((cosines > DUPLICATE_COSINE) & earlier).any(axis=1)
    return basis[keep]


def _trim(basis, n_basis):
    """The first ``n_basis`` distinct elements of ``basis``."""
    basis = distinct_elements(basis)
    return basis[:n_basis] if basis.shape[0] > n_basis else basis


def lda_basis(X, y, n_basis, random_state=None):
    """Local discriminative basis from labels (the paper's construction).

    ``num_eig = min(n_classes - 1, n_features)`` directions per FDA;
    ``ceil(n_basis / (2 * num_eig))`` k-means regions; two neighbourhood
    scales (:func:`neighbourhood_scales`), each taking the ``J`` nearest
    points of every class to the region centre (fewer if the class is
    smaller). Basis rows are ordered region by region, first scale first,
    and cut to ``n_basis``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        At least two classes.
    n_basis : int
        Number of rows wanted. Fewer come out when the data has fewer
        distinct points than the regions this needs, or when regions give
        the same element (kept once, see :func:`distinct_elements`): at a
        scale ``J`` no smaller than every class, every region takes every
        point.
    random_state : int, RandomState instance or None

    Returns
    -------
    basis : ndarray of shape (n_basis_out, n_features)
    """
    X = centred(X)   # directions do not move with the origin; digits do
    classes, class_index, class_counts = np.unique(
        y, return_inverse=True, return_counts=True)
    n_features = X.shape[1]
    num_eig = min(classes.shape[0] - 1, n_features)
    scales = neighbourhood_scales(n_features)
    centres = region_centres(
        X, math.ceil(n_basis / (len(scales) * num_eig)), random_state)

    # Neighbours of every centre within every class, once, at the largest
    # scale; each scale uses the first J of them.
    largest = np.minimum(class_counts, max(scales))
    neighbours = []
    for c in range(classes.shape[0]):
        members = np.flatnonzero(class_index == c)
        found = nearest_index(X[members], largest[c])
        neighbours.append(members[found.kneighbors(centres,
                                                   return_distance=False)])

    bases = []
    for scale in scales:
        sizes = np.minimum(class_counts, scale)
        index = np.concatenate([n[:, :s] for n, s in zip(neighbours, sizes)],
                               axis=1)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        directions = []
        for block in region_blocks(index.shape[0], index.shape[1], n_features):
            points = X[index[block]]            # (regions, m, features)
            class_means = (np.add.reduceat(points, starts, axis=1)
                           / sizes[None, :, None])  # (regions, classes, features)
            region_mean = (sizes @ class_means) / sizes.sum()
            within = points - np.repeat(class_means, sizes, axis=1)
            between = ((class_means - region_mean[:, None, :])
                       * np.sqrt(sizes)[None, :, None])
            directions.append(discriminant_directions(
                within, np.swapaxes(between, 1, 2), num_eig, unit_rows=False))
        bases.append(unit_nonzero_rows(np.concatenate(directions)))
    return _trim(np.concatenate(bases), n_basis)


def triplet_basis(X, triplets, n_basis, random_state=None):
    """Local discriminative basis from triplets alone (no labels).

    The anchors are divided into regions by k-means; at each scale the
    triplets whose anchors are nearest the region centre give the
    within scatter (anchor-target differences) and between factor
    (anchor-impostor differences) of :func:`discriminant_directions`.
    Quadruplets ``(a, b, c, d)`` of independent pairs (beyond the paper)
    give ``x_a - x_b`` (similar pair) and ``x_c - x_d`` (dissimilar pair)
    in those roles, located at ``a``: the directions stretch dissimilar
    pairs relative to similar ones.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
    triplets : ndarray of shape (n_triplets, 3) or (n_triplets, 4)
        Indices into ``X`` (:func:`._arrays.compared_pairs`).
    n_basis : int
    random_state : int, RandomState instance or None

    Returns
    -------
    basis : ndarray of shape (n_basis_out, n_features)
    """
    X = centred(X)   # directions do not move with the origin; digits do
    n_features = X.shape[1]
    n_directions = min(TRIPLET_DIRECTIONS, n_features)
    target, impostor = compared_pairs(triplets)
    # A triplet whose two pairs each join a point to a copy of itself
    # (repeated points given other labels) has no direction; regions of
    # such triplets alone would give none, and the basis could come out
    # empty on some draws and not on others.
    point = distinct_rows(X)[1]
    moving = ((point[triplets[:, target[0]]] != point[triplets[:, target[1]]])
              | (point[triplets[:, impostor[0]]]
                 != point[triplets[:, impostor[1]]]))
    if moving.any():
        triplets = triplets[moving]
    centres = region_centres(
        X[np.unique(triplets[:, 0])],
        math.ceil(n_basis / (len(TRIPLET_SCALES) * n_directions)),
        random_state)
    largest = min(max(TRIPLET_SCALES), triplets.shape[0])
    # (Not nearest_index: each anchor appears once a triplet, and another
    # search would order those ties, so the regions' triplets, otherwise.)
    nearest = (NearestNeighbors(n_neighbors=largest).fit(X[triplets[:, 0]])
               .kneighbors(centres, return_distance=False))
    bases = []
    for scale in TRIPLET_SCALES:
        chosen = nearest[:, :min(scale, largest)]
        directions = []
        for block in region_blocks(chosen.shape[0], chosen.shape[1],
                                   n_features):
            # The differences of the chosen triplets only: those of every
            # triplet would be n_triplets x n_features, several times the data.
            regions = triplets[chosen[block]]   # (regions, m, 3 or 4)
            targets = (X[regions[..., target[0]]]
                       - X[regions[..., target[1]]])
            between = np.swapaxes(X[regions[..., impostor[0]]]
                                  - X[regions[..., impostor[1]]], 1, 2)
            # No shrinkage: the anchor-target scatter is the signal here
            # (small along the directions the triplets care for); shrinking it
            # towards isotropy cost MultiTaskSCML's triplet tests 5 points of
            # accuracy.
            directions.append(discriminant_directions(
                targets, between, n_directions, shrink=False, unit_rows=False))
        bases.append(unit_nonzero_rows(np.concatenate(directions)))
    return _trim(np.concatenate(bases), n_basis)


def default_n_basis(n_features):
    """Basis size when the user gives none: ``clip(20 * n_features, 400, 1000)``.

    The paper used 400 elements on its low-dimensional sets and 1,000 on
    Letters and USPS; the sparsity penalty keeps only the useful ones, and
    its generalisation bound depends on the number kept, not on this size.
    """
    return int(np.clip(20 * n_features, 400, 1000))


def task_basis_size(n_tasks, n_basis, n_features, shared_budget=True):
    """The size of each task's basis in a union of ``n_tasks`` of them.

    With ``shared_budget`` (the default size), more than
    ``MAX_DEFAULT_TASKS`` tasks share the budget of that many:
    ``max(n_features, ceil(4 * n_basis / n_tasks))`` each, since every
    solver step and the pair table cost ``T x`` the union's size, and a
    full basis per task would make the fit grow as ``T**2``. The union is
    a set (:func:`distinct_elements`): an element that two task bases share
    appears once, at its first place.
    """
    if shared_budget and n_tasks > MAX_DEFAULT_TASKS:
        return max(n_features, -(-MAX_DEFAULT_TASKS * n_basis // n_tasks))
    return n_basis


def labels_basis(kind, X, y, rows, triplets, n_basis, random_state=None):
    """The generated basis of a learner from labels, for the points ``rows``.

    ``'lda'``: the paper's local Fisher directions of ``X[rows]``
    (:func:`lda_basis`); ``'triplet_diffs'`` (as metric-learn's
    ``SCML_Supervised`` accepts it): the local elements of
    :func:`triplet_basis` on the points' ``triplets`` (indices into ``X``).
    """
    if kind == "triplet_diffs":
        return triplet_basis(X, triplets, n_basis, random_state=random_state)
    return lda_basis(X[rows], y[rows], n_basis, random_state=random_state)


def check_class_labels(y, who):
    """Refuse labels that are not classes (``type_of_target`` binary or
    multiclass) or cannot be sorted, in words that name ``who`` and the
    fix: the triplets are built from classes."""
    check_label_types(y)
    kind = type_of_target(y, input_name="y")
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            "Unknown label type %r for y: %s builds its triplets from "
            "classes, so y must hold class labels. Bin a continuous target "
            "first (e.g. with sklearn.preprocessing.KBinsDiscretizer), or "
            "give SCML triplets directly." % (kind, who))


def check_label_types(y):
    """Raise a ``TypeError`` naming ``y`` when its labels cannot be sorted.

    Labels of mixed types (strings and numbers, or None) would otherwise
    fail in a sort inside numpy, or be taken for a continuous target.
    """
    if y.dtype == object:
        try:
            np.unique(y)
        except TypeError as error:
            raise TypeError(
                "y must hold class labels of one type (all strings or all "
                "numbers), without None: %s. Convert them, e.g. with "
                "y.astype(str)." % error) from None
