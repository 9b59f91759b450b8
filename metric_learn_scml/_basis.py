r"""Basis sets: the rank-one "locally discriminative" elements of SCML.

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

import numpy as np
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.neighbors import NearestNeighbors

from ._defaults import MINIBATCH_MIN_SAMPLES
from ._arrays import (binary_scales, centred, chunk_rows, compared_pairs,
                      distinct_rows)


# Smallest relative ridge of the within-region scatter (where Ledoit-Wolf
# shrinks less): it keeps every solve finite and well conditioned.
# Evidence: the _basis module notes; NOTES.md, "Issue 26 item 4, measured
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
        directions = _feature_space_directions(
            rows_t @ within_rows if n_rows < n_features else gram,
            ridge if n_rows < n_features else None, between_factor,
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


def _feature_space_directions(within, ridge, between_factor, n_directions):
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
    ``within`` is :math:`S_w` (then ``ridge`` is added) or already
    :math:`S_w + \rho I` (``ridge`` None), shape ``(regions, D, D)``.
    """
    n_features = within.shape[-1]
    if ridge is not None:
        within = within + ridge[:, None, None] * np.eye(n_features)
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
        found = NearestNeighbors(n_neighbors=largest[c]).fit(X[members])
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
    centres = region_centres(
        X[np.unique(triplets[:, 0])],
        math.ceil(n_basis / (len(TRIPLET_SCALES) * n_directions)),
        random_state)
    largest = min(max(TRIPLET_SCALES), triplets.shape[0])
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
