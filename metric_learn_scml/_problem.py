r"""The SCML objective on triplets, for :math:`T` tasks: data, loss and certificate.

Notation (Shi, Bellet and Sha, 2014): data :math:`X` (``n x D``), basis
:math:`B` (``K x D``), projections :math:`P = X B^T`. For weights
:math:`w \ge 0` the learned squared distance is
:math:`d_w(x_a, x_b) = s_{ab} \cdot w` with :math:`s_{ab} = (P_a - P_b)^2`
(elementwise; :class:`SquaredDifferences`), and a triplet
:math:`c = (i, j, k)` ("x_j is closer to x_i than x_k is") has the
:math:`K`-vector :math:`g_c = s_{ij} - s_{ik}`, whose hinge loss is
:math:`[1 + w \cdot g_c]_+`. Nothing here builds a ``D x D`` matrix per
triplet.

mt-SCML learns one weight row per task, :math:`W \in \mathbb{R}_+^{T
\times K}`, and minimises

.. math::

    P(W) = \sum_{t=1}^{T} \frac{1}{N_t} \sum_{c \in C_t}
           [1 + W_t \cdot g_c]_+ \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2 ;

SCML-Global is :math:`T = 1`, where the penalty is :math:`\beta\|w\|_1`.
With :math:`[z]_+ = \max_{0 \le a \le 1} a z` and :math:`\alpha_c = a_c /
N_t`, its dual is

.. math::

    \max_\alpha\; D(\alpha) = \sum_c \alpha_c
    \quad\text{s.t.}\quad 0 \le \alpha_c \le \tfrac{1}{N_t},\quad
    \|\max(0, -v_k(\alpha))\|_2 \le \beta \ \ \forall k,
    \qquad v_{tk}(\alpha) = \sum_{c \in C_t} \alpha_c\, g_{ck}

(derived in :mod:`metric_learn_scml._exact`; at :math:`T = 1` the
constraint reads :math:`\beta + (G^T\alpha)_k \ge 0`, the dual of
SCML-Global's LP). :class:`HingeProblem` holds the
margins, the loss, the objective, the gradient :math:`V(\alpha)` and the
duality gap, once, for every solver: RDA evaluates its iterates with it,
the exact phases price and certify with it, and the choice of beta
scores its path with it. The penalty is an object too, as in skglm:
:class:`NonNegativeL1` (one task) or :class:`NonNegativeGroupL21`
(several), chosen by :func:`penalty_for`; RDA takes its proximal operator,
and the exact phase its duality-gap tolerance and whether it refines its
rounds by Newton.
"""

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from ._arrays import centred, chunk_rows, compared_pairs, unit_scale
from ._defaults import EXACT_GAP_TOL

# Triplets behind triplet_scale's estimate: from one sample to the next it
# moves by about 1 % (on the digit and newsgroup stand-ins), and it only
# sets the solvers' units.
# Evidence: units only (results do not depend on it beyond rounding).
SCALE_SAMPLE = 2000

# Memory allowed for the table of squared differences of every distinct pair
# (see SquaredDifferences). Letters with 3,000 points x 13 pairs and 1,000
# basis elements needs 156 MB in float32.
PAIR_TABLE_BYTES = 512 * 2 ** 20

# The most bytes the projections P = X B^T may take (n x K float64); beyond
# (a million points on 1,000 elements would take 8 GB), P is never formed
# and the differences of pairs are projected instead (FactoredProjections,
# chosen by scaled_differences).
PROJECTION_BYTES = 1 << 30


class FactoredProjections:
    """:math:`P = X B^T` kept as its factors, for data too large to project.

    Indexing rows gives ``X[rows] @ B.T``; ``[:, columns]`` gives the
    factored projections on those elements; :meth:`differences` gives
    :math:`P_a - P_b = (X_a - X_b) B^T` with one product. Memory is that
    of ``X`` and ``B``.
    """

    def __init__(self, points, basis):
        self.points = points
        self.basis = basis
        self.shape = (points.shape[0], basis.shape[0])

    def __getitem__(self, index):
        if isinstance(index, tuple):
            rows, columns = index
            if not (isinstance(rows, slice) and rows == slice(None)):
                raise IndexError("FactoredProjections takes [rows] or "
                                 "[:, columns]")
            return FactoredProjections(self.points, self.basis[columns])
        return self.points[index] @ self.basis.T

    def differences(self, first, second):
        return (self.points[first] - self.points[second]) @ self.basis.T


def projection_columns(projections, columns):
    """The ``columns`` of ``projections`` (an array or
    :class:`FactoredProjections`), an array's as a C-ordered copy: numpy's
    ``P[:, columns]`` is ordered by column, and every later row gather
    from it is about ten times slower."""
    if isinstance(projections, FactoredProjections):
        return projections[:, columns]
    return np.take(projections, columns, axis=1)


class SquaredDifferences:
    r"""Rows :math:`s_{ab} = (P_a - P_b)^2` (elementwise) for a set of pairs.

    The triplet vector is :math:`g_{ijk} = s_{ij} - s_{ik}` and a squared
    distance is :math:`d_w(x_a, x_b) = s_{ab} \cdot w`. The rows are kept as
    one float32 table when it fits in ``max_bytes`` (a mini-batch is then two
    row gathers, the distances of all pairs one matrix-vector product), and
    recomputed from the projections otherwise.

    Parameters
    ----------
    projections : ndarray of shape (n_points, K) or FactoredProjections
    pairs : ndarray of shape (n_pairs, 2) of int
    max_bytes : int, default=PAIR_TABLE_BYTES
    pair_offsets : ndarray of shape (T + 1,), default=None
        When the pairs are grouped by task (``pair_index(triplets,
        task_offsets)``): task ``t``'s are rows ``pair_offsets[t]`` to
        ``pair_offsets[t + 1]``, and :func:`objective` computes each task's
        distances on its block only.
    factors : FactoredProjections, default=None
        The points and basis behind ``projections``: without a table, the
        distances of many elements on few features are computed through
        the metric (:meth:`distances`).
    """

    def __init__(self, projections, pairs, max_bytes=PAIR_TABLE_BYTES,
                 pair_offsets=None, factors=None):
        self.projections = projections
        self.factors = (projections if factors is None
                        and isinstance(projections, FactoredProjections)
                        else factors)
        self.pairs = pairs
        self.n_features = projections.shape[1]
        self.pair_offsets = pair_offsets
        self.table = None
        if pairs.shape[0] * projections.shape[1] * 4 <= max_bytes:
            self.table = np.empty((pairs.shape[0], self.n_features),
                                  dtype=np.float32)
            chunk = chunk_rows(self.n_features)
            for start in range(0, pairs.shape[0], chunk):
                self.table[start:start + chunk] = self._compute(
                    pairs[start:start + chunk])

    def _compute(self, pairs, projections=None):
        """Squared differences of ``pairs`` of rows of ``projections``
        (default: all the basis' projections)."""
        projections = self.projections if projections is None else projections
        if isinstance(projections, FactoredProjections):
            difference = projections.differences(pairs[..., 0], pairs[..., 1])
        else:
            # (take, as in rows: faster than fancy indexing for scattered rows)
            difference = np.take(projections, pairs[..., 0], axis=0)
            difference -= np.take(projections, pairs[..., 1], axis=0)
        return np.square(difference, out=difference)

    def columns(self, kept):
        """The same pairs on the elements ``kept`` only (a copy of the
        table's columns, where there is a table)."""
        restricted = SquaredDifferences(
            projection_columns(self.projections, kept), self.pairs,
            max_bytes=0,
            pair_offsets=self.pair_offsets,
            factors=None if self.factors is None else self.factors[:, kept])
        if self.table is not None:
            restricted.table = np.take(self.table, kept, axis=1)
        return restricted

    def rows(self, pair_ids):
        """The rows of the given pairs, shape ``pair_ids.shape + (K,)``."""
        if self.table is not None:
            # take: a third faster than fancy indexing for scattered rows
            return np.take(self.table, pair_ids, axis=0)
        return self._compute(self.pairs[pair_ids])

    def distances(self, weights, start=0, stop=None):
        """Squared distances of pairs ``start:stop`` under each row of ``weights``.

        ``weights`` has shape (T, K) (or (K,)); the result (T, n) holds
        the distances of all the pairs, or of the block asked for.
        """
        weights = np.atleast_2d(weights)
        stop = self.pairs.shape[0] if stop is None else stop
        if self.table is not None:
            block = self.table[start:stop]
            return (block @ weights.T.astype(np.float32)).T.astype(float)
        # Without a table, a sparse w (the usual case) is computed on the
        # projections of its active columns, copied once; near-dense
        # weights skip the copy (zero columns add 0).
        active = np.flatnonzero(weights.any(axis=0))
        if (self.factors is not None
                and self.factors.points.shape[1] ** 2 < active.size):
            return self._metric_distances(weights[:, active], active, start,
                                          stop)
        projections = None
        if active.size <= 0.75 * self.n_features:
            weights = weights[:, active]
            projections = projection_columns(self.projections, active)
        out = np.empty((weights.shape[0], stop - start))
        chunk = chunk_rows(weights.shape[1])
        for first in range(start, stop, chunk):
            block = self._compute(self.pairs[first:min(first + chunk, stop)],
                                  projections)
            out[:, first - start:first - start + block.shape[0]] = weights @ block.T
        return out

    def _metric_distances(self, weights, active, start, stop):
        r""":meth:`distances` as :math:`(x_a - x_b)^T M_t (x_a - x_b)`, with
        :math:`M_t = \sum_k w_{tk} b_k b_k^T` (``d x d``): on ``d``
        features, ``d**2`` products a pair instead of one per active
        element."""
        points, basis = self.factors.points, self.factors.basis[active]
        metrics = np.einsum("tk,kd,ke->tde", weights, basis, basis)
        out = np.empty((weights.shape[0], stop - start))
        chunk = chunk_rows(points.shape[1] * (weights.shape[0] + 1))
        for first in range(start, stop, chunk):
            pairs = self.pairs[first:min(first + chunk, stop)]
            difference = points[pairs[:, 0]] - points[pairs[:, 1]]
            out[:, first - start:first - start + pairs.shape[0]] = np.einsum(
                "nd,tde,ne->tn", difference, metrics, difference,
                optimize=True)
        # (M is PSD: a negative value is rounding.)
        return np.maximum(out, 0.0, out=out)

    def weighted_sum(self, coefficients):
        r""":math:`\sum_p c_p s_p` over all pairs, shape (K,).

        Computed in blocks, over the pairs with a non-zero coefficient only.
        """
        used = np.flatnonzero(coefficients)
        total = np.zeros(self.n_features)
        chunk = chunk_rows(self.n_features)
        for start in range(0, used.shape[0], chunk):
            block = used[start:start + chunk]
            total += coefficients[block] @ self.rows(block).astype(float)
        return total


def scaled_differences(X, basis, pairs, unit=None, **kwargs):
    """``SquaredDifferences`` of ``X`` at unit scale, and the factor ``f``.

    The rows are ``f**2`` times those of ``X`` (see :func:`unit_scale`):
    a solver's weights on them are ``1 / f**2`` times the user's. A given
    ``unit`` is used instead (later batches of ``partial_fit`` keep the
    first one's).
    """
    X = centred(X)
    unit = unit_scale(X) if unit is None else unit
    if X.shape[0] * basis.shape[0] * 8 > PROJECTION_BYTES:
        return SquaredDifferences(FactoredProjections(X * unit, basis), pairs,
                                  **kwargs), unit
    return SquaredDifferences(X @ (basis.T * unit), pairs,
                              factors=FactoredProjections(X * unit, basis),
                              **kwargs), unit


def triplet_scale(differences, triplet_pairs, random_state):
    r"""The mean absolute entry :math:`s` of the triplet vectors :math:`g`.

    Estimated on at most ``SCALE_SAMPLE`` random triplets. The solvers
    work in units where :math:`g / s` is of order one (so one step size
    suits data of any scale); 1.0 when it is zero or not finite.
    """
    rng = check_random_state(random_state)
    sample = triplet_pairs[rng.randint(0, triplet_pairs.shape[0], size=min(
        triplet_pairs.shape[0], SCALE_SAMPLE))]
    block = np.abs(differences.rows(sample[:, 0])
                   - differences.rows(sample[:, 1]))
    scale = block.mean(dtype=float) if block.size else 0.0
    return scale if np.isfinite(scale) and scale > 0 else 1.0


def pair_coefficients(triplet_pairs, ids, alpha, n_pairs):
    """Per pair, the ``alpha`` of the triplets (``ids``) whose target pair it
    is, less that of those whose impostor pair it is."""
    chosen = triplet_pairs[ids]
    return (np.bincount(chosen[:, 0], alpha, n_pairs)
            - np.bincount(chosen[:, 1], alpha, n_pairs))


# With several tasks the exact phase stops at this duality gap, relative
# to the objective: its atoms approach the group norm's cones only in the
# limit (one task ends finitely, at the LP's optimum). Every Vowel problem
# of the multi-task benchmark reached it, within 1.5 s median.
# Evidence: NOTES.md, "Design measurements kept out of the code".
GROUP_GAP_TOL = 1e-6


def group_soft_threshold(values, threshold, nonnegative=False):
    r"""Proximal operator of the column-wise group norm, optionally on W >= 0.

    Returns the minimiser of

    .. math:: \tfrac12 \|W - V\|_F^2 + \tau \sum_k \|W_{:,k}\|_2
              \quad (\text{subject to } W \ge 0 \text{ if nonnegative}),

    that is :math:`W_{:,k} = \max(0, 1 - \tau / \|u_k\|_2)\, u_k` with
    :math:`u_k = V_{:,k}` or, under the constraint,
    :math:`u_k = \max(0, V_{:,k})` (clipping first is exact: the problem is
    separable into the coordinates the constraint zeroes and the rest).

    Parameters
    ----------
    values : ndarray of shape (n_rows, ...)
        The point :math:`V`; the groups run along the first axis (each
        column is a group).
    threshold : float
        :math:`\tau \ge 0`.
    nonnegative : bool, default=False

    Returns
    -------
    ndarray of the shape of ``values``
    """
    shrunk = np.maximum(values, 0.0) if nonnegative else np.asarray(values)
    # A group of one entry has the absolute value as its norm.
    norms = (np.abs(shrunk[0]) if shrunk.shape[0] == 1
             else np.sqrt(np.einsum("t...,t...->...", shrunk, shrunk)))
    # max(0, 1 - tau / norm), written so that a zero group needs no
    # division by zero (the solvers call this at every step).
    scale = np.maximum(norms - threshold, 0.0) / np.maximum(
        norms, np.finfo(float).tiny)
    return shrunk * scale


class NonNegativeL1:
    r"""SCML-Global's penalty: :math:`\beta \|w\|_1` on :math:`w \ge 0`
    (one task).

    The exact phase's LP is then the problem itself, so its optimum is
    certified exactly (``gap_tol`` 0) and needs no refinement; the exact
    phase, not further RDA runs, takes RDA's iterate to a sparse point.
    """

    gap_tol = 0.0
    refines = False
    reruns_on_support = False

    @staticmethod
    def prox(values, threshold):
        r""":math:`\max(0, v - \tau)`: the proximal operator of
        :math:`\tau \|w\|_1` on :math:`w \ge 0`."""
        shrunk = np.subtract(values, threshold)
        return np.maximum(shrunk, 0.0, out=shrunk)


class NonNegativeGroupL21:
    r"""mt-SCML's penalty: :math:`\beta \sum_k \|W_{:,k}\|_2` on
    :math:`W \ge 0` (several tasks).

    The exact phase's atoms approach the norm's cones only in the limit:
    it stops at the relative duality gap ``gap_tol``, and refines each
    round by Newton on its structure (:mod:`._exact`). Without the exact
    phase, RDA runs again on the support of its iterate
    (``reruns_on_support``; :func:`~metric_learn_scml._driver.support_rerun`).
    """

    gap_tol = GROUP_GAP_TOL
    refines = True
    reruns_on_support = True

    @staticmethod
    def prox(values, threshold):
        r""":func:`group_soft_threshold` on :math:`W \ge 0`."""
        return group_soft_threshold(values, threshold, nonnegative=True)


def penalty_for(n_tasks):
    """The penalty of a problem of ``n_tasks`` tasks: the one place where
    one task and several part ways."""
    return NonNegativeL1() if n_tasks == 1 else NonNegativeGroupL21()


class HingeProblem:
    r"""The objective :math:`P(W)` of the module docstring, on one table.

    Parameters
    ----------
    differences : SquaredDifferences
        Its pairs grouped by task when it has ``pair_offsets`` (each
        task's distances are then computed on its own block).
    triplet_pairs : ndarray of shape (n_triplets, 2) of int
        (target pair, impostor pair) of each triplet, grouped by task:
        task ``t`` owns rows ``task_offsets[t]:task_offsets[t + 1]``.
    task_offsets : array-like of shape (T + 1,), default=None
        None: one task.
    scale : float, default=1.0
        Every :math:`g_c` is divided by it: the rescaled units of
        :func:`~metric_learn_scml._solvers.rda` (:func:`triplet_scale`), in
        which the entries of :math:`g` are of order one.

    Weights are ``(T, K)`` arrays (or ``(K,)`` for one task); ``alpha`` has
    one value per triplet.
    """

    def __init__(self, differences, triplet_pairs, task_offsets=None,
                 scale=1.0):
        self.differences = differences
        self.triplet_pairs = triplet_pairs
        self.scale = scale
        self.n_triplets = triplet_pairs.shape[0]
        self.n_basis = differences.n_features
        self.task_offsets = np.asarray(
            [0, self.n_triplets] if task_offsets is None else task_offsets)
        self.n_tasks = self.task_offsets.shape[0] - 1
        self.task_sizes = np.diff(self.task_offsets)
        self.tasks = np.repeat(np.arange(self.n_tasks), self.task_sizes)
        # N_t and alpha's upper bound 1 / N_t, triplet by triplet
        self.sizes = np.maximum(self.task_sizes, 1)[self.tasks]
        self.upper = 1.0 / self.sizes

    def rows(self, ids, columns=None):
        """:math:`g_c` of the triplets ``ids`` (on ``columns``), float64."""
        both = self.differences.rows(self.triplet_pairs[ids])
        if columns is not None:
            both = both[..., columns]
        return (both[:, 0].astype(float) - both[:, 1]) / self.scale

    def _blocks(self):
        """Each task's triplet rows and its pairs' block ``(start, stop)``."""
        pair_offsets = self.differences.pair_offsets
        for task in range(self.n_tasks):
            yield (task, slice(self.task_offsets[task],
                               self.task_offsets[task + 1]),
                   (0, None) if pair_offsets is None else
                   (pair_offsets[task], pair_offsets[task + 1]))

    def margins(self, weights):
        r""":math:`1 + W_t \cdot g_c` of every triplet: shape (n_triplets,)
        for one point ``W`` (``(T, K)`` or ``(K,)``), (L, n_triplets) for L
        points at once (``(L, T, K)``)."""
        weights = np.asarray(weights)
        points = weights if weights.ndim == 3 else np.atleast_2d(weights)[None]
        margins = np.empty((points.shape[0], self.n_triplets))
        for task, rows, (start, stop) in self._blocks():
            distances = self.differences.distances(
                points[:, task], start, stop) / self.scale
            own = self.triplet_pairs[rows] - start
            margins[:, rows] = (1.0 + distances[:, own[:, 0]]
                                - distances[:, own[:, 1]])
        return margins if weights.ndim == 3 else margins[0]

    def loss(self, margins):
        """Sum over tasks of the mean hinge, from :meth:`margins` (one
        value per point)."""
        return np.maximum(margins, 0.0) @ self.upper

    @staticmethod
    def penalty(weights):
        r""":math:`\sum_k \|W_{:,k}\|_2` (:math:`\|w\|_1` for one task), per
        point of ``(L, T, K)``."""
        return np.linalg.norm(np.atleast_2d(weights), axis=-2).sum(axis=-1)

    def objective(self, weights, beta):
        """:math:`P(W)` (``beta`` in the units of the problem)."""
        return float(self.loss(self.margins(weights))
                     + beta * self.penalty(weights))

    def objectives(self, weights, betas):
        """:math:`P` at several points at once (a path, a grid of betas):
        ``weights`` of shape (L, T, K), and one value of ``betas`` per
        point."""
        return (self.loss(self.margins(weights))
                + np.asarray(betas) * self.penalty(weights))

    def gradient(self, alpha):
        r""":math:`V(\alpha)`, ``T x K``: :math:`v_{tk} = \sum_{c \in C_t}
        \alpha_c g_{ck}`.

        ``alpha`` has a value per triplet. A triplet's vector is the
        difference of its two pairs' rows, so the
        product is :math:`\sum_p \kappa_p s_p` over the pairs with a
        non-zero coefficient :math:`\kappa_p` (:func:`pair_coefficients`).
        """
        ids = np.flatnonzero(alpha)
        alpha = alpha[ids]
        result = np.zeros((self.n_tasks, self.n_basis))
        task_of = self.tasks[ids]
        for task in range(self.n_tasks):
            mine = task_of == task
            if ids[mine].shape[0]:
                result[task] = self.differences.weighted_sum(pair_coefficients(
                    self.triplet_pairs, ids[mine], alpha[mine],
                    self.differences.pairs.shape[0])) / self.scale
        return result

    def duality_gap(self, weights, beta, alpha=None, margins=None,
                    gradient=None):
        r"""The duality gap of ``weights``: an upper bound on :math:`P(W) - P^*`.

        The dual point is ``alpha`` (default: the hinge subgradient,
        :math:`1/N_t` on the triplets past the margin), scaled by
        :math:`\min(1, \beta / \max_k \|\max(0, -v_k)\|_2)` into the
        feasible set; both objectives are computed on every triplet and
        every element (as scikit-learn's Lasso solvers certify theirs).
        ``margins`` (of ``weights``) and ``gradient`` (:math:`V(\alpha)`)
        are computed when not given.

        Returns
        -------
        gap : float
            :math:`P(W) - D(\alpha) \ge 0`.
        primal : float
            :math:`P(W)`.
        alpha : ndarray of shape (n_triplets,)
            The feasible dual point.
        """
        margins = self.margins(weights) if margins is None else margins
        primal = float(self.loss(margins) + beta * self.penalty(weights))
        if alpha is None:
            alpha = np.where(margins > 0, self.upper, 0.0)
        if gradient is None:
            gradient = self.gradient(alpha)
        worst = np.linalg.norm(np.maximum(-gradient, 0.0),
                               axis=0).max(initial=0.0)
        if worst > beta:
            alpha = alpha * (beta / worst)
        return max(primal - alpha.sum(), 0.0), primal, alpha

    def sample(self, size, random_state):
        """The problem on a fixed sample of its triplets.

        Each task keeps its share of ``size`` triplets (at least one),
        drawn without replacement; the pairs they use get their own
        :class:`SquaredDifferences` (grouped by task as before), so that
        the objective of many iterates costs a sample's work.
        """
        rng = check_random_state(random_state)
        sizes = self.task_sizes
        kept = np.minimum(sizes, np.maximum(1, np.round(
            size * sizes / max(sizes.sum(), 1)).astype(int)))
        rows = np.concatenate([
            start + np.sort(rng.choice(n, k, replace=False))
            for start, n, k in zip(self.task_offsets[:-1], sizes, kept) if n])
        chosen = self.triplet_pairs[rows]
        used, inverse = np.unique(chosen, return_inverse=True)
        differences = self.differences
        pair_offsets = (None if differences.pair_offsets is None else
                        np.searchsorted(used, differences.pair_offsets))
        return HingeProblem(
            SquaredDifferences(differences.projections,
                               differences.pairs[used],
                               pair_offsets=pair_offsets,
                               factors=differences.factors),
            inverse.reshape(chosen.shape),
            np.concatenate([[0], np.cumsum(np.where(sizes > 0, kept, 0))]),
            self.scale)


def pair_index(triplets, task_offsets=None):
    """The distinct pairs a set of triplets compares, and where each triplet's are.

    A triplet ``(i, j, k)`` compares the pairs ``(i, j)`` and ``(i, k)``;
    a quadruplet ``(a, b, c, d)`` of independent pairs (beyond the paper)
    the pairs ``(a, b)`` and ``(c, d)`` (:func:`._arrays.compared_pairs`):
    the solvers see (target pair, impostor pair) rows either way.
    Triplets built from labels share most of them (every anchor has
    ``k_genuine * k_impostor`` triplets but only ``k_genuine + k_impostor``
    pairs), so distances are computed once per distinct pair.

    Parameters
    ----------
    triplets : ndarray of shape (n_triplets, 3) or (n_triplets, 4) of int
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
        (anchor, target) and (anchor, impostor) pairs (of a quadruplet's
        similar and dissimilar pairs).
    pair_offsets : ndarray of shape (T + 1,), dtype=intp
        Only with ``task_offsets``: task ``t``'s pairs are
        ``pairs[pair_offsets[t]:pair_offsets[t + 1]]``.
    """
    target, impostor = compared_pairs(triplets)
    both = np.concatenate([triplets[:, target], triplets[:, impostor]])
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


@dataclass
class SolverResult:
    """What a solver returns.

    Attributes
    ----------
    weights : ndarray of shape (T, K)
        The best iterate by full objective.
    objective : float
        Its objective value.
    n_iter : int
        Stochastic iterations run.
    converged : bool
        Whether the stopping rule fired before ``max_iter``.
    history : list of tuple
        ``(iteration, objective, n_active)`` at every evaluation.
    dual_gap : float
        Duality gap of ``weights`` (an upper bound on its distance to the
        optimum) where the solver certifies one, else NaN.
    work : float
        The exact phase's work, in the unit of its budget (simplex
        iterations x LP block entries); NaN for the other solvers.
    out_of_budget : bool
        Whether the exact phase's budget ended it.
    """

    weights: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)
    dual_gap: float = float("nan")
    state: object = None
    work: float = float("nan")
    out_of_budget: bool = False

    @property
    def certified(self):
        """Whether ``dual_gap`` certifies the optimum: at most
        ``EXACT_GAP_TOL`` times the objective, or times ``EXACT_GAP_TOL``
        times its value at ``W = 0`` (T) where the objective is below that
        (a smaller gap is within HiGHS' tolerances). False without a gap."""
        floor = EXACT_GAP_TOL * np.atleast_2d(self.weights).shape[0]
        return bool(self.dual_gap <= EXACT_GAP_TOL * max(self.objective,
                                                         floor))

    @property
    def loose(self):
        """Whether there is a duality gap and it does not certify the
        optimum (:attr:`certified`): what the learners warn of."""
        return not (self.certified or np.isnan(self.dual_gap))


def report(name, verbose, message):
    """A ``verbose`` line, prefixed by the learner's name (the solvers'
    tables and a fit's stages, :class:`._driver.FitLog`)."""
    if verbose:
        print("[%s] %s" % (name, message), flush=True)


def active_columns(weights):
    """The active elements of ``W`` (T x K): columns with a non-zero entry."""
    return int(np.count_nonzero(weights.any(axis=0)))
