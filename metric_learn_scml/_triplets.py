"""Triplet constraints: built from labels, or checked when given.

A triplet ``(i, j, k)`` of indices into a data matrix ``X`` states that
``x_j`` should be closer to ``x_i`` than ``x_k`` is. The supervised learners
build them as in LMNN and in the SCML paper (Shi, Bellet and Sha, 2014,
section "Global Metric Learning"): for every point ``i``, its
``k_genuine`` nearest neighbours of the same class ("targets" ``j``) and its
``k_impostor`` nearest neighbours of another class ("impostors" ``k``), all
``k_genuine * k_impostor`` combinations, under the Euclidean distance.
"""

import numpy as np
from sklearn.neighbors import NearestNeighbors


def triplets_from_labels(X, y, k_genuine=3, k_impostor=10):
    """Build target/impostor triplets from class labels.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    y : ndarray of shape (n_samples,)
        Class labels (any type :func:`numpy.unique` can sort).
    k_genuine : int, default=3
        Targets per point. A class with fewer than ``k_genuine + 1`` members
        uses all its other members; a class of one member gives no triplet.
    k_impostor : int, default=10
        Impostors per point (at most the number of points of other classes).

    Returns
    -------
    triplets : ndarray of shape (n_triplets, 3), dtype=intp
        Rows ``(anchor, target, impostor)``, grouped by anchor.

    Raises
    ------
    ValueError
        If ``y`` has fewer than two classes, or no class has two members.
    """
    classes, class_index = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            "y has a single class (%r): triplet constraints need at least two "
            "classes. Pass labels with two or more classes." % (classes[0],))
    blocks = []
    for c in range(classes.shape[0]):
        members = np.flatnonzero(class_index == c)
        others = np.flatnonzero(class_index != c)
        n_targets = min(k_genuine, members.shape[0] - 1)
        if n_targets < 1:
            continue
        n_impostors = min(k_impostor, others.shape[0])
        # kneighbors() without X leaves each point out of its own neighbours,
        # even when it has exact duplicates.
        targets = members[NearestNeighbors(n_neighbors=n_targets)
                          .fit(X[members])
                          .kneighbors(return_distance=False)]
        impostors = others[NearestNeighbors(n_neighbors=n_impostors)
                           .fit(X[others])
                           .kneighbors(X[members], return_distance=False)]
        per_anchor = n_targets * n_impostors
        blocks.append(np.column_stack([
            np.repeat(members, per_anchor),
            np.repeat(targets, n_impostors, axis=1).ravel(),
            np.tile(impostors, (1, n_targets)).ravel(),
        ]))
    if not blocks:
        raise ValueError(
            "Every class of y has a single member, so no point has a same-class "
            "neighbour to build triplets from. Each class needs at least two "
            "samples.")
    return np.concatenate(blocks).astype(np.intp, copy=False)


def triplets_to_indices(triplets):
    """Turn triplets of points into indices into their distinct points.

    Parameters
    ----------
    triplets : ndarray of shape (n_triplets, 3, n_features)

    Returns
    -------
    indices : ndarray of shape (n_triplets, 3), dtype=intp
    X : ndarray of shape (n_distinct_points, n_features)
        The distinct points, so that ``X[indices]`` equals ``triplets``.
    """
    n_triplets, _, n_features = triplets.shape
    first, inverse = distinct_rows(triplets.reshape(-1, n_features))
    X = triplets.reshape(-1, n_features)[first]
    return inverse.reshape(n_triplets, 3), X


def distinct_rows(X):
    """Indices of the distinct rows of ``X`` and of each row's distinct row.

    Rows are compared as raw bytes, which is many times faster than
    ``np.unique(X, axis=0)``; the only difference, ``0.0`` and ``-0.0``
    counting as distinct, only adds a duplicate point.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)

    Returns
    -------
    first : ndarray of shape (n_distinct,), dtype=intp
        Index of one occurrence of each distinct row.
    inverse : ndarray of shape (n_rows,), dtype=intp
        ``X[first][inverse]`` equals ``X``.
    """
    X = np.ascontiguousarray(X)
    rows = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return first.astype(np.intp), inverse.reshape(-1).astype(np.intp)


def pair_index(triplets, task_offsets=None):
    """The distinct pairs a set of triplets compares, and where each triplet's are.

    A triplet ``(i, j, k)`` compares the pairs ``(i, j)`` and ``(i, k)``.
    Triplets built from labels share most of them (every anchor has
    ``k_genuine * k_impostor`` triplets but only ``k_genuine + k_impostor``
    pairs), so distances are computed once per distinct pair.

    Parameters
    ----------
    triplets : ndarray of shape (n_triplets, 3) of int
    task_offsets : array-like of shape (T + 1,), default=None
        Triplets grouped by task (task ``t`` owns rows
        ``task_offsets[t]:task_offsets[t + 1]``). The pairs are then
        distinct within each task and grouped by task, so that one task's
        distances are one contiguous block (a pair two tasks share is
        listed once per task).

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), dtype=intp
        Distinct pairs, each with its smaller index first (squared distances
        under any of the metrics here are symmetric in the pair).
    triplet_pairs : ndarray of shape (n_triplets, 2), dtype=intp
        Row ``t`` holds the indices into ``pairs`` of triplet ``t``'s
        (anchor, target) and (anchor, impostor) pairs.
    pair_offsets : ndarray of shape (T + 1,), dtype=intp
        Only with ``task_offsets``: task ``t``'s pairs are
        ``pairs[pair_offsets[t]:pair_offsets[t + 1]]``.
    """
    both = np.concatenate([triplets[:, [0, 1]], triplets[:, [0, 2]]])
    both.sort(axis=1)
    n_points = int(both.max()) + 1 if both.size else 1
    codes = both[:, 0].astype(np.int64) * n_points + both[:, 1]
    if task_offsets is not None:
        task_offsets = np.asarray(task_offsets)
        task = np.repeat(np.arange(task_offsets.shape[0] - 1),
                         np.diff(task_offsets))
        codes += np.tile(task, 2).astype(np.int64) * n_points ** 2
    codes, inverse = np.unique(codes, return_inverse=True)
    within = codes % n_points ** 2
    pairs = np.column_stack([within // n_points, within % n_points]).astype(
        np.intp, copy=False)
    triplet_pairs = inverse.reshape(2, -1).T.astype(np.intp)
    if task_offsets is None:
        return pairs, triplet_pairs
    pair_offsets = np.searchsorted(
        codes, np.arange(task_offsets.shape[0]) * n_points ** 2)
    return pairs, triplet_pairs, pair_offsets.astype(np.intp)
