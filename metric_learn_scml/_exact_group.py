r"""The exact optimum of mt-SCML: column generation over atoms, then Newton.

mt-SCML (Shi, Bellet and Sha, 2014) minimises, over :math:`W \in
\mathbb{R}_+^{T \times K}`,

.. math::

    P(W) = \sum_{t=1}^{T} \frac{1}{N_t} \sum_{c \in C_t}
           [1 + W_t \cdot g_c]_+ \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2

(:class:`metric_learn_scml._problem.HingeProblem`; SCML-Global is
:math:`T = 1`). It is a second-order cone program, and nothing in the core
dependencies solves those; this module solves it with linear programs
(HiGHS, :func:`metric_learn_scml._lp.dual_form_lp`, the LP of
:mod:`metric_learn_scml._exact` too) and a small Newton system.

**Dual and certificate.** With :math:`[z]_+ = \max_{0 \le a \le 1} a z`
and :math:`\alpha_c = a_c / N_t` for :math:`c \in C_t`,

.. math::

    P(W) = \max_{0 \le \alpha_c \le 1/N_t}\; \sum_c \alpha_c
           + \sum_k \big(W_{:,k} \cdot v_k + \beta \|W_{:,k}\|_2\big),
    \qquad v_{tk} = \sum_{c \in C_t} \alpha_c\, g_{ck}.

For :math:`w \ge 0` and :math:`u = \max(0, -v)` (elementwise),
:math:`w \cdot v \ge -w \cdot u \ge -\|w\|_2 \|u\|_2`, with equality for
:math:`w \propto u`; so :math:`\min_{w \ge 0} w \cdot v + \beta \|w\|_2` is
0 if :math:`\|u\|_2 \le \beta` and :math:`-\infty` otherwise (the conjugate
of :math:`\beta\|\cdot\|_2` restricted to :math:`w \ge 0` is the indicator
of :math:`\{y : \|\max(0, y)\|_2 \le \beta\}`, taken at :math:`y = -v`).
Exchanging min and max (the :math:`\alpha` box is compact) gives the dual

.. math::

    \max_\alpha\; D(\alpha) = \sum_c \alpha_c
    \quad\text{s.t.}\quad 0 \le \alpha_c \le \tfrac{1}{N_t},\quad
    \|u_k(\alpha)\|_2 \le \beta \ \ \forall k,
    \qquad u_k(\alpha) = \max\!\big(0, -v_k(\alpha)\big),

and :math:`P(W) \ge D(\alpha)` for every feasible :math:`\alpha`. Since
:math:`u_k(s\alpha) = s\,u_k(\alpha)`, any :math:`\alpha` in the box becomes
feasible when scaled by :math:`\min(1, \beta / \max_k \|u_k\|_2)`
(:meth:`~metric_learn_scml._problem.HingeProblem.duality_gap`); the gap :math:`P(W) - D(\alpha)`, computed on
every triplet and every column, bounds :math:`P(W) - P^*`. At :math:`T = 1`
this is the dual of :mod:`metric_learn_scml._exact` (there
:math:`\|u_k\| \le \beta` reads :math:`\beta + (G^T\alpha)_k \ge 0`). The
optimality (KKT) conditions: :math:`\alpha_c` is the hinge subgradient
(:math:`1/N_t` past the margin, 0 inside it, in between on it);
:math:`W_{:,k} = 0 \Rightarrow \|u_k\| \le \beta`;
:math:`W_{:,k} \ne 0 \Rightarrow \|u_k\| = \beta` and
:math:`W_{:,k} = \|W_{:,k}\|\, u_k / \beta`.

**Atoms.** For :math:`w \ge 0`, :math:`\|w\|_2 = \min\{\sum_j r_j : w =
\sum_j r_j d_j,\ r \ge 0\}` over unit non-negative directions :math:`d_j`
(the triangle inequality, with equality for the single atom
:math:`w / \|w\|`). So mt-SCML is a linear program over infinitely many
columns, the *atoms* :math:`(k, d)`, whose column holds :math:`d_t\, g_{ck}`
on the triplets :math:`c` of task :math:`t` and whose cost is
:math:`\beta`. On a finite set of atoms it is an LP whose solution
:math:`W_{:,k} = \sum_j r_{kj} d_{kj}` has :math:`P(W)` at most the LP's
value. The atom of column :math:`k` with the most negative reduced cost at
a dual point :math:`\alpha` is :math:`d = u_k / \|u_k\|`, of reduced cost
:math:`\beta - \|u_k\|`: column generation adds it while
:math:`\|u_k\| > \beta` (Kelley's cutting planes on the dual's cones). At
:math:`T = 1` the only atom of a column is the column itself and this is
:func:`metric_learn_scml._exact.exact_weights`. Rows are handled as there: a
working set of triplets near the margin, those well past it folded in at
:math:`\alpha = 1/N_t`, the guesses checked against every triplet after
each LP. Zeros are exact: a column no basic atom uses is 0.

**Newton refinement.** Cutting planes converge linearly at the end (on
Vowel the gap halves or quarters per round). Once the LP's structure is
right (its margin triplets :math:`M`, violated ones :math:`V` and support
:math:`S` of :math:`W`), the KKT conditions on that structure are smooth
equations in :math:`x = W_S` and :math:`a = \alpha_M`:

.. math::

    c_S + B^T a + \beta\, \hat{x} = 0, \qquad 1 + B x = 0,

with :math:`c = (\sum_{c \in V_t} g_c / N_t)_t`, :math:`B` the rows
:math:`g_c` of :math:`M` restricted to :math:`S` (task by task) and
:math:`\hat{x}` each column of :math:`x` divided by its norm. Newton's
method converges quadratically on them (the Jacobian is
:math:`[\beta H, B^T; B, 0]`, :math:`H` block-diagonal with blocks
:math:`(I - \hat{x}\hat{x}^T) / \|x_k\|`); a triplet whose :math:`a`
leaves :math:`[0, 1/N_t]` changes side and an entry that turns negative
leaves :math:`S` (a primal-dual active set). Its point counts as an LP's
does (the best objective and the best dual value are kept), and its
columns' directions join the atoms.

Measured on the mt-SCML problems of the Vowel benchmark (4 tasks, 840
columns, 17,760 triplets; 20 splits x 4 betas from 1e-5 to 1e-2, started
from RDA): every one certified below a relative gap of 1e-6, in 1.5 s of
CPU (median; at most 3.2 s; RDA takes about 0.8 s), with 45 to 107
active columns on average per beta where RDA left 58 to 239. FISTA on the smoothed hinge with restarts,
continuation :math:`\mu = 10^{-1} \dots 10^{-6}` and the exact group prox,
the other route measured, was not competitive: on split 0 at beta 1e-3,
18,000 full-batch iterations (8 minutes) left the objective 0.23 % above
the optimum, with 134 active columns instead of 93 and no usable
certificate (gap 8 %: its hinge-derived :math:`\alpha` is far from dual
feasible on some columns).
"""

from dataclasses import replace

import numpy as np

from ._defaults import (MARGIN_BAND, MAX_NEWTON_SIZE, MAX_NEW_COLUMNS,
                        ON_BOUND, SAME_DIRECTION)
from ._lp import dual_form_lp
from ._problem import HingeProblem, triplet_scale
from ._solvers import SolverResult, report


class Atoms:
    """The atoms :math:`(k, d)` of the working set: columns and directions."""

    def __init__(self, n_tasks):
        self.columns = np.zeros(0, dtype=np.intp)
        self.directions = np.zeros((n_tasks, 0))

    def add(self, columns, directions):
        """Add unit ``directions`` (``T x n``) of ``columns``, except those
        that repeat an atom of their column. Returns how many were new."""
        norms = np.linalg.norm(directions, axis=0)
        keep = norms > 0
        columns, directions = columns[keep], directions[:, keep] / norms[keep]
        # Cosines with every existing atom of the same column.
        same = (self.columns[None, :] == columns[:, None]) & (
            directions.T @ self.directions >= SAME_DIRECTION)
        new = ~same.any(axis=1)
        self.columns = np.concatenate([self.columns, columns[new]])
        self.directions = np.hstack([self.directions, directions[:, new]])
        return int(new.sum())

    def weights(self, amounts, n_basis):
        r""":math:`W_{:,k} = \sum_j r_{kj} d_{kj}`, ``T x K``."""
        return np.array([np.bincount(self.columns, row * amounts, n_basis)
                         for row in self.directions])


def _newton(B, costs, groups, x, a, sizes, beta, max_steps=30):
    r"""Newton's method on the KKT equations of one structure.

    Solves :math:`c + B^T \alpha + \beta \hat{x} = 0`, :math:`1 + B x = 0`
    (module docstring) for the support values ``x`` (``groups`` numbers
    their columns) and :math:`\alpha = a / N_t` on the margin triplets
    (``sizes`` their :math:`N_t`), from the given ``x`` and ``a``.

    Returns ``(x, a, converged)``.
    """
    n, m = x.shape[0], a.shape[0]
    scaled = B / sizes[:, None]
    same = groups[:, None] == groups[None, :]
    jacobian = np.zeros((n + m, n + m))
    jacobian[:n, n:] = scaled.T
    jacobian[n:, :n] = B
    for _ in range(max_steps):
        norms = np.sqrt(np.bincount(groups, x * x))[groups]
        if not np.all(norms > 0):
            return x, a, False
        unit = x / norms
        residual = np.concatenate([costs + scaled.T @ a + beta * unit,
                                   1.0 + B @ x])
        jacobian[:n, :n] = (beta * same / norms[:, None]) * (
            np.eye(n) - np.outer(unit, unit))
        try:
            step = np.linalg.solve(jacobian, -residual)
        except np.linalg.LinAlgError:
            # A degenerate structure (more or fewer margin triplets than
            # the support pins down): the least-squares step.
            step = np.linalg.lstsq(jacobian, -residual, rcond=None)[0]
        x, a = x + step[:n], a + step[n:]
        if not (np.all(np.isfinite(step))
                and np.abs(x).max(initial=0.0) < 1e12):
            return x, a, False
        if (np.linalg.norm(step[:n]) <= 1e-12 * np.linalg.norm(x)
                and np.abs(step[n:]).max(initial=0.0) <= 1e-12):
            return x, a, True
    return x, a, False


def _refine(problem, beta, weights, alpha, tol, max_passes=8):
    """Newton on the structure of an LP solution, with active-set moves.

    The structure is read from ``(weights, alpha)``: support, margin
    triplets (:math:`0 < \\alpha_c < 1/N_t`) and violated ones
    (:math:`\\alpha_c = 1/N_t`). After each Newton solve a margin triplet
    whose :math:`\\alpha` left its interval moves to the bound it crossed,
    a triplet whose margin changed sign joins the margin set, and a
    negative entry leaves the support; the pass ends when nothing moves or
    the duality gap is below ``tol``.

    Returns the point of least duality gap, ``(weights, alpha, gap,
    primal)`` (``alpha`` feasible), or None if Newton failed at once.
    """
    upper = problem.upper
    margin = (alpha > ON_BOUND * upper) & (alpha < (1 - ON_BOUND) * upper)
    past = alpha >= (1 - ON_BOUND) * upper
    support = weights > 0
    best = None
    for _ in range(max_passes):
        rows = np.flatnonzero(margin)
        tasks, columns = np.nonzero(support)
        if columns.shape[0] == 0 or (columns.shape[0] + rows.shape[0]
                                     > MAX_NEWTON_SIZE):
            break
        costs = problem.gradient(np.where(past, upper, 0.0))[tasks, columns]
        B = problem.rows(rows, columns) * (
            problem.tasks[rows][:, None] == tasks[None, :])
        sizes = 1.0 / upper[rows]
        x, a, converged = _newton(
            B, costs, np.unique(columns, return_inverse=True)[1],
            weights[tasks, columns], alpha[rows] * sizes, sizes, beta)
        if not converged:
            break
        weights = np.zeros_like(weights)
        weights[tasks, columns] = np.maximum(x, 0.0)
        alpha = np.where(past, upper, 0.0)
        alpha[rows] = np.clip(a, 0.0, 1.0) * upper[rows]
        margins = problem.margins(weights)
        gap, primal, feasible = problem.duality_gap(weights, beta,
                                                  alpha, margins)
        if best is None or gap < best[2]:
            best = (weights, feasible, gap, primal)
        if gap <= tol * primal:
            break
        # Active-set moves; margins within rounding of 0 are on it.
        eps = 1e-9
        below, above = a < 0, a > 1
        crossed = np.where(past, margins < -eps, ~margin & (margins > eps))
        dropped = x < 0
        if not (below.any() or above.any() or crossed.any()
                or dropped.any()):
            break
        margin[rows[below | above]] = False
        past[rows[above]] = True
        margin |= crossed
        past &= ~crossed
        support[tasks[dropped], columns[dropped]] = False
        alpha = np.where(past, upper, 0.0)
        alpha[rows] = np.clip(a, 0.0, 1.0) * upper[rows]
    return best


def _price(atoms, u, beta):
    """Add the atom ``u_k / ||u_k||`` of every column with ``||u_k|| > beta``.

    Columns without atoms yet join at most :data:`MAX_NEW_COLUMNS` a round,
    the most violated first (as in :mod:`._exact`); columns with atoms get
    their new direction. Returns how many atoms were added.
    """
    norms = np.linalg.norm(u, axis=0)
    violated = norms - beta > 1e-9 * max(beta, norms.max(initial=0.0))
    known = np.zeros(u.shape[1], dtype=bool)
    known[atoms.columns] = True
    entering = np.flatnonzero(violated & ~known)
    if entering.shape[0] > MAX_NEW_COLUMNS:
        entering = entering[np.argsort(-norms[entering])[:MAX_NEW_COLUMNS]]
    columns = np.concatenate([np.flatnonzero(violated & known), entering])
    return atoms.add(columns, u[:, columns])


def exact_group_weights(problem, beta, start, tol=1e-6, max_rounds=100,
                        report_round=None):
    r"""The optimum of mt-SCML, from a working set around ``start``.

    Column generation over atoms with a working set of triplets, each round
    one LP (module docstring); when a round's rows were guessed right, a
    Newton refinement of its structure. Stops when the duality gap of the
    best point is at most ``tol`` times its objective.

    Parameters
    ----------
    problem : HingeProblem
    beta : float
        In the units of ``problem``.
    start : ndarray of shape (T, K)
        A point near the optimum (RDA's); it chooses the first working set
        and is returned if nothing better is found.
    tol : float, default=1e-6
    max_rounds : int, default=100
    report_round : callable, default=None
        Called as ``report_round(round, primal, n_active, gap, n_rows,
        n_atoms)`` after each LP.

    Returns
    -------
    weights : ndarray of shape (T, K)
        The best point by objective (exact zeros off its support).
    alpha : ndarray of shape (n_triplets,)
        The feasible dual point of greatest value found.
    gap : float
        The objective of ``weights`` less that value (an upper bound on
        its distance to the optimum).
    n_rounds : int
    """
    n_tasks, n_basis = problem.n_tasks, problem.n_basis
    upper = problem.upper
    weights = np.array(start, dtype=float)
    margins = problem.margins(weights)
    alpha = np.where(margins > 0, upper, 0.0)
    _, best_value, dual = problem.duality_gap(weights, beta, alpha,
                                            margins)
    best = weights
    # Rows: explicit near the margin, folded well past it, left out well
    # inside (as in exact_weights), except that the first LP takes every
    # triplet past the margin explicitly: folded at RDA's point, they made
    # the LP push weights to ``bound`` (objective 842 on Vowel at beta
    # 1e-3) and cost two more rounds (15 % more CPU over 8 Vowel problems).
    explicit = margins >= -MARGIN_BAND
    folded = np.zeros_like(explicit)
    atoms = Atoms(n_tasks)
    active = np.flatnonzero(weights.any(axis=0))
    atoms.add(active, weights[:, active])
    _price(atoms, np.maximum(-problem.gradient(alpha), 0.0), beta)
    # No optimum has beta * ||W_k|| above P(0) = T: this bound cuts none, and
    # keeps the LP bounded while folded rows reward growth (see
    # exact_weights).
    bound = n_tasks / max(beta, 1e-6)
    mean_size = problem.task_sizes.mean()
    n_rounds = 0
    while n_rounds < max_rounds and best_value - dual.sum() > tol * best_value:
        n_rounds += 1
        row_ids = np.flatnonzero(explicit)
        alpha = np.where(folded, upper, 0.0)
        folded_gradient = problem.gradient(alpha)
        costs = beta + np.einsum("ta,ta->a", atoms.directions,
                                 folded_gradient[:, atoms.columns])
        columns, where = np.unique(atoms.columns, return_inverse=True)
        block = (problem.rows(row_ids, columns)[:, where]
                 * atoms.directions[problem.tasks[row_ids]])
        amounts, a = dual_form_lp(block, 1.0 / upper[row_ids], mean_size,
                                  costs, bound)
        weights = atoms.weights(amounts, n_basis)
        alpha[row_ids] = a * upper[row_ids]
        margins = problem.margins(weights)
        gap, value, feasible = problem.duality_gap(weights, beta,
                                                 alpha, margins)
        if feasible.sum() > dual.sum():
            dual = feasible
        if value < best_value:
            best, best_value = weights, value
        if report_round is not None:
            report_round(n_rounds, value, int(weights.any(axis=0).sum()), gap,
                         row_ids.shape[0], atoms.columns.shape[0])
        if best_value - dual.sum() <= tol * best_value:
            break
        wrong = np.where(folded, margins < 0, ~explicit & (margins > 0))
        if not wrong.any():
            refined = _refine(problem, beta, weights, alpha, tol)
            if refined is not None:
                if refined[1].sum() > dual.sum():
                    dual = refined[1]
                if refined[3] < best_value:
                    best, best_value = refined[0], refined[3]
                kept = np.flatnonzero(refined[0].any(axis=0))
                atoms.add(kept, refined[0][:, kept])
                if best_value - dual.sum() <= tol * best_value:
                    break
        added = _price(atoms, np.maximum(-problem.gradient(alpha), 0.0), beta)
        if not wrong.any() and not added:
            # The LP is optimal for the whole problem, up to HiGHS' tolerance.
            break
        on_margin = np.zeros_like(explicit)
        on_margin[row_ids] = (a > ON_BOUND) & (a < 1 - ON_BOUND)
        explicit = (np.abs(margins) <= MARGIN_BAND) | on_margin | wrong
        folded = (margins > MARGIN_BAND) & ~explicit
    return best, dual, max(best_value - dual.sum(), 0.0), n_rounds


def exact_group_phase(differences, triplet_pairs, task_offsets, result, beta,
                      random_state=None, verbose=False, name="MultiTaskSCML",
                      tol=1e-6, max_iter=100):
    r"""Take an RDA result of mt-SCML (or SCML-Global) to the exact optimum.

    The counterpart of :func:`metric_learn_scml._exact.exact_phase` for
    :math:`T` tasks (without column generation over new basis elements):
    :func:`exact_group_weights` from RDA's weights, in the rescaled units
    of :func:`~metric_learn_scml._problem.triplet_scale`.

    Parameters
    ----------
    differences : SquaredDifferences
        Of the data at unit scale, pairs grouped by task as in ``rda``.
    triplet_pairs : ndarray of shape (n_triplets, 2)
        Grouped by task.
    task_offsets : ndarray of shape (T + 1,)
    result : SolverResult
        RDA's result (``weights`` of shape (T, K)).
    beta : float
        In the units of ``differences`` (the user's beta times the square
        of the unit scale), as given to RDA.
    random_state : RandomState
        For the sample that sets the units.
    verbose : bool
    name : str
        Prefix of the progress lines.
    tol : float, default=1e-6
        Stop when the duality gap is at most ``tol`` times the objective.
    max_iter : int, default=100
        Rounds (one LP each).

    Returns
    -------
    SolverResult
        The best point found (never worse than RDA's), its objective and
        ``dual_gap`` (absolute, in the objective's units); ``converged``
        says whether the gap reached ``tol`` times the objective (when it
        did not, the caller warns); ``n_iter`` is RDA's and ``history``
        RDA's with the exact point appended at RDA's last iteration. If
        HiGHS fails, RDA's result itself, with its duality gap and
        ``converged=False``.
    """
    scale = triplet_scale(differences, triplet_pairs, random_state)
    problem = HingeProblem(differences, triplet_pairs, task_offsets, scale)

    def report_round(n_round, value, n_active, gap, n_rows, n_atoms):
        report(name, verbose, "exact phase, round %d: objective %.6f, %d "
               "active, duality gap %.3g (%d triplets, %d atoms)" % (
                   n_round, value, n_active, gap, n_rows, n_atoms))

    try:
        weights, _, gap, n_rounds = exact_group_weights(
            problem, beta / scale, result.weights * scale, tol, max_iter,
            report_round)
    except RuntimeError as error:
        gap = problem.duality_gap(result.weights * scale,
                                beta / scale)[0]
        report(name, verbose, "exact phase failed (%s): RDA's point kept, "
               "duality gap %.3g" % (error, gap))
        return replace(result, converged=False, dual_gap=gap)
    value = problem.objective(weights, beta / scale)
    n_active = int(np.count_nonzero(weights.any(axis=0)))
    report(name, verbose, "exact phase: objective %.6f, %d active, duality "
           "gap %.3g (%d rounds)" % (value, n_active, gap, n_rounds))
    history = list(result.history) + [(result.n_iter, value, n_active)]
    return SolverResult(weights / scale, value, result.n_iter,
                        gap <= tol * value, history, dual_gap=gap)
