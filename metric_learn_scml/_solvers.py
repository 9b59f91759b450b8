r"""Solvers for the SCML objectives, shared by the global and multi-task models.

Notation (Shi, Bellet and Sha, 2014): data :math:`X` (``n x D``), basis
:math:`B` (``K x D``), projections :math:`P = X B^T`. For weights
:math:`w \ge 0` the learned squared distance is

.. math:: d_w(x_i, x_j) = \sum_k w_k (P_{ik} - P_{jk})^2,

and a triplet :math:`(i, j, k)` ("x_j is closer to x_i than x_k is") has
the :math:`K`-vector

.. math:: g_{ijk} = (P_i - P_j)^2 - (P_i - P_k)^2

so that its hinge loss is :math:`[1 + w \cdot g_{ijk}]_+`. Nothing here
builds a ``D x D`` matrix per triplet.

Multi-task SCML (mt-SCML) learns one weight row per task,
:math:`W \in \mathbb{R}_+^{T \times K}`, and minimises

.. math::

    F(W) = \sum_{t=1}^{T} \frac{1}{|C_t|} \sum_{(i,j,k) \in C_t}
           [1 + W_t \cdot g_{ijk}]_+ \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2 .

SCML-Global is the case :math:`T = 1`, where the group norm of a column is
the absolute value of its single entry, so the penalty is
:math:`\beta \|w\|_1`.

Both are solved by regularized dual averaging (RDA, Xiao 2010), as in the
paper: with :math:`\bar G_t` the average of the stochastic (sub)gradients of
the loss term up to step :math:`t`,

.. math::

    W_{t+1} = \arg\min_{W \ge 0} \langle \bar G_t, W \rangle
              + \beta \sum_k \|W_{:,k}\|_2
              + \frac{\gamma}{2\sqrt{t}} \|W\|_F^2,

whose closed form, column by column, with
:math:`u_k = \max(0, -\bar G_{:,k})`, is

.. math::

    W_{:,k} = \frac{\sqrt{t}}{\gamma}
              \max\!\Big(0, 1 - \frac{\beta}{\|u_k\|_2}\Big) u_k

(:func:`group_soft_threshold`; for :math:`T = 1` it is
:math:`w = \max(0, -(\sqrt{t}/\gamma)(\bar g_t + \beta))`).
"""

import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip

from ._arrays import centred, chunk_rows, unit_scale

# Memory allowed for the table of squared differences of every distinct pair
# (see SquaredDifferences). Letters with 3,000 points x 13 pairs and 1,000
# basis elements needs 156 MB in float32.
PAIR_TABLE_BYTES = 512 * 2 ** 20

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
    values : ndarray of shape (n_rows, n_groups)
        The point :math:`V`; each column is a group.
    threshold : float
        :math:`\tau \ge 0`.
    nonnegative : bool, default=False

    Returns
    -------
    ndarray of shape (n_rows, n_groups)
    """
    shrunk = np.maximum(values, 0.0) if nonnegative else np.asarray(values)
    # A group of one entry has the absolute value as its norm.
    norms = (np.abs(shrunk[0]) if shrunk.shape[0] == 1
             else np.sqrt(np.einsum("tk,tk->k", shrunk, shrunk)))
    # max(0, 1 - tau / norm), written so that a zero group needs no
    # division by zero (the solvers call this at every step).
    scale = np.maximum(norms - threshold, 0.0) / np.maximum(
        norms, np.finfo(float).tiny)
    return shrunk * scale


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
    """

    def __init__(self, projections, pairs, max_bytes=PAIR_TABLE_BYTES,
                 pair_offsets=None):
        self.projections = projections
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
            difference = (projections[pairs[..., 0]]
                          - projections[pairs[..., 1]])
        return np.square(difference, out=difference)

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
        projections = None
        if active.size <= 0.75 * self.n_features:
            weights = weights[:, active]
            projections = (self.projections[:, active]
                           if isinstance(self.projections, FactoredProjections)
                           else np.take(self.projections, active, axis=1))
        out = np.empty((weights.shape[0], stop - start))
        chunk = chunk_rows(weights.shape[1])
        for first in range(start, stop, chunk):
            block = self._compute(self.pairs[first:min(first + chunk, stop)],
                                  projections)
            out[:, first - start:first - start + block.shape[0]] = weights @ block.T
        return out

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
    return SquaredDifferences(X @ (basis.T * unit), pairs, **kwargs), unit


def objective(differences, triplet_pairs, task_offsets, weights, beta):
    r"""The mt-SCML objective :math:`F(W)` (SCML-Global when T = 1).

    Parameters
    ----------
    differences : SquaredDifferences
    triplet_pairs : ndarray of shape (n_triplets, 2) of int
        (target pair, impostor pair) of each triplet, grouped by task: task
        ``t`` owns rows ``task_offsets[t]:task_offsets[t + 1]``.
    task_offsets : ndarray of shape (T + 1,)
    weights : ndarray of shape (T, K), non-negative
    beta : float

    Returns
    -------
    total : float
        :math:`F(W)`.
    loss : float
        Its loss term (sum over tasks of the mean hinge).
    """
    offsets = differences.pair_offsets
    loss = 0.0
    for task in range(weights.shape[0]):
        # Pairs grouped by task: the task's block, under its own row of W;
        # otherwise every pair.
        start, stop = ((0, None) if offsets is None
                       else (offsets[task], offsets[task + 1]))
        task_distances = differences.distances(weights[task], start, stop)[0]
        own = triplet_pairs[task_offsets[task]:task_offsets[task + 1]] - start
        if own.shape[0]:
            margins = (1.0 + task_distances[own[:, 0]]
                       - task_distances[own[:, 1]])
            loss += np.maximum(margins, 0).mean()
    return loss + beta * np.linalg.norm(weights, axis=0).sum(), loss


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
    """

    weights: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)
    dual_gap: float = float("nan")
    state: object = None


@dataclass
class RDAState:
    """What RDA carries from one call to the next (``partial_fit``).

    Attributes
    ----------
    mean_gradient : ndarray of shape (T, K)
        :math:`\bar G_t`, in the solver's rescaled units.
    iteration : int
        :math:`t`, the steps taken so far.
    scale : float
        The unit :math:`s` of the triplet vectors (fixed by the first call,
        so that every call works in the same units).
    """

    mean_gradient: np.ndarray
    iteration: int
    scale: float


def report(name, verbose, message):
    """A line of the ``verbose`` progress table."""
    if verbose:
        print("[%s] %s" % (name, message))


class Monitor:
    """The loop every solver shares: evaluate, keep the best, stop, report.

    A solver takes steps and, every ``eval_every`` of them, hands the full
    objective to :meth:`update`, which records it (``history`` and the
    ``verbose`` table), keeps the best iterate and counts evaluations that
    improve the best value by less than ``tol``; ``n_iter_no_change`` of
    them in a row stop the solver (``converged``). A non-finite value (the
    iterates blew up) stops it too, the best iterate kept. Stalls count
    only once the best value is below ``stall_above`` or nothing is active:
    RDA's early iterates can overshoot above the value at ``W = 0``.

    Parameters
    ----------
    name : str
        Prefix of the progress table.
    verbose : bool
    weights : ndarray
        The starting point, and its ``value`` and ``n_active``.
    value : float
    n_active : int
    tol : float, default=0.0
    n_iter_no_change : int, default=1
    stall_above : float, default=inf
    keep_best : bool, default=True
        False: the result is the last iterate (``partial_fit``'s epochs).
    column : str, default="Objective"
        What ``value`` is, for the progress table.
    """

    def __init__(self, name, verbose, weights, value, n_active, tol=0.0,
                 n_iter_no_change=1, stall_above=np.inf, keep_best=True,
                 column="Objective"):
        self.name = name
        self.keep_best = keep_best
        self.verbose = verbose
        self.start = time.perf_counter()
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.stall_above = stall_above
        self.stalled = 0
        self.best = SolverResult(weights.copy(), value, 0, False, [])
        if verbose:
            print("[%s]" % name)
            print("[%s] %10s %14s %10s %10s" % (
                name, "Iteration", column[:14], "Active", "Time(s)"))
            print("[%s] %s" % (name, "-" * 47))
        self.record(0, value, n_active)

    def record(self, iteration, value, n_active):
        """Add a row to ``history`` and to the progress table."""
        self.best.history.append((iteration, value, n_active))
        if self.verbose:
            print("[%s] %10d %14.6f %10d %10.2f" % (
                self.name, iteration, value, n_active,
                time.perf_counter() - self.start))

    def footer(self, message):
        report(self.name, self.verbose, message)

    def update(self, iteration, value, n_active, weights):
        """Record an evaluation; return whether the solver should stop.

        ``weights`` is a function returning the iterate, called only when
        it is the best so far (it may build it).
        """
        self.record(iteration, value, n_active)
        best = self.best
        if not np.isfinite(value):
            return True
        if value < best.objective - self.tol:
            self.stalled = 0
        elif best.objective < self.stall_above or n_active == 0:
            self.stalled += 1
        if value < best.objective or not self.keep_best:
            best.weights, best.objective = weights(), value
        best.converged = self.stalled >= self.n_iter_no_change
        return best.converged

    def finish(self, iteration):
        """The best iterate as a :class:`SolverResult`."""
        self.best.n_iter = iteration
        self.footer("converged after %d iterations" % iteration
                    if self.best.converged
                    else "stopped at max_iter=%d" % iteration)
        return self.best


# Above OBJECTIVE_SAMPLE_ABOVE triplets (about 33,000 points at 30 triplets
# a point), RDA's evaluations use a fixed sample of OBJECTIVE_SAMPLE of
# them: an evaluation then costs the same at any n, and the sample's mean
# hinge differs from the full one by about its standard error, 1e-3 or
# less, the size of tol.
OBJECTIVE_SAMPLE_ABOVE = 1_000_000
OBJECTIVE_SAMPLE = 200_000


def objective_sample(differences, triplet_pairs, task_offsets, size, rng):
    """A fixed sample of the triplets, for evaluating the objective.

    Each task keeps its share of ``size`` triplets (at least one), drawn
    without replacement; the pairs they use get their own
    :class:`SquaredDifferences` (grouped by task as before). Returns
    ``(differences, triplet_pairs, task_offsets)`` of the sample, for
    :func:`objective`.
    """
    task_offsets = np.asarray(task_offsets)
    sizes = np.diff(task_offsets)
    kept = np.minimum(sizes, np.maximum(1, np.round(
        size * sizes / max(sizes.sum(), 1)).astype(int)))
    rows = np.concatenate([
        start + np.sort(rng.choice(n, k, replace=False))
        for start, n, k in zip(task_offsets[:-1], sizes, kept) if n])
    sample = triplet_pairs[rows]
    used, inverse = np.unique(sample, return_inverse=True)
    pair_offsets = (None if differences.pair_offsets is None else
                    np.searchsorted(used, differences.pair_offsets))
    sampled = SquaredDifferences(differences.projections,
                                 differences.pairs[used],
                                 pair_offsets=pair_offsets)
    return (sampled, inverse.reshape(sample.shape),
            np.concatenate([[0], np.cumsum(np.where(sizes > 0, kept, 0))]))


# Triplets behind triplet_scale's estimate: from one sample to the next it
# moves by about 1 % (on the digit and newsgroup stand-ins), and it only
# sets the solvers' units.
SCALE_SAMPLE = 2000


def triplet_scale(differences, triplet_pairs, random_state):
    r"""The mean absolute entry :math:`s` of the triplet vectors :math:`g`.

    Estimated on at most ``SCALE_SAMPLE`` random triplets. The solvers
    work in units where :math:`g / s` is of order one (so one step size
    suits data of any scale); 1.0 when it is zero or not finite.
    """
    rng = check_random_state(random_state)
    sample = triplet_pairs[rng.randint(0, triplet_pairs.shape[0], size=min(
        triplet_pairs.shape[0], SCALE_SAMPLE))]
    scale = np.abs(differences.rows(sample[:, 0])
                   - differences.rows(sample[:, 1])).mean(dtype=float)
    return scale if np.isfinite(scale) and scale > 0 else 1.0


def capped_batch_size(batch_size, task_sizes):
    """``batch_size``, at most the triplets of the largest task.

    Every solver draws its batches with replacement, so a larger batch
    only repeats triplets, at its full cost at every step. Each solver
    applies this itself, so that no caller can forget it.
    """
    return int(min(batch_size, max(int(np.max(task_sizes)), 1)))


def triplet_vectors(differences, triplet_pairs, draws):
    r"""The triplet vectors :math:`g = s_{ij} - s_{ik}` of each step's draws.

    ``draws`` has shape ``(n_steps,) + shape`` (rows of ``triplet_pairs``);
    yields one ``shape + (K,)`` array per step. The rows of several steps
    are gathered at once (about :data:`~metric_learn_scml._arrays.CHUNK_BYTES`
    of them): one gather of many rows costs much less than many of few.
    """
    per_step = max(1, int(np.prod(draws.shape[1:])))
    steps = max(1, chunk_rows(differences.n_features) // per_step)
    for first in range(0, draws.shape[0], steps):
        chosen = triplet_pairs[draws[first:first + steps]]
        block = differences.rows(chosen[..., 0])
        block -= differences.rows(chosen[..., 1])
        yield from block


def rda_iterate(total, threshold, step, t, grouped=True):
    r"""RDA's iterate from the running sum of its batch subgradients.

    With :math:`S_t = \sum_{i \le t} V_i^T G_i` (each batch's hinge
    indicator times its triplet vectors, unnormalised, in the solver's
    units), :math:`\bar G_t = S_t / (b s t)` for batches of :math:`b`
    triplets and scale :math:`s`, and the group soft threshold being
    positively homogeneous, the closed form of the module docstring is

    .. math:: W_{t+1} = \frac{1}{\gamma b s^2 \sqrt t}\,
              \operatorname{prox}(-S_t, \; t b \beta)

    with ``threshold`` :math:`= t b \beta` and ``step``
    :math:`= \gamma b s^2` (the factor is ``1 / (step * sqrt(t))``; each
    caller forms the threshold in its own order of products). ``grouped``:
    the rows are the
    tasks of one column group (mt-SCML); otherwise every row is its own
    problem (one per beta in :func:`rda_path`), and each entry is
    :math:`\max(0, -(S + \tau))`, which is also the grouped case for one row.
    """
    factor = 1.0 / (step * np.sqrt(t))
    if grouped and total.shape[0] > 1:
        return group_soft_threshold(-total, threshold, nonnegative=True) * factor
    weights = np.add(total, threshold)
    np.negative(weights, out=weights)
    np.maximum(weights, 0.0, out=weights)
    weights *= factor
    return weights


def rda_state_for(state, weights, beta, gamma):
    r"""An :class:`RDAState` whose iterate is ``weights`` (``partial_fit``
    after a fit whose exact phase moved the weights, or grew the basis).

    With the raw mean subgradient :math:`R = s \bar G_t`, the iterate of
    :func:`rda_iterate` is :math:`W = \operatorname{prox}(-R, \beta)\,
    \sqrt t / (\gamma s^2)` (the batch size cancels). Its inverse, column
    by column, with :math:`a = \gamma s^2 / \sqrt t`: where
    :math:`W_{:,k} \ne 0`, :math:`-R_{:,k} = (a + \beta / \|W_{:,k}\|)
    W_{:,k}` on the positive entries, and :math:`R` is clipped at 0 from
    below on the others; where :math:`W_{:,k} = 0`, the state's column is
    kept if its iterate is zero, and otherwise its positive part of
    :math:`-R_{:,k}` is shrunk to norm :math:`\beta` (the smallest change
    that zeroes it). Columns beyond the state's (elements the exact phase
    added) start from a zero mean. ``t`` and ``s`` are kept.

    Parameters
    ----------
    state : RDAState
    weights : ndarray of shape (T, K'), K' >= the state's K, non-negative
        In the solver's units (those of ``beta``).
    beta, gamma : float

    Returns
    -------
    RDAState
    """
    t, scale = max(state.iteration, 1), state.scale
    raw = np.zeros(weights.shape)
    raw[:, :state.mean_gradient.shape[1]] = state.mean_gradient * scale
    step = gamma * scale ** 2 / np.sqrt(t)
    norms = np.sqrt(np.einsum("tk,tk->k", weights, weights))
    active = norms > 0
    # Columns the iterate keeps: -R = (a + beta / ||W||) W where W > 0.
    pulled = -(step + beta / np.where(active, norms, 1.0)) * weights
    positive = weights > 0
    raw = np.where(positive, pulled,
                   np.where(active[None, :], np.maximum(raw, 0.0), raw))
    # Columns it zeroes: shrink the positive part of -R to norm beta.
    excess = np.maximum(-raw, 0.0)
    excess_norms = np.sqrt(np.einsum("tk,tk->k", excess, excess))
    shrink = ~active & (excess_norms > beta)
    factor = np.where(shrink, beta / np.where(shrink, excess_norms, 1.0), 1.0)
    raw = np.where((raw < 0) & shrink[None, :], raw * factor[None, :], raw)
    return RDAState(raw / scale, state.iteration, scale)


def rda(differences, triplet_pairs, task_offsets, beta, gamma=1.0,
        batch_size=32, max_iter=20000, eval_every=250, tol=1e-3,
        n_iter_no_change=4, random_state=None, verbose=False, name="SCML",
        state=None, keep_best=True):
    r"""Regularized dual averaging for SCML-Global and mt-SCML.

    Each iteration draws ``batch_size`` triplets from every task (so a small
    task weighs as much in the gradient as in the objective, whatever its
    size), averages their hinge subgradients into its task's row, updates
    the running average :math:`\bar G_t` and takes the closed-form RDA step
    of the module docstring. Every ``eval_every`` iterations the full
    objective is computed exactly (beyond ``OBJECTIVE_SAMPLE_ABOVE``
    triplets, on a fixed sample of them, :func:`objective_sample`, and the
    returned ``objective`` is that estimate); the best iterate is kept, and the solver
    stops when ``n_iter_no_change`` evaluations in a row improve the best
    value by less than ``tol``. The tolerance is absolute because the
    objective has a natural scale: it is ``T`` (one per task) at ``W = 0``.

    The steps are taken in rescaled units: with :math:`s` the mean absolute
    entry of :math:`g` over (a sample of) the triplets, the solver runs on
    :math:`g / s` with :math:`\beta / s` and returns :math:`W' / s`. This is
    the same problem (the hinge terms are unchanged for :math:`W' = sW`, and
    the penalty becomes :math:`(\beta/s)\|W'\|`), but with gradients of
    order one, so one ``gamma`` suits data of any scale.

    Parameters
    ----------
    differences : SquaredDifferences
    triplet_pairs : ndarray of shape (n_triplets, 2) of int
        Grouped by task (see :func:`objective`).
    task_offsets : ndarray of shape (T + 1,)
        Every task must own at least one triplet.
    beta : float
        Group-sparsity (l1 when T = 1) strength, >= 0.
    gamma : float, default=1.0
        RDA step parameter, in the rescaled units (larger is more
        conservative).
    batch_size : int, default=32
        Triplets per task per iteration, at most those of the largest
        task (:func:`capped_batch_size`).
    max_iter : int, default=20000
    eval_every : int, default=250
    tol : float, default=1e-3
    n_iter_no_change : int, default=4
    random_state : int, RandomState instance or None
    verbose : bool, default=False
    name : str
        Prefix of the progress table.
    state : RDAState, default=None
        Continue from an earlier call (on other triplets of the same
        problem, as ``partial_fit`` does): its :math:`\bar G_t`, :math:`t`
        and units. A task without triplets in this call takes zero
        subgradients, so its average decays as in one long run where it
        drew no violated triplet. Up to ``max_iter`` more steps are taken.
    keep_best : bool, default=True
        Return the best evaluated iterate; False: the last one.

    Returns
    -------
    SolverResult
        ``state`` holds the :class:`RDAState` after the last step.
    """
    rng = check_random_state(random_state)
    task_offsets = np.asarray(task_offsets)
    task_sizes = np.diff(task_offsets)
    n_tasks, n_basis = task_sizes.shape[0], differences.n_features
    batch_size = capped_batch_size(batch_size, task_sizes)

    if state is None:
        scale = triplet_scale(differences, triplet_pairs, rng)
        mean_gradient = np.zeros((n_tasks, n_basis))
        start = 0
    else:
        scale, start = state.scale, state.iteration
        mean_gradient = state.mean_gradient
    # The loop keeps the sum of the unnormalised batch subgradients
    # (rda_iterate): b * s * t times the mean gradient.
    unit = batch_size * scale
    step_unit = gamma * unit * scale
    total = mean_gradient * (unit * start)
    weights = (np.zeros((n_tasks, n_basis)) if start == 0 else
               rda_iterate(total, start * batch_size * beta, step_unit, start))
    evaluated = (differences, triplet_pairs, task_offsets)
    if triplet_pairs.shape[0] > OBJECTIVE_SAMPLE_ABOVE:
        evaluated = objective_sample(*evaluated, OBJECTIVE_SAMPLE, rng)
    value = (float(n_tasks) if state is None else
             objective(*evaluated, weights, beta)[0])
    monitor = Monitor(name, verbose, weights, value,
                      int(np.count_nonzero(weights.any(axis=0))), tol,
                      n_iter_no_change, stall_above=n_tasks,
                      keep_best=keep_best)
    # Tasks without triplets here (partial_fit) draw nothing: their rows
    # take zero steps.
    present = task_sizes > 0
    iteration = start
    while iteration < start + max_iter:
        block = min(eval_every, start + max_iter - iteration)
        draws = (rng.random_sample((block, n_tasks, batch_size))
                 * task_sizes[None, :, None]).astype(np.intp)
        draws += task_offsets[None, :-1, None]
        if not present.all():
            np.minimum(draws, triplet_pairs.shape[0] - 1, out=draws)
        for gradients in triplet_vectors(differences, triplet_pairs,
                                         draws):                # (T, b, K)
            iteration += 1
            # Batched matrix products in the table's precision: several
            # times faster than einsum on mixed float32/float64 operands.
            violated = (gradients @ weights.astype(gradients.dtype)[:, :, None]
                        > -1.0).astype(gradients.dtype)          # (T, b, 1)
            step = (np.swapaxes(violated, 1, 2) @ gradients)[:, 0]
            if not present.all():
                step[~present] = 0.0
            total += step
            weights = rda_iterate(total, iteration * batch_size * beta,
                                  step_unit, iteration)
        value, _ = objective(*evaluated, weights, beta)
        if monitor.update(iteration, value,
                          int(np.count_nonzero(weights.any(axis=0))),
                          weights.copy):
            break
    result = monitor.finish(iteration)
    if iteration > 0:
        mean_gradient = total / (unit * iteration)
    result.state = RDAState(mean_gradient, iteration, scale)
    return result


def rda_path(differences, triplet_pairs, betas, gamma=1.0, batch_size=32,
             max_iter=20000, eval_every=250, tol=1e-3, n_iter_no_change=4,
             random_state=None, scale=None):
    r"""SCML-Global's RDA at several values of :math:`\beta` at once.

    Row ``r`` is :func:`rda` (``T = 1``) at ``betas[r]``, with every row
    drawing the same batches: a batch's triplet vectors, the costly part
    of a step, then serve every value (the hinge test and the averaged
    subgradient are per row, :math:`w_r = \max(0, -(\sqrt t/\gamma)
    (\bar g_{r,t} + \beta_r))`). Each row keeps its best evaluated
    iterate and stops on its own rule (as :func:`rda`'s, on the same
    evaluations); a stopped row takes no more steps, and the loop ends when
    every row has stopped or at ``max_iter``. Parameters as :func:`rda`;
    ``scale`` is :func:`triplet_scale`'s value, when the caller has it.

    Returns
    -------
    weights : ndarray of shape (n_betas, K)
        The best iterate of each row.
    n_iter : ndarray of shape (n_betas,)
        The steps each row took.
    """
    rng = check_random_state(random_state)
    betas = np.asarray(betas, dtype=float)
    n_triplets, n_basis = triplet_pairs.shape[0], differences.n_features
    batch_size = capped_batch_size(batch_size, n_triplets)
    if scale is None:
        scale = triplet_scale(differences, triplet_pairs, rng)
    batch_betas = (batch_size * betas)[:, None]
    unit = batch_size * scale
    step_unit = gamma * unit * scale
    # Sums of the batch subgradients, as in rda (rda_iterate).
    total = np.zeros((betas.shape[0], n_basis))
    weights = np.zeros((betas.shape[0], n_basis))
    evaluated_differences, evaluated_pairs = differences, triplet_pairs
    if n_triplets > OBJECTIVE_SAMPLE_ABOVE:
        evaluated_differences, evaluated_pairs, _ = objective_sample(
            differences, triplet_pairs, [0, n_triplets], OBJECTIVE_SAMPLE, rng)
    # The objective is 1 at W = 0 (every hinge is 1).
    monitors = [Monitor("SCML path", False, row, 1.0, 0, tol,
                        n_iter_no_change, stall_above=1.0) for row in weights]
    n_iter = np.zeros(betas.shape[0], dtype=int)
    live = np.arange(betas.shape[0])
    iteration = 0
    while iteration < max_iter and live.shape[0]:
        block = min(eval_every, max_iter - iteration)
        draws = (rng.random_sample((block, batch_size))
                 * n_triplets).astype(np.intp)
        running_total, running_beta = total[live], batch_betas[live]
        running = weights[live]
        for gradients in triplet_vectors(differences, triplet_pairs,
                                         draws):                  # (b, K)
            iteration += 1
            violated = (running.astype(gradients.dtype) @ gradients.T
                        > -1.0).astype(gradients.dtype)           # (L, b)
            running_total += violated @ gradients
            running = rda_iterate(running_total, iteration * running_beta,
                                  step_unit, iteration, grouped=False)
        total[live], weights[live] = running_total, running
        distances = evaluated_differences.distances(running)       # (L, pairs)
        margins = (1.0 + distances[:, evaluated_pairs[:, 0]]
                   - distances[:, evaluated_pairs[:, 1]])
        values = (np.maximum(margins, 0.0).mean(axis=1)
                  + betas[live] * running.sum(axis=1))
        stopped = np.array([
            monitors[r].update(iteration, value, int(np.count_nonzero(row)),
                               row.copy)
            for r, value, row in zip(live, values, running)], dtype=bool)
        n_iter[live] = iteration
        live = live[~stopped]
    return (np.array([monitor.best.weights for monitor in monitors]),
            n_iter)


def components_from_weights(weights, basis, n_components=None):
    r"""A factor :math:`L` with :math:`L^T L = \sum_k w_k b_k b_k^T`.

    With fewer active elements than features, :math:`L` is the low-rank
    :math:`\operatorname{diag}(\sqrt{w_a}) B_a` over the active rows;
    otherwise the symmetric square root of :math:`M` (``D x D``). With
    ``n_components``, the :func:`leading_components` of that factor.

    Parameters
    ----------
    weights : ndarray of shape (K,), non-negative
    basis : ndarray of shape (K, D)
    n_components : int, default=None

    Returns
    -------
    components : ndarray of shape (n_components, D)
        Without ``n_components``, ``min(n_active, D)`` rows; when no
        element is active, a single zero row (the metric that maps
        everything to one point).
    """
    active = weights > 0
    n_active, n_features = int(active.sum()), basis.shape[1]
    factor = np.sqrt(weights[active])[:, None] * basis[active]
    if n_components is not None:
        return leading_components(factor, n_components)
    if n_active == 0:
        return np.zeros((1, n_features))
    if n_active < n_features:
        return factor
    metric = (basis[active].T * weights[active]) @ basis[active]
    eigenvalues, eigenvectors = np.linalg.eigh((metric + metric.T) / 2)
    return (eigenvectors * np.sqrt(np.clip(eigenvalues, 0, None))) @ eigenvectors.T


def leading_components(factor, n_components):
    r"""The top ``n_components`` eigen-directions of :math:`M = F^T F`.

    Row :math:`i` is :math:`\sqrt{\lambda_i} v_i^T`, the eigenpairs of
    :math:`M` in decreasing order, as scikit-learn's NCA and metric-learn's
    ``components_from_metric`` give: the rank-``n_components`` truncation
    of :math:`M` is :math:`L^T L`. Rows beyond the rank of :math:`M`
    (singular values of :math:`F` below the tolerance of
    :func:`numpy.linalg.matrix_rank`) are zero. Each row's sign makes its
    largest entry positive (``svd_flip``), so the embedding's orientation
    does not depend on the LAPACK build. ``factor`` is ``(r, D)``, any
    ``r`` (0 included); the result ``(n_components, D)``.
    """
    components = np.zeros((n_components, factor.shape[1]))
    if factor.shape[0] == 0:
        return components
    u, singular, vt = np.linalg.svd(factor, full_matrices=False)
    vt = svd_flip(u, vt, u_based_decision=False)[1]
    rank = int(np.sum(singular > singular[0] * max(factor.shape)
                      * np.finfo(float).eps))
    kept = min(rank, n_components)
    components[:kept] = singular[:kept, None] * vt[:kept]
    return components


# --------------------------------------------------------------------------
# SCML-Local: forward-backward splitting
# --------------------------------------------------------------------------


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
    :math:`g` is of order one, as in :func:`rda`, one learning rate suits
    data of any scale. The paper's solver took 200,001 single-triplet steps
    of a fixed 0.7 and applied the prox every 5,000 of them; here mini-
    batches and a prox at every step are used instead, and, as in
    :func:`rda`, the full objective (:func:`local_objective`) is evaluated
    every ``eval_every`` iterations, the best iterate is kept (the start
    included, so the result is never worse than the start) and the solver
    stops after ``n_iter_no_change`` evaluations without an improvement of
    ``tol``.

    With ``held_out`` (early stopping, as scikit-learn's
    ``SGDClassifier(early_stopping=True)``; beyond the paper), the steps
    draw from the other triplets only, and what is evaluated, kept at its
    best and stopped on is the held-out triplet error instead (the
    fraction of held-out triplets with :math:`d^2(x_i, x_j) \ge
    d^2(x_i, x_k)`, as :func:`~metric_learn_scml._selection.held_out_scores`
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
        As in :func:`rda`.
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
