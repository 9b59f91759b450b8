r"""SCML-Local's maths: the kernel PCA embedding and forward-backward.

SCML-Local (Shi, Bellet and Sha, 2014, section "Local metric learning")
gives every point :math:`x` its own weights :math:`w_x = (A^T z_x + c)^2`
(elementwise) over the basis, from an embedding :math:`z_x` of the point;
the triplets are those of :mod:`metric_learn_scml._problem` and the
penalty is :math:`\beta` times the sum of the column norms of
:math:`\tilde A = [A; c]`. The model is in :mod:`metric_learn_scml.local`;
its maths is here.

**The kernel PCA embedding of the points**, the input of SCML-Local's
weights. SCML-Local (Shi, Bellet and Sha, AAAI 2014, section "Local Metric
Learning", footnote on the embedding) gives every point :math:`x` the
weights :math:`w_x = (A^T z_x + c)^2` of a kernel PCA embedding
:math:`z_x \in \mathbb{R}^{D'}` with the RBF kernel

.. math:: k(x, y) = \exp\!\big(-\|x - y\|^2 / (2 \sigma^2)\big),

:math:`\sigma` being the median Euclidean distance between training points
(the paper's "bandwidth set to the median Euclidean distance in the data",
in the usual form of the Gaussian kernel). The authors' code divides the
squared distance by the median distance itself, not by its square: a
kernel that depends on the data's units, and that on standardised data
decays as :math:`\exp(-\sqrt{2 d})` between typical points in :math:`d`
dimensions, so that new points far from every training point (above
about 50 features, most of them) all got nearly the same embedding, and
the local model was a global one for them. With :math:`K` the ``n x n`` training kernel,
:math:`H = I - \mathbf{1}\mathbf{1}^T / n` and :math:`H K H = V \Lambda V^T`
(top :math:`D'` eigenpairs), training points get
:math:`Z = V \Lambda^{1/2}` and a new point with kernel row
:math:`k_y` gets its projection on the same centred feature-space
directions,

.. math:: z_y = \big(k_y - \tfrac1n \mathbf{1}^T K\big) H V \Lambda^{-1/2},

which equals the training rows for training points.

The exact embedding holds the ``n x n`` kernel: quadratic memory. From
:data:`NYSTROEM_MIN_SAMPLES` points on, the kernel is replaced by its
Nyström approximation (Williams and Seeger, 2001) on :math:`m` landmark
points :math:`L` drawn from the data: with :math:`K_{XL}` the kernel
between the points and the landmarks and :math:`N = K_{LL}^{-1/2}`
(scikit-learn's ``Nystroem``), the features :math:`\Phi = K_{XL} N^T`
satisfy :math:`\Phi \Phi^T \approx K`, and kernel PCA of that kernel is
ordinary PCA of :math:`\Phi`: with :math:`\bar\phi` their mean and
:math:`V` the top eigenvectors of their covariance,

.. math:: z_y = (\phi_y - \bar\phi) V
             = (k_{yL} - \bar k_L) N^T V,

one product with an ``m x D'`` matrix per point, after one pass over the
data that accumulates the ``m x m`` covariance of the kernel rows. Memory
is ``O(n D' + m^2)`` and time ``O(n m (d + m))``. The bandwidth is the
median distance between the landmarks, an estimate of the exact rule's
median over all pairs.
"""

import numbers

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
from sklearn.utils import check_random_state

from ._arrays import chunk_rows, far_mean
from ._defaults import NYSTROEM_MIN_SAMPLES
from ._problem import (SquaredDifferences, group_soft_threshold,
                       projection_columns, triplet_scale)
from ._solvers import Monitor, capped_batch_size


def local_weights(embedding, coef):
    r"""SCML-Local's weights :math:`w_x = (A^T z_x + c)^2` of every point.

    ``embedding`` holds :math:`\tilde z_x = (z_x, 1)` as rows and ``coef``
    is :math:`\tilde A = [A; c]`, so :math:`\tilde z_x^T \tilde A = A^T
    z_x + c`; squares are elementwise. Returns ``(n_points, K)``.
    """
    return np.square(embedding @ coef)


def local_hinge_gradient(coef, anchor_embedding, gaps):
    r"""Mean hinge of SCML-Local triplets and its gradient w.r.t. :math:`[A; c]`.

    With the anchor's weights :math:`w_i = u_i^2`, :math:`u_i = \tilde z_i^T
    \tilde A` (:math:`\tilde z_i = (z_i, 1)`, :math:`\tilde A = [A; c]`,
    squares elementwise), a triplet's hinge is
    :math:`[1 + \sum_k u_{ik}^2 g_{ijk,k}]_+` and, where it is positive,

    .. math:: \frac{\partial}{\partial \tilde A_{:,k}} = 2\, u_{ik}\, g_{ijk,k}\, \tilde z_i.

    Parameters
    ----------
    coef : ndarray of shape (D' + 1, K)
        :math:`\tilde A`: rows of :math:`A`, then :math:`c` last.
    anchor_embedding : ndarray of shape (n_triplets, D' + 1)
        :math:`\tilde z_i` of each triplet's anchor (embedding, then 1).
    gaps : ndarray of shape (n_triplets, K)
        :math:`g_{ijk} = s_{ij} - s_{ik}` of each triplet.

    Returns
    -------
    loss : float
        Mean hinge.
    gradient : ndarray of shape (D' + 1, K)
    """
    roots = anchor_embedding @ coef
    slopes = roots * gaps
    margins = 1.0 + np.einsum("bk,bk->b", slopes, roots)
    hinges = np.maximum(margins, 0.0)
    # 2 / n on the violated triplets, 0 elsewhere.
    slopes *= (margins > 0)[:, None] * (2.0 / gaps.shape[0])
    return hinges.sum() / gaps.shape[0], anchor_embedding.T @ slopes


def local_kkt_residual(differences, triplet_pairs, anchors, embedding, coef,
                       beta):
    r"""How far ``coef`` is from a stationary point of SCML-Local's objective.

    :math:`F(\tilde A) = f(\tilde A) + \beta \sum_k \|\tilde A_{:,k}\|_2`
    is not convex (:math:`w_x = (\tilde z_x^T \tilde A)^2`), so no duality
    gap bounds the distance to its optimum; what can be certified is a
    stationary point. Wherever no triplet sits exactly on its margin,
    :math:`f` is differentiable and the first-order conditions are those
    of a group lasso:

    .. math::

        \nabla_k f + \beta \frac{\tilde A_{:,k}}{\|\tilde A_{:,k}\|_2} = 0
        \quad (\tilde A_{:,k} \ne 0), \qquad
        \|\nabla_k f\|_2 \le \beta \quad (\tilde A_{:,k} = 0),

    with :math:`\nabla f` the full-batch gradient of the mean hinge
    (:func:`local_hinge_gradient` over every triplet). A zero column has
    :math:`\nabla_k f = 0` (its :math:`u_{ik}` vanish for every anchor),
    so it always meets its condition.

    Parameters
    ----------
    differences : SquaredDifferences
    triplet_pairs : ndarray of shape (n_triplets, 2)
    anchors : ndarray of shape (n_triplets,)
    embedding : ndarray of shape (n_points, D' + 1)
    coef : ndarray of shape (D' + 1, K)
    beta : float

    Returns
    -------
    residual : float
        :math:`\max_k \|\nabla_k f + \beta \tilde A_{:,k} /
        \|\tilde A_{:,k}\|_2\|_2` over the non-zero columns: 0 at a
        stationary point, in the units of :math:`\nabla f` (those of
        ``beta``).
    """
    live = np.flatnonzero(coef.any(axis=0))
    if live.shape[0] == 0:
        return 0.0
    columns = coef[:, live]
    live_differences = SquaredDifferences(
        projection_columns(differences.projections, live), differences.pairs,
        max_bytes=0)
    n_triplets = triplet_pairs.shape[0]
    gradient = np.zeros_like(columns)
    chunk = chunk_rows(live.shape[0] + embedding.shape[1])
    for start in range(0, n_triplets, chunk):
        rows = slice(start, min(start + chunk, n_triplets))
        both = live_differences.rows(triplet_pairs[rows])
        _, part = local_hinge_gradient(
            columns, embedding[anchors[rows]],
            both[..., 0, :].astype(float) - both[..., 1, :])
        gradient += part * (both.shape[0] / n_triplets)
    violation = gradient + beta * columns / np.linalg.norm(columns, axis=0)
    return float(np.linalg.norm(violation, axis=0).max())


def oriented_pairs(anchors, triplet_pairs):
    """The distinct (anchor, pair) combinations of a set of triplets.

    A local distance depends on which end of a pair is the anchor, so the
    distances the local objective needs are those of (anchor, pair) couples.

    Returns
    -------
    couples : ndarray of shape (n_couples, 2)
        (anchor index, pair id).
    triplet_couples : ndarray of shape (n_triplets, 2)
        Each triplet's (target, impostor) couple ids.
    """
    n_pairs = int(triplet_pairs.max()) + 1 if triplet_pairs.size else 1
    codes = (anchors[:, None].astype(np.int64) * n_pairs + triplet_pairs)
    unique, inverse = np.unique(codes.ravel(), return_inverse=True)
    couples = np.column_stack([unique // n_pairs, unique % n_pairs])
    return (couples.astype(np.intp),
            inverse.reshape(triplet_pairs.shape).astype(np.intp))


def local_objective(differences, couples, triplet_couples, embedding, coef,
                    beta):
    r"""The SCML-Local objective, exactly, over all triplets.

    .. math::

        F(A, c) = \frac{1}{|C|} \sum_{(i,j,k)} \big[1 + w_{x_i} \cdot
        (s_{ij} - s_{ik})\big]_+ + \beta \sum_k \|(a_k, c_k)\|_2,
        \qquad w_x = (A^T z_x + c)^2 .

    Parameters
    ----------
    differences : SquaredDifferences
    couples, triplet_couples : ndarray
        From :func:`oriented_pairs`.
    embedding : ndarray of shape (n_points, D' + 1)
        :math:`\tilde z` of every point (embedding, then 1).
    coef : ndarray of shape (D' + 1, K)
    beta : float

    Returns
    -------
    total, loss : float
    """
    loss = float(np.maximum(local_margins(differences, couples,
                                          triplet_couples, embedding, coef),
                            0).mean())
    return loss + beta * float(np.linalg.norm(coef, axis=0).sum()), loss


def local_margins(differences, couples, triplet_couples, embedding, coef):
    r""":math:`1 + d^2(x_i, x_j) - d^2(x_i, x_k)` of each triplet under
    SCML-Local's metric at its anchor (arguments as :func:`local_objective`)."""
    # Single precision, as the table of differences: the gathers below are
    # the cost of an evaluation.
    weights = local_weights(embedding, coef).astype(np.float32)
    distances = np.empty(couples.shape[0])
    chunk = chunk_rows(differences.n_features)
    for start in range(0, couples.shape[0], chunk):
        block = couples[start:start + chunk]
        distances[start:start + chunk] = np.einsum(
            "pk,pk->p", weights[block[:, 0]], differences.rows(block[:, 1]))
    return 1.0 + distances[triplet_couples[:, 0]] - distances[
        triplet_couples[:, 1]]


def forward_backward(differences, triplet_pairs, anchors, embedding, coef,
                     beta, learning_rate=0.3, batch_size=32, max_iter=20000,
                     eval_every=250, tol=1e-3, n_iter_no_change=4,
                     random_state=None, verbose=False, name="LocalSCML",
                     held_out=None):
    r"""Stochastic forward-backward splitting for SCML-Local.

    Each iteration takes a gradient step on the mean hinge of
    ``batch_size`` random triplets (:func:`local_hinge_gradient`), then the
    proximal step of the penalty, the group soft-threshold of every column
    :math:`(a_k, c_k)` (:func:`group_soft_threshold`, no sign constraint):

    .. math::

        \tilde A \leftarrow \operatorname{prox}_{\eta\beta\|\cdot\|_{2,1}}
        \big(\tilde A - \eta \nabla\big),
        \qquad \tilde A_{:,k} \leftarrow \max\!\Big(0, 1 -
        \frac{\eta\beta}{\|\tilde A_{:,k}\|_2}\Big) \tilde A_{:,k}.

    The step is :math:`\eta = \text{learning\_rate} / s` with :math:`s` the
    mean absolute entry of the triplet vectors :math:`g`: in units where
    :math:`g` is of order one, as in :func:`~metric_learn_scml._solvers.rda`, one learning rate suits
    data of any scale. The paper's solver took 200,001 single-triplet steps
    of a fixed 0.7 and applied the prox every 5,000 of them; here mini-
    batches and a prox at every step are used instead, and, as in
    :func:`~metric_learn_scml._solvers.rda`, the full objective (:func:`local_objective`) is evaluated
    every ``eval_every`` iterations, the best iterate is kept (the start
    included, so the result is never worse than the start) and the solver
    stops after ``n_iter_no_change`` evaluations without an improvement of
    ``tol``.

    With ``held_out`` (early stopping, as scikit-learn's
    ``SGDClassifier(early_stopping=True)``; beyond the paper), the steps
    draw from the other triplets only, and what is evaluated, kept at its
    best and stopped on is the held-out triplet error instead (the
    fraction of held-out triplets with :math:`d^2(x_i, x_j) \ge
    d^2(x_i, x_k)`: a tie counts as a wrong order; NaN where a margin is
    not finite). The training objective falls for as long as the model,
    with far more parameters than points, can fit its triplets (tens of
    thousands of steps), while the held-out error stops improving within
    a few thousand: the rule on the objective ran to ``max_iter``, and the
    model could end worse than its start on new points.

    Parameters
    ----------
    differences : SquaredDifferences
    triplet_pairs : ndarray of shape (n_triplets, 2)
    anchors : ndarray of shape (n_triplets,)
        Index of each triplet's anchor point.
    embedding : ndarray of shape (n_points, D' + 1)
        :math:`\tilde z` of every point (embedding, then a column of ones).
    coef : ndarray of shape (D' + 1, K)
        Starting point (SCML-Local starts from :math:`A = 0`,
        :math:`c = \sqrt{w^*}`). Not modified.
    beta : float
    learning_rate : float, default=0.3
    batch_size, max_iter, eval_every, tol, n_iter_no_change, random_state, \
verbose, name
        As in :func:`~metric_learn_scml._solvers.rda`.
    held_out : ndarray of int, default=None
        Rows of the triplets held out for early stopping (see above).

    Returns
    -------
    SolverResult
        ``weights`` holds the best :math:`\tilde A` (D' + 1, K);
        ``objective`` and ``history`` hold the held-out error where
        ``held_out`` is given.
    """
    rng = check_random_state(random_state)
    training = np.arange(triplet_pairs.shape[0])
    scored = training
    if held_out is not None:
        scored = np.asarray(held_out)
        training = np.setdiff1d(training, scored)
    n_triplets = training.shape[0]
    batch_size = capped_batch_size(batch_size, n_triplets)
    couples, triplet_couples = oriented_pairs(anchors[scored],
                                              triplet_pairs[scored])

    scale = triplet_scale(differences, triplet_pairs, rng)
    step = learning_rate / scale

    # A zero column has a zero gradient and stays zero: steps and
    # evaluations only touch the live columns, with a table of their
    # squared differences only (rebuilt when columns die).
    coef = np.array(coef, dtype=float)
    alive = np.flatnonzero(coef.any(axis=0))
    live = coef[:, alive]
    live_differences = SquaredDifferences(
        projection_columns(differences.projections, alive), differences.pairs)

    def evaluate():
        with np.errstate(over="ignore", invalid="ignore"):
            if held_out is None:
                return local_objective(live_differences, couples,
                                       triplet_couples, embedding, live,
                                       beta)[0]
            margins = local_margins(live_differences, couples,
                                    triplet_couples, embedding, live)
            return (float(np.mean(margins >= 1.0))
                    if np.isfinite(margins).all() else np.nan)

    monitor = Monitor(name, verbose, coef, evaluate(), alive.shape[0], tol,
                      n_iter_no_change, column="Objective" if held_out is None
                      else "Held-out error")
    iteration = 0
    while iteration < max_iter:
        block = min(eval_every, max_iter - iteration)
        # The mini-batches of a whole block are drawn and gathered at once.
        rows = training[rng.randint(0, n_triplets, size=(block, batch_size))]
        both = live_differences.rows(triplet_pairs[rows])
        gaps = both[..., 0, :].astype(float) - both[..., 1, :]
        anchor_embedding = embedding[anchors[rows]]
        with np.errstate(over="ignore", invalid="ignore"):
            for batch in range(block):
                _, gradient = local_hinge_gradient(
                    live, anchor_embedding[batch], gaps[batch])
                live = group_soft_threshold(live - step * gradient,
                                            step * beta)
        iteration += block
        survivors = live.any(axis=0)

        def full(alive=alive, live=live):
            weights = np.zeros_like(coef)
            weights[:, alive] = live
            return weights

        if monitor.update(iteration, evaluate(), int(survivors.sum()), full):
            break
        if not survivors.all():
            alive, live = alive[survivors], live[:, survivors]
            live_differences = SquaredDifferences(
                projection_columns(differences.projections, alive),
                differences.pairs)
    return monitor.finish(iteration)


def local_pairwise_distances(weights, basis, X, Y=None, squared=False):
    r"""Distances from every row of ``X`` to every row of ``Y`` (``None``:
    ``X``), row ``i`` under the local weights ``weights[i]`` on ``basis``:
    :math:`d(x, y)^2 = \sum_k w_{x,k} (p_{x,k} - p_{y,k})^2` with
    :math:`p = B x`, expanded into three matrix products, so no ``D x D``
    matrix is built. Returns ``(n_X, n_Y)``.
    """
    same = Y is None
    active = np.flatnonzero(weights.any(axis=0))
    weights = weights[:, active]
    X_projected = X @ basis[active].T
    Y_projected = X_projected if same else Y @ basis[active].T
    # The expansion below loses the digits of an offset: remove it.
    offset = far_mean(Y_projected)
    if offset is not None:
        X_projected, Y_projected = X_projected - offset, Y_projected - offset
    distances = (weights * X_projected) @ (-2.0 * Y_projected.T)
    distances += np.einsum("nk,nk->n", weights,
                           X_projected * X_projected)[:, None]
    distances += weights @ (Y_projected * Y_projected).T
    np.maximum(distances, 0.0, out=distances)
    if same:
        # the expansion leaves rounding (about 1e-7) where 0 is exact,
        # as scikit-learn's euclidean_distances does for Y=None
        np.fill_diagonal(distances, 0.0)
    return distances if squared else np.sqrt(distances, out=distances)


# Landmarks of the Nyström approximation by default. The leading components
# are captured first: 1,000 landmarks hold 99 % of the variance of the
# exact top 10 components and over 90 % of the top 40 on 10-class data
# (the figures are in the commit that set it); the cost grows as n m^2.
# Evidence: the commit that set it.
N_LANDMARKS = 1000

# Eigenvalues below this fraction of the largest are treated as zero: their
# directions carry no real variance of the training data.
# Evidence: numerical (rounding only).
RELATIVE_EIGENVALUE_FLOOR = 1e-6

# Above this many points, the top eigenpairs come from ARPACK instead of a
# full eigendecomposition (3,000 points: 1.2 s instead of 9 s, one thread).
# Evidence: speed only (both give the same eigenpairs).
DENSE_EIGEN_POINTS = 600

# Entries of the float64 block of distances computed at a time (16 MiB).
DISTANCE_BLOCK_ELEMENTS = 1 << 21


def _nonzero_eigenpairs(eigenvalues, eigenvectors):
    """The pairs (eigenvalues decreasing) above the relative floor."""
    keep = eigenvalues > RELATIVE_EIGENVALUE_FLOOR * max(
        eigenvalues[0] if eigenvalues.size else 0.0, np.finfo(float).tiny)
    return eigenvalues[keep], eigenvectors[:, keep]


def _median_pair_distance(squared, counts=None):
    """Median distance over the pairs of distinct points, from all squared ones.

    The full matrix holds each pair twice and ``n`` zeros on its diagonal,
    the smallest entries; with the zeros dropped, the middle entries of the
    rest are those of the pairs, so a partition of the matrix (no index
    arrays for the upper triangle) finds them. ``counts``: row ``j`` stands
    for ``counts[j]`` repeated points, and the median is that of all
    their pairs (a repeated point's copies at distance 0).
    """
    if counts is not None:
        return _weighted_median_pair_distance(squared, counts)
    n_samples = squared.shape[0]
    n_off_diagonal = n_samples * (n_samples - 1)
    if n_off_diagonal == 0:
        return 0.0
    middle = [n_samples + (n_off_diagonal - 1) // 2,
              n_samples + n_off_diagonal // 2]
    values = np.partition(squared.ravel(), middle)[middle]
    return float(np.sqrt(np.maximum(values, 0)).mean())


def _weighted_median_pair_distance(squared, counts):
    """:func:`_median_pair_distance` of the points ``counts`` repeats."""
    counts = np.asarray(counts, dtype=float)
    n_samples = counts.sum()
    weights = np.outer(counts, counts)
    weights[np.diag_indices_from(weights)] -= counts
    n_pairs = n_samples * (n_samples - 1)
    order = np.argsort(squared, axis=None, kind="stable")
    cumulative = np.cumsum(weights.ravel()[order])
    middle = np.searchsorted(cumulative, [(n_pairs - 1) // 2, n_pairs // 2],
                             side="right")
    values = squared.ravel()[order[middle]]
    return float(np.sqrt(np.maximum(values, 0)).mean())


def _squared_distances(X, dtype):
    """All squared Euclidean distances of ``X`` as ``dtype``, zero diagonal.

    Built in blocks of rows of 16 MiB (float64) so that a float32 result
    needs no full-size float64 temporary: 20,000 points peak at 1.6 GB
    for the matrix instead of 4.8 GB.
    """
    n_samples = X.shape[0]
    squared = np.empty((n_samples, n_samples), dtype=dtype)
    norms = np.einsum("ij,ij->i", X, X)[None, :]
    block = max(1, DISTANCE_BLOCK_ELEMENTS // max(1, n_samples))
    for start in range(0, n_samples, block):
        stop = min(start + block, n_samples)
        squared[start:stop] = euclidean_distances(
            X[start:stop], X, Y_norm_squared=norms, squared=True)
        rows = np.arange(start, stop)
        squared[rows, rows] = 0.0
    return squared


class KernelPCAEmbedding:
    r"""Centred RBF kernel PCA with the median-distance bandwidth.

    Parameters
    ----------
    n_components : int
        Requested dimension :math:`D'` (>= 1). At most ``n_samples - 1``
        components are kept (the centred kernel has rank ``n - 1`` at
        most; the Nyström kernel, ``n_landmarks`` at most), fewer when the
        remaining eigenvalues are numerically zero.
    random_state : int, RandomState instance or None
        Seeds ARPACK's starting vector, and the landmarks.
    method : {'auto', 'exact', 'nystroem'}, default='auto'
        ``'exact'``: the ``n x n`` kernel. ``'nystroem'``: its Nyström
        approximation on ``n_landmarks`` points (module docstring).
        ``'auto'``: exact below :data:`NYSTROEM_MIN_SAMPLES` points.
    n_landmarks : int, default=N_LANDMARKS
        Landmarks :math:`m` of the Nyström approximation (all the points
        when there are fewer).

    Attributes
    ----------
    method_ : {'exact', 'nystroem'}
        The method used.
    bandwidth_ : float
        :math:`\sigma`, the median pairwise distance (between the
        landmarks for ``'nystroem'``; 1 if all the points coincide).
    gamma_ : float
        :math:`1 / (2 \sigma^2)`: the kernel is
        :math:`\exp(-\gamma \|x - y\|^2)`.
    n_components_ : int
        Components kept.
    embedding_ : ndarray of shape (n_samples, n_components_)
        :math:`Z` of the training points.
    offset_ : ndarray of shape (n_features,) or None
        The training mean, subtracted from every point before its
        distances are computed, where it lies far from the origin
        (:func:`~metric_learn_scml._arrays.far_mean`); None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).randn(30, 4)
    >>> embedding = KernelPCAEmbedding(5, random_state=0).fit(X)
    >>> np.allclose(embedding.transform(X), embedding.embedding_)
    True
    """

    def __init__(self, n_components, random_state=None, method="auto",
                 n_landmarks=N_LANDMARKS):
        self.n_components = n_components
        self.random_state = random_state
        self.method = method
        self.n_landmarks = n_landmarks

    def _set_bandwidth(self, median):
        """``bandwidth_`` (the median distance, 1 if all points coincide)
        and the kernel's ``gamma_ = 1 / (2 bandwidth_**2)``."""
        self.bandwidth_ = median if median > 0 else 1.0
        self.gamma_ = 0.5 / self.bandwidth_ ** 2

    def fit(self, X):
        """Fit on training points ``X`` (n_samples, n_features), validated."""
        if self.method not in ("auto", "exact", "nystroem"):
            raise ValueError("method must be 'auto', 'exact' or 'nystroem', "
                             "got %r." % (self.method,))
        if (isinstance(self.n_landmarks, bool)
                or not isinstance(self.n_landmarks, numbers.Integral)
                or self.n_landmarks < 1):
            raise ValueError("n_landmarks must be a positive integer, got %r."
                             % (self.n_landmarks,))
        # The kernel is of distances: far from the origin, centre first
        # (and new points alike) so that their expansion keeps its digits.
        self.offset_ = far_mean(X)
        if self.offset_ is not None:
            X = X - self.offset_
        self.method_ = ("nystroem" if self.method == "nystroem" or (
            self.method == "auto" and X.shape[0] >= NYSTROEM_MIN_SAMPLES)
            else "exact")
        if self.method_ == "nystroem":
            return self._fit_nystroem(X)
        return self._fit_exact(X)

    def _fit_exact(self, X):
        n_samples = X.shape[0]
        if n_samples > DENSE_EIGEN_POINTS:
            distinct, inverse, counts = np.unique(
                X, axis=0, return_inverse=True, return_counts=True)
            if distinct.shape[0] <= DENSE_EIGEN_POINTS:
                return self._fit_distinct(distinct, inverse.reshape(-1),
                                          counts)
        # Above the dense limit the n x n kernel is held in single precision
        # for ARPACK: its entries lie in [0, 1], and every pass over it
        # (exp, centring, the products) moves half the memory.
        dtype = np.float32 if n_samples > DENSE_EIGEN_POINTS else np.float64
        squared = _squared_distances(X, dtype)
        median = _median_pair_distance(squared)
        self._set_bandwidth(median)
        kernel = np.exp(squared * dtype(-self.gamma_), out=squared)
        self.X_fit_ = X
        self.kernel_column_means_ = kernel.mean(axis=0, dtype=np.float64)
        self.kernel_mean_ = self.kernel_column_means_.mean()
        column_means = self.kernel_column_means_.astype(dtype)
        centred = kernel
        centred -= column_means[None, :]
        centred -= column_means[:, None]
        centred += dtype(self.kernel_mean_)
        n_wanted = min(int(self.n_components), n_samples - 1)
        eigenvalues, eigenvectors = self._top_eigenpairs(centred, n_wanted)
        eigenvalues, eigenvectors = _nonzero_eigenpairs(eigenvalues,
                                                        eigenvectors)
        self.n_components_ = int(eigenvalues.shape[0])
        self.embedding_ = eigenvectors * np.sqrt(eigenvalues)
        # z_y = (k_y - column means) H V / sqrt(lambda); H V = V because the
        # eigenvectors of a centred kernel with non-zero eigenvalues are
        # orthogonal to the constant vector.
        self.projection_ = eigenvectors / np.sqrt(eigenvalues)
        return self

    def _fit_distinct(self, distinct, inverse, counts):
        r"""The exact embedding of points that are few distinct ones, repeated.

        ARPACK's Lanczos runs out of directions on a kernel of lower rank
        than its subspace (rank 13 for 1,400 KEEL titanic points, 14 of
        them distinct) and then draws new ones from a seed of its own, so
        two fits differed. With :math:`E` the ``n x m`` indicator of which
        distinct point :math:`u_j` each point is, :math:`C` the diagonal
        of their counts and :math:`P = I - \mathbf 1 c^T / n`, the
        centred kernel is :math:`H K H = E P K_u P^T E^T`, and its
        eigenvectors of non-zero eigenvalue are :math:`v = E C^{-1/2} b`
        for the eigenvectors :math:`b` of the ``m x m`` symmetric
        :math:`S = C^{1/2} P K_u P^T C^{1/2}`, with the same eigenvalues
        and norms: the same embedding, from a small dense problem. The
        bandwidth is the median over the pairs of all ``n`` points.
        """
        n_samples = int(counts.sum())
        squared = _squared_distances(distinct, np.float64)
        median = _median_pair_distance(squared, counts)
        self._set_bandwidth(median)
        kernel = np.exp(squared * (-self.gamma_), out=squared)
        # Means over all the points: k(u_j, .) averaged with the counts.
        column_means = kernel @ (counts / n_samples)
        self.kernel_mean_ = float(column_means @ counts / n_samples)
        centred = kernel
        centred -= column_means[None, :]
        centred -= column_means[:, None]
        centred += self.kernel_mean_
        roots = np.sqrt(counts)
        centred *= roots[:, None]
        centred *= roots[None, :]
        n_wanted = min(int(self.n_components), distinct.shape[0] - 1)
        eigenvalues, eigenvectors = self._top_eigenpairs(centred, n_wanted)
        eigenvalues, eigenvectors = _nonzero_eigenpairs(eigenvalues,
                                                        eigenvectors)
        self.n_components_ = int(eigenvalues.shape[0])
        self.embedding_ = (eigenvectors / roots[:, None]
                           * np.sqrt(eigenvalues))[inverse]
        # transform sums over the distinct points: the n-point projection
        # E C^{-1/2} b / sqrt(lambda), its rows of a point summed.
        self.X_fit_ = distinct
        self.kernel_column_means_ = column_means
        self.projection_ = eigenvectors * roots[:, None] / np.sqrt(eigenvalues)
        return self

    def _top_eigenpairs(self, matrix, n_wanted):
        """The ``n_wanted`` largest eigenpairs, decreasing."""
        n_samples = matrix.shape[0]
        if n_wanted < 1:
            return np.empty(0), np.empty((n_samples, 0))
        if n_samples <= DENSE_EIGEN_POINTS or n_wanted >= n_samples // 2:
            eigenvalues, eigenvectors = eigh(
                matrix.astype(np.float64, copy=False),
                subset_by_index=[n_samples - n_wanted, n_samples - 1])
        else:
            # The matrix is single precision here (see fit): half the time
            # of ARPACK's matrix-vector products.
            start = check_random_state(self.random_state).uniform(
                -1, 1, n_samples)
            eigenvalues, eigenvectors = eigsh(
                matrix, k=n_wanted, which="LA",
                v0=start.astype(np.float32), tol=1e-6)
            eigenvalues = eigenvalues.astype(float)
            eigenvectors = eigenvectors.astype(float)
        order = np.argsort(eigenvalues)[::-1]
        return eigenvalues[order], eigenvectors[:, order]

    def _fit_nystroem(self, X):
        rng = check_random_state(self.random_state)
        n_samples = X.shape[0]
        n_landmarks = min(int(self.n_landmarks), n_samples)
        landmarks = X[np.sort(rng.choice(n_samples, n_landmarks,
                                         replace=False))]
        median = _median_pair_distance(_squared_distances(landmarks,
                                                          np.float64))
        self._set_bandwidth(median)
        # n_components = all the landmarks: Nystroem keeps them all (in an
        # order of its own) and gives N = K_LL^{-1/2} as normalization_.
        self.nystroem_ = Nystroem(
            kernel="rbf", gamma=self.gamma_, n_components=n_landmarks,
            random_state=rng.randint(np.iinfo(np.int32).max)).fit(landmarks)
        normalization = self.nystroem_.normalization_
        # One pass: mean and covariance of the kernel rows k_xL, shifted by
        # the first block's mean against cancellation.
        shift = total = scatter = None
        for rows in self._kernel_rows(X):
            if shift is None:
                shift = rows.mean(axis=0)
                total = np.zeros_like(shift)
                scatter = np.zeros((shift.shape[0], shift.shape[0]))
            rows -= shift
            total += rows.sum(axis=0)
            scatter += rows.T @ rows
        offset = total / n_samples
        covariance = scatter / n_samples - np.outer(offset, offset)
        # Covariance of the features phi = N k: N C N^T.
        covariance = normalization @ covariance @ normalization.T
        n_wanted = min(int(self.n_components), n_landmarks, n_samples - 1)
        eigenvalues, eigenvectors = eigh(
            (covariance + covariance.T) / 2,
            subset_by_index=[n_landmarks - max(n_wanted, 1), n_landmarks - 1])
        order = np.argsort(eigenvalues)[::-1][:n_wanted]
        eigenvalues, eigenvectors = _nonzero_eigenpairs(
            eigenvalues[order], eigenvectors[:, order])
        self.n_components_ = int(eigenvalues.shape[0])
        self.kernel_mean_ = shift + offset
        # z_y = (k_yL - mean k) N^T V
        self.projection_ = normalization.T @ eigenvectors
        self.embedding_ = self._embed(X)
        return self

    def _kernel_rows(self, X):
        """Blocks of rows of the kernel between ``X`` and the landmarks."""
        landmarks = self.nystroem_.components_
        block = max(1, DISTANCE_BLOCK_ELEMENTS // max(1, landmarks.shape[0]))
        for start in range(0, X.shape[0], block):
            yield rbf_kernel(X[start:start + block], landmarks,
                             gamma=self.gamma_)

    def transform(self, X):
        """Embed points ``X`` (n, n_features), validated: (n, n_components_)."""
        return self._embed(X if self.offset_ is None else X - self.offset_)

    def _embed(self, X):
        """:meth:`transform` of points already centred as in ``fit``."""
        out = np.empty((X.shape[0], self.n_components_))
        if self.method_ == "nystroem":
            start = 0
            for rows in self._kernel_rows(X):
                rows -= self.kernel_mean_
                out[start:start + rows.shape[0]] = rows @ self.projection_
                start += rows.shape[0]
            return out
        # Blocks of rows bound the memory of the kernel rows.
        block = max(1, (1 << 22) // max(1, self.X_fit_.shape[0]))
        for start in range(0, X.shape[0], block):
            kernel = euclidean_distances(X[start:start + block], self.X_fit_,
                                         squared=True)
            np.exp(kernel * -self.gamma_, out=kernel)
            kernel -= self.kernel_column_means_
            out[start:start + block] = kernel @ self.projection_
        return out
