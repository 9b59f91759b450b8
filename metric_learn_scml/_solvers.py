r"""Solvers for the SCML objectives, shared by the global and multi-task models.

The objective :math:`P(W)` of mt-SCML (SCML-Global is :math:`T = 1`) and
its notation are those of :mod:`metric_learn_scml._problem`. Both are
solved by regularized dual averaging (RDA, Xiao 2010), as in the paper: with :math:`\bar G_t` the average of the stochastic (sub)gradients of
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

(the penalty's proximal operator, :func:`._problem.penalty_for`; for
:math:`T = 1` it is :math:`w = \max(0, -(\sqrt{t}/\gamma)(\bar g_t +
\beta))`).
"""

import math
import time
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip

from ._arrays import chunk_rows
from ._problem import (HingeProblem, SolverResult, active_columns, penalty_for,
                       report, triplet_scale)

# Above OBJECTIVE_SAMPLE_ABOVE triplets (about 33,000 points at 30 triplets
# a point), RDA's evaluations use a fixed sample of OBJECTIVE_SAMPLE of
# them: an evaluation then costs the same at any n, and the sample's mean
# hinge differs from the full one by about its standard error, 1e-3 or
# less, the size of tol.
# Evidence: NOTES.md, "Scale (issue 14)".
OBJECTIVE_SAMPLE_ABOVE = 1_000_000
OBJECTIVE_SAMPLE = 200_000


@dataclass
class RDAState:
    """What RDA carries from one call to the next (``partial_fit``).

    Attributes
    ----------
    mean_gradient : ndarray of shape (T, K)
        :math:`\bar G_t`, in the solver's rescaled units: each task's
        subgradients averaged over the steps it took.
    iteration : int
        :math:`t`, the steps taken so far.
    scale : float
        The unit :math:`s` of the triplet vectors (fixed by the first call,
        so that every call works in the same units).
    task_steps : ndarray of shape (T,), default=None
        The steps each task took, where some took fewer than
        ``iteration`` (a ``partial_fit`` batch without it, or a task that
        came later); None: every task took them all.
    """

    mean_gradient: np.ndarray
    iteration: int
    scale: float
    task_steps: np.ndarray = None

    def steps(self):
        """The steps of each task, shape (T,)."""
        if self.task_steps is None:
            return np.full(self.mean_gradient.shape[0], float(self.iteration))
        return np.asarray(self.task_steps, dtype=float)


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
        report(name, verbose, "%10s %14s %10s %10s" % (
            "Iteration", column[:14], "Active", "Time(s)"))
        report(name, verbose, "-" * 47)
        self.record(0, value, n_active)

    def record(self, iteration, value, n_active):
        """Add a row to ``history`` and to the progress table."""
        self.best.history.append((iteration, value, n_active))
        if self.verbose:
            report(self.name, True, "%10d %14.6f %10d %10.2f" % (
                iteration, value, n_active, time.perf_counter() - self.start))

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


def capped_batch_size(batch_size, task_sizes):
    """``batch_size``, at most the triplets of the largest task.

    Every solver draws its batches with replacement, so a larger batch
    only repeats triplets, at its full cost at every step. Each solver
    applies this itself, so that no caller can forget it.
    """
    return int(min(batch_size, max(int(np.max(task_sizes)), 1)))


def rda_work(n_iter, batch_size, task_sizes, n_basis):
    """RDA's work in the exact phase's unit (:func:`~metric_learn_scml.
    _exact.exact_weights`): the triplet-element entries of its steps'
    batches, ``n_iter`` steps of one batch per task (of every triplet,
    where a batch covers the largest task: :func:`rda`)."""
    task_sizes = np.asarray(task_sizes)
    per_step = min(capped_batch_size(batch_size, task_sizes)
                   * task_sizes.shape[0], int(task_sizes.sum()))
    return float(n_iter) * per_step * n_basis


def triplet_vectors(differences, triplet_pairs, draws):
    r"""The triplet vectors :math:`g = s_{ij} - s_{ik}` of each step's draws.

    ``draws`` has shape ``(n_steps,) + shape`` (rows of ``triplet_pairs``);
    yields one ``shape + (K,)`` array per step. The rows of several steps
    are gathered at once (a megabyte of them,
    :func:`~metric_learn_scml._arrays.chunk_rows`): one gather of many rows costs much less than many of few.
    """
    per_step = max(1, int(np.prod(draws.shape[1:])))
    steps = max(1, chunk_rows(differences.n_features) // per_step)
    for first in range(0, draws.shape[0], steps):
        chosen = triplet_pairs[draws[first:first + steps]]
        block = differences.rows(chosen[..., 0])
        block -= differences.rows(chosen[..., 1])
        yield from block


def rda_iterate(total, threshold, step, t):
    r"""RDA's iterate from the running sum of its batch subgradients.

    With :math:`S_t = \sum_{i \le t} V_i^T G_i` (each batch's hinge
    indicator times its triplet vectors, unnormalised, in the solver's
    units), :math:`\bar G_t = S_t / (b s t)` for batches of :math:`b`
    triplets and scale :math:`s`, and the group soft threshold being
    positively homogeneous, the closed form of the module docstring is

    .. math:: W_{t+1} = \frac{1}{\gamma b s^2 \sqrt t}\,
              \operatorname{prox}(-S_t, \; t b \beta)

    with ``threshold`` :math:`= t b \beta` and ``step``
    :math:`= \gamma b s^2`. ``total`` is ``(T, ...)``: the groups are
    along the first axis (the tasks of mt-SCML), and every other index is
    its own problem (the betas of a grid, the columns); for one task each
    entry is :math:`\max(0, -(S + \tau))`. ``threshold`` broadcasts
    against ``total[0]``.
    """
    # (In place and with math.sqrt: the solvers call this at every step.)
    weights = penalty_for(total.shape[0]).prox(np.negative(total), threshold)
    weights *= 1.0 / (step * math.sqrt(t))
    return weights


def task_iterate(total, steps, threshold, step, t):
    r""":func:`rda_iterate` where task :math:`j` took :math:`t_j \le t`
    of the :math:`t` steps (``steps``; beyond the paper).

    Each task's sum is that of its own steps, so its mean is
    :math:`S_j / (b s t_j)`; the iterate is the closed form at those means
    (each sum rescaled by :math:`t / t_j`), with task :math:`j`'s row at
    its own step count, :math:`\sqrt{t_j}` where the closed form has
    :math:`\sqrt t`. A task absent from a batch then keeps its mean and
    its scale: its row moves only where the group penalty couples it to
    the tasks that stepped. A task with no step yet has a zero row.
    ``steps`` broadcasts against ``total``'s first axis.
    """
    steps = np.asarray(steps, dtype=float)
    ratio = np.divide(t, steps, out=np.zeros_like(steps), where=steps > 0)
    weights = rda_iterate(total * ratio[:, None, None], threshold, step, t)
    weights *= np.sqrt(steps / t)[:, None, None]
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
    return RDAState(raw / scale, state.iteration, scale, state.task_steps)


class SampledBatches:
    """RDA's batches: ``batch_size`` triplets of every task, drawn
    uniformly at each step, and the sum of their hinge subgradients."""

    def __init__(self, differences, triplet_pairs, task_offsets, batch_size,
                 random_state):
        self.differences, self.triplet_pairs = differences, triplet_pairs
        self.task_offsets = np.asarray(task_offsets)
        self.batch_size, self.random_state = batch_size, random_state

    def draw(self, n_steps):
        """The triplet vectors of ``n_steps`` steps' batches, one
        ``(T, b, K)`` array a step (:func:`triplet_vectors`)."""
        sizes = np.diff(self.task_offsets)
        draws = (self.random_state.random_sample(
            (n_steps, sizes.shape[0], self.batch_size))
            * sizes[None, :, None]).astype(np.intp)
        draws += self.task_offsets[None, :-1, None]
        # (A task without triplets, in a partial_fit batch, draws past the
        # last; its step is zeroed.)
        np.minimum(draws, self.triplet_pairs.shape[0] - 1, out=draws)
        return triplet_vectors(self.differences, self.triplet_pairs, draws)

    @staticmethod
    def subgradient(weights, gradients):
        """Per task and beta, the sum of the batch's hinge subgradients at
        ``weights`` (T, L, K): the triplet vectors whose margin
        :math:`w^T g` exceeds -1."""
        # Batched matrix products in the table's precision: several times
        # faster than einsum on mixed float32/float64 operands.
        violated = (weights.astype(gradients.dtype)
                    @ gradients.swapaxes(1, 2)
                    > -1.0).astype(gradients.dtype)              # (T, L, b)
        return violated @ gradients


class WholeBatches:
    """A batch that covers the largest task, taken as its expectation:
    each step is one pass over the triplets through the pair table (a
    task's batch of ``b`` draws from its ``N_t`` triplets sums to
    ``b / N_t`` times their subgradients), instead of ``b`` gathered
    triplet vectors."""

    def __init__(self, problem, batch_size):
        self.problem, self.share = problem, batch_size * problem.upper

    def draw(self, n_steps):
        return range(n_steps)

    def subgradient(self, weights, _):
        violated = self.problem.margins(np.swapaxes(weights, 0, 1)) > 0
        return np.stack([self.problem.gradient(row * self.share)
                         for row in violated], axis=1)


def rda(differences, triplet_pairs, task_offsets, beta, gamma=1.0,
        batch_size=32, max_iter=20000, eval_every=250, tol=1e-3,
        n_iter_no_change=4, random_state=None, verbose=False, name="SCML",
        state=None, keep_best=True, scale=None):
    r"""Regularized dual averaging for SCML-Global and mt-SCML, at one
    :math:`\beta` or along a grid of them.

    Each iteration draws ``batch_size`` triplets from every task (so a small
    task weighs as much in the gradient as in the objective, whatever its
    size), averages their hinge subgradients into its task's row, updates
    the running average :math:`\bar G_t` and takes the closed-form RDA step
    of the module docstring. Every ``eval_every`` iterations the full
    objective is computed exactly (beyond ``OBJECTIVE_SAMPLE_ABOVE``
    triplets, on a fixed sample of them, :meth:`~metric_learn_scml._problem.HingeProblem.sample`, and the
    returned ``objective`` is that estimate); the best iterate is kept, and the solver
    stops when ``n_iter_no_change`` evaluations in a row improve the best
    value by less than ``tol``. The tolerance is absolute because the
    objective has a natural scale: it is ``T`` (one per task) at ``W = 0``.

    With a grid of betas, one problem per value runs on the same batches:
    a batch's triplet vectors, the costly part of a step, then serve every
    value (the hinge test and the averaged subgradient are per value).
    Each value keeps its best iterate and stops on its own rule; a stopped
    value takes no more steps, and the loop ends when every value has
    stopped. Each value's result is the run :func:`rda` would make at that
    value alone with the same ``random_state``.

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
        Grouped by task (see :class:`~metric_learn_scml._problem.HingeProblem`).
    task_offsets : ndarray of shape (T + 1,)
        Every task must own at least one triplet.
    beta : float or array-like of shape (n_betas,)
        Group-sparsity (l1 when T = 1) strength, >= 0; an array is a grid.
    gamma : float, default=1.0
        RDA step parameter, in the rescaled units (larger is more
        conservative).
    batch_size : int, default=32
        Triplets per task per iteration, at most those of the largest
        task (:func:`capped_batch_size`); a batch that covers the largest
        task is taken as its expectation, one pass over every triplet per
        iteration (no draws).
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
        and units. A task without triplets in this call takes no step:
        each task's mean is over the steps it took (:func:`task_iterate`;
        the state's ``task_steps``). Up to ``max_iter`` more steps are
        taken. Only at a single beta.
    keep_best : bool, default=True
        Return the best evaluated iterate; False: the last one.
    scale : float, default=None
        :func:`~metric_learn_scml._problem.triplet_scale`'s value, when the
        caller has it.

    Returns
    -------
    SolverResult, or a list of them for a grid
        ``state`` holds the :class:`RDAState` after the last step.
    """
    rng = check_random_state(random_state)
    task_offsets = np.asarray(task_offsets)
    task_sizes = np.diff(task_offsets)
    n_tasks, n_basis = task_sizes.shape[0], differences.n_features
    betas = np.atleast_1d(np.asarray(beta, dtype=float))
    n_betas = betas.shape[0]
    batch_size = capped_batch_size(batch_size, task_sizes)

    fresh = state is None
    if fresh:
        if scale is None:
            scale = triplet_scale(differences, triplet_pairs, rng)
        state = RDAState(np.zeros((n_tasks, n_basis)), 0, scale)
    scale, start, mean_gradient = state.scale, state.iteration, \
        state.mean_gradient
    # Tasks without triplets here (partial_fit) draw nothing and take no
    # step: each task's mean is over its own steps (task_iterate).
    present = task_sizes > 0
    first_steps = state.steps()
    uneven = not present.all() or bool((first_steps != start).any())
    # The loop keeps, per task and beta, the sum of the unnormalised batch
    # subgradients (rda_iterate): b * s * t_j times the task's mean.
    unit = batch_size * scale
    step_unit = gamma * unit * scale
    batch_betas = (batch_size * betas)[None, :, None]
    total = np.repeat((mean_gradient * (unit * first_steps[:, None]))[:, None],
                      n_betas, axis=1)                           # (T, L, K)

    def steps_at(t):
        return first_steps + (t - start) * present

    def iterate(total, t, betas):
        if uneven:
            return task_iterate(total, steps_at(t), t * betas, step_unit, t)
        return rda_iterate(total, t * betas, step_unit, t)
    weights = (np.zeros((n_tasks, n_betas, n_basis)) if start == 0 else
               iterate(total, start, batch_betas))
    evaluated = HingeProblem(differences, triplet_pairs, task_offsets)
    if triplet_pairs.shape[0] > OBJECTIVE_SAMPLE_ABOVE:
        evaluated = evaluated.sample(OBJECTIVE_SAMPLE, rng)
    values = (np.full(n_betas, float(n_tasks)) if fresh else
              evaluated.objectives(np.swapaxes(weights, 0, 1), betas))
    monitors = [Monitor(name, verbose and n_betas == 1, weights[:, row],
                        values[row], active_columns(weights[:, row]), tol,
                        n_iter_no_change, stall_above=n_tasks,
                        keep_best=keep_best) for row in range(n_betas)]
    n_iter = np.full(n_betas, start)
    live = np.arange(n_betas)
    iteration = start
    batches = (WholeBatches(HingeProblem(differences, triplet_pairs,
                                         task_offsets), batch_size)
               if batch_size >= task_sizes.max() else
               SampledBatches(differences, triplet_pairs, task_offsets,
                              batch_size, rng))
    while iteration < start + max_iter and live.shape[0]:
        block = min(eval_every, start + max_iter - iteration)
        running_total, running = total[:, live], weights[:, live]
        running_betas = batch_betas[:, live]
        for batch in batches.draw(block):
            iteration += 1
            step = batches.subgradient(running, batch)          # (T, L, K)
            step[~present] = 0.0
            running_total += step
            running = iterate(running_total, iteration, running_betas)
        total[:, live], weights[:, live] = running_total, running
        values = evaluated.objectives(np.swapaxes(running, 0, 1),
                                      betas[live])
        stopped = np.array([
            monitors[row].update(iteration, value,
                                 active_columns(running[:, i]),
                                 running[:, i].copy)
            for i, (row, value) in enumerate(zip(live, values))], dtype=bool)
        n_iter[live] = iteration
        live = live[~stopped]
    results = []
    for row, monitor in enumerate(monitors):
        result = monitor.finish(n_iter[row])
        steps = steps_at(n_iter[row])
        row_mean = (np.divide(total[:, row], unit * steps[:, None],
                              out=np.zeros_like(total[:, row]),
                              where=steps[:, None] > 0)
                    if n_iter[row] else mean_gradient)
        result.state = RDAState(row_mean, int(n_iter[row]), scale,
                                steps if uneven else None)
        results.append(result)
    return results if np.ndim(beta) else results[0]


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
