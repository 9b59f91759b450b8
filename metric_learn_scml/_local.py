r"""SCML-Local's solver: stochastic forward-backward splitting.

SCML-Local (Shi, Bellet and Sha, 2014, section "Local metric learning")
gives every point :math:`x` its own weights :math:`w_x = (A^T z_x + c)^2`
(elementwise) over the basis, from an embedding :math:`z_x` of the point;
the triplets are those of :mod:`metric_learn_scml._problem` and the
penalty is :math:`\beta` times the sum of the column norms of
:math:`\tilde A = [A; c]`. The model is in :mod:`metric_learn_scml.local`;
its maths is here.
"""

import numpy as np
from sklearn.utils import check_random_state

from ._arrays import chunk_rows, far_mean
from ._problem import SquaredDifferences, group_soft_threshold, triplet_scale
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
    live_differences = SquaredDifferences(differences.projections[:, live],
                                          differences.pairs, max_bytes=0)
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
    d^2(x_i, x_k)`, as :func:`~metric_learn_scml._driver.held_out_scores`
    counts it; NaN where a margin is not finite). The training objective
    falls for as long as the model, with far more parameters than points,
    can fit its triplets (tens of thousands of steps), while the held-out
    error stops improving within a few thousand: the rule on the objective
    ran to ``max_iter``, and the model could end worse than its start on
    new points.

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
    live_differences = SquaredDifferences(differences.projections[:, alive],
                                          differences.pairs)

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
                differences.projections[:, alive], differences.pairs)
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
