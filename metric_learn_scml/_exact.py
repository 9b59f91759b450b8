r"""The exact optimum of SCML-Global and mt-SCML: working-set linear programs.

mt-SCML (Shi, Bellet and Sha, 2014) minimises, over :math:`W \in
\mathbb{R}_+^{T \times K}`,

.. math::

    P(W) = \sum_{t=1}^{T} \frac{1}{N_t} \sum_{c \in C_t}
           [1 + W_t \cdot g_c]_+ \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2

(:class:`metric_learn_scml._problem.HingeProblem`; SCML-Global is
:math:`T = 1`, where it is a linear program). For :math:`T > 1` it is a
second-order cone program, and nothing in the core dependencies solves
those; this module solves every :math:`T` with linear programs (HiGHS,
:mod:`metric_learn_scml._lp`) and, for :math:`T > 1`, a small Newton
system (:mod:`metric_learn_scml._newton`).

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
every triplet and every column, bounds :math:`P(W) - P^*`. At :math:`T = 1`,
:math:`\|u_k\| \le \beta` reads :math:`\beta + (G^T\alpha)_k \ge 0`: the
dual of SCML-Global's LP. The
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
:math:`T = 1` the only atom of a column is the column itself. Zeros are
exact: a column no basic atom uses is 0.

**Working sets.** At the optimum only a few triplets have
:math:`\alpha_c > 0` (those on or inside the margin) and only a few
elements are active: on wine, 60 of 5,340 triplets and 21 of 400
elements. The LP over all of them is slow (breast cancer: 29 s with
HiGHS' dual simplex) but its restriction to a *working set* of rows and
atoms is small. :func:`exact_weights` solves the restricted LP, then
checks the whole problem:

- a triplet outside the row set with :math:`1 + W_t \cdot g_c > 0` is
  violated: add it (cutting planes); triplets well past the margin are
  folded into one row per task, the hinge of their sum
  (:func:`~metric_learn_scml._lp.folded_rows`), and one that the new point
  moves inside the margin becomes explicit;
- an atom of reduced cost :math:`\beta - \|u_k\| < 0` would lower the
  objective: add it (column generation);

and stops when neither exists, or when the duality gap is below its
tolerance. The LPs are solved afresh by scipy's ``linprog``
(:mod:`metric_learn_scml._lp`). At :math:`T = 1` the loop ends
finitely, at a vertex optimal for the whole LP. At :math:`T > 1` the atoms
only approximate the cones and cutting planes converge linearly at the
end, so each round whose rows were guessed right is refined by Newton's
method on its KKT equations (:func:`metric_learn_scml._newton.refine`).

This goes beyond the paper, which stops at the stochastic RDA iterate; the
start (usually that iterate) only decides the first working set, never the
answer.
"""

from dataclasses import replace

import numpy as np

from ._defaults import ON_BOUND
from ._lp import OutOfBudget, working_set_lp
from ._newton import refine
from ._problem import HingeProblem, penalty_for, triplet_scale
from ._solvers import SolverResult, active_columns, report


# Triplets whose margin 1 + g.w is within MARGIN_BAND of 0 at the start are
# the LP's rows (the others are folded in or left out, and checked after
# it); on breast cancer, 0.1 at the RDA iterate gave LPs of 900 rows and the
# same optimum as 0.5 in a third of the time.
# Evidence: speed only (any value gives the same certified optimum).
MARGIN_BAND = 0.1

# The first atoms are the start's elements whose weight (norm over the
# tasks) exceeds START_ATOMS times the largest; the RDA iterate keeps many
# small weights that the optimum drops (mt-SCML on satimage in 3 tasks:
# 840 at the start, 176 at the optimum), and each atom is an LP row over
# every explicit triplet. 0.2 against every start element: exact phase
# 0.89x at the defaults (13 breadth datasets), 0.53x on satimage's tasks;
# 0.05 and 0.4 did less. NOTES.md, "The exact phase's folded rows".
# Evidence: speed only (any value gives the same certified optimum).
START_ATOMS = 0.2

# Columns added per round at most (the most negative reduced costs first),
# so that one round cannot turn a small LP into the whole problem.
# Evidence: speed only (any value gives the same certified optimum).
MAX_NEW_COLUMNS = 50


def exact_weights(problem, beta, start, tol=0.0, max_rounds=100, lp=None,
                  report_round=None, budget=None):
    r"""The optimum of :math:`P`, from a working set around ``start``.

    Column generation over atoms with a working set of triplets (module
    docstring), each round one LP; for several tasks, a Newton refinement
    of each round whose rows were guessed right.

    Parameters
    ----------
    problem : HingeProblem
    beta : float
        In the units of ``problem``.
    start : ndarray of shape (T, K) or (K,)
        A point near the optimum (the RDA iterate, or the optimum at a
        nearby ``beta`` on a path); it chooses the first working set.
    tol : float, default=0.0
        Stop when the duality gap of the best point is at most ``tol``
        times its objective; 0: only when no row and no atom is missing.
    max_rounds : int, default=100
        Rows are guessed anew from each round's margins, so nothing
        guarantees a finite end; in practice it takes 2 to 10 rounds, and
        what is returned after ``max_rounds`` still comes with its (then
        larger) duality gap.
    lp : ScipyLP, default=None
        The LP of ``problem`` to solve in (default:
        :func:`~metric_learn_scml._lp.working_set_lp`); a path passes one
        along, so that each solve keeps the last one's atoms.
    report_round : callable, default=None
        Called as ``report_round(round, primal, n_active, gap, n_rows,
        n_atoms)`` after each LP.
    budget : float, default=None
        A budget of work, counted as each LP's simplex iterations times
        the entries of its block (one pass of the dual simplex's pricing
        over the block per iteration): the LP that would exceed what is
        left is stopped at HiGHS' iteration limit, and the best point
        found by then is returned, with its duality gap. Work, not
        seconds, so that a fit is the same on any machine under any load.
        None: no budget.

    Returns
    -------
    weights : ndarray of shape (T, K)
        The best point by objective (exact zeros off its support).
    n_rounds : int
    gap : float
        Its objective less the best dual value found (an upper bound on
        its distance to the optimum).
    alpha : ndarray of shape (n_triplets,)
        The feasible dual point of that value.
    out_of_budget : bool
        Whether ``budget`` ended the loop.
    """
    upper, penalty = problem.upper, penalty_for(problem.n_tasks)
    lp = working_set_lp(problem) if lp is None else lp
    weights = np.atleast_2d(np.asarray(start, dtype=float))
    margins = problem.margins(weights)
    alpha = np.where(margins > 0, upper, 0.0)
    gradient = problem.gradient(alpha)
    _, best_value, dual = problem.duality_gap(weights, beta, alpha, margins,
                                              gradient)
    best = weights
    # Three kinds of rows: explicit ones, near the margin; folded ones, well
    # past it, whose alpha is 1/N_t at the optimum, so that they enter as
    # one row per task (folded_rows); the rest, well inside, with alpha 0.
    # Both guesses are checked after each LP.
    explicit = np.abs(margins) <= MARGIN_BAND
    folded = margins > MARGIN_BAND
    # The start's large elements are the first atoms; pricing brings in
    # any other that the optimum needs.
    norms = np.linalg.norm(weights, axis=0)
    active = np.flatnonzero(norms > START_ATOMS * norms.max(initial=0.0))
    lp.atoms.add(active, weights[:, active])
    price(lp.atoms, gradient, beta)
    n_rounds, out_of_budget, work_before = 0, False, lp.work
    while n_rounds < max_rounds:
        lp.rows = explicit
        folded &= ~explicit
        entries = (explicit.sum() + problem.n_tasks) * max(
            lp.atoms.columns.shape[0], 1)
        max_iter = (None if budget is None
                    else int((budget - (lp.work - work_before)) // entries))
        try:
            weights, row_ids, alpha = lp.solve(folded, beta, max_iter)
        except OutOfBudget:
            # (It ran to its iteration limit.)
            lp.work += max(max_iter, 0) * entries
            out_of_budget = True
            break
        n_rounds += 1
        lp.work += lp.n_iter * entries
        margins = problem.margins(weights)
        gradient = problem.gradient(alpha)
        gap, value, feasible = problem.duality_gap(weights, beta, alpha,
                                                   margins, gradient)
        if feasible.sum() > dual.sum():
            dual = feasible
        if value <= best_value:
            best, best_value = weights, value
        if report_round is not None:
            report_round(n_rounds, value, active_columns(weights), gap,
                         row_ids.shape[0], lp.atoms.columns.shape[0])
        if best_value - dual.sum() <= tol * best_value:
            break
        # A folded row now inside the margin, or a left-out one now past
        # it, was taken at the wrong alpha: it becomes explicit.
        wrong = np.where(folded, margins < 0, ~explicit & (margins > 0))
        if penalty.refines and not wrong.any():
            refined = refine(problem, beta, weights, alpha, tol)
            if refined is not None:
                if refined[1].sum() > dual.sum():
                    dual = refined[1]
                if refined[3] < best_value:
                    best, best_value = refined[0], refined[3]
                kept = np.flatnonzero(refined[0].any(axis=0))
                lp.atoms.add(kept, refined[0][:, kept])
                if best_value - dual.sum() <= tol * best_value:
                    break
        added = price(lp.atoms, gradient, beta)
        if not wrong.any() and not added:
            # The LP is optimal for the whole problem, up to HiGHS'
            # tolerance.
            break
        # New guesses from the new margins; the rows on the margin stay
        # explicit (their alpha is strictly between 0 and 1/N_t).
        on_margin = np.zeros_like(explicit)
        on_margin[row_ids] = ((alpha[row_ids] > ON_BOUND * upper[row_ids])
                              & (alpha[row_ids]
                                 < (1 - ON_BOUND) * upper[row_ids]))
        explicit = (np.abs(margins) <= MARGIN_BAND) | on_margin | wrong
        folded = (margins > MARGIN_BAND) & ~explicit
    return (best, n_rounds, max(best_value - dual.sum(), 0.0), dual,
            out_of_budget)


def price(atoms, gradient, beta):
    r"""Add the atom :math:`u_k / \|u_k\|` of every column with
    :math:`\|u_k\| > \beta`, :math:`u = \max(0, -V)` (``gradient`` is
    :math:`V`).

    Columns without atoms yet join at most :data:`MAX_NEW_COLUMNS` a round,
    the most violated first; columns with atoms get their new direction (at
    one task, none: its one atom is the column). A working set without any
    atom gets the column of least summed gradient (at one task, the least
    positive reduced cost), so that the LP has a column. Returns how many
    atoms were added.
    """
    u = np.maximum(-gradient, 0.0)
    norms = np.linalg.norm(u, axis=0)
    violated = norms - beta > 1e-9 * max(beta, norms.max(initial=0.0))
    known = np.zeros(u.shape[1], dtype=bool)
    known[atoms.columns] = True
    entering = np.flatnonzero(violated & ~known)
    if entering.shape[0] > MAX_NEW_COLUMNS:
        entering = entering[np.argsort(-norms[entering])[:MAX_NEW_COLUMNS]]
    columns = np.concatenate([np.flatnonzero(violated & known), entering])
    added = atoms.add(columns, u[:, columns])
    if not atoms.columns.shape[0]:
        column = int(np.argmin(gradient.sum(axis=0)))
        atoms.add(np.array([column]), np.ones((u.shape[0], 1)))
    return added


def exact_phase(differences, triplet_pairs, task_offsets, result, beta,
                random_state=None, verbose=False, name="SCML", budget=None):
    r"""Take an RDA result to the exact optimum on its basis.

    :func:`exact_weights` from RDA's weights, in the rescaled units of
    :func:`~metric_learn_scml._problem.triplet_scale`, at one task to the
    end of its loop, at several to a relative duality gap of
    ``gap_tol`` of its penalty (:func:`._problem.penalty_for`).

    Parameters
    ----------
    differences : SquaredDifferences
        Of the points on the basis, pairs grouped by task as in ``rda``.
    triplet_pairs : ndarray of shape (n_triplets, 2)
        Grouped by task.
    task_offsets : ndarray of shape (T + 1,)
    result : SolverResult
        The RDA result (``weights`` of shape (T, K)); it chooses the first
        working set.
    beta : float
        In the units of ``differences``, as given to RDA.
    random_state : RandomState
        For the sample that sets the units.
    verbose : bool
    name : str
        Prefix of the progress lines.
    budget : float, default=None
        The phase's budget of work (:func:`exact_weights`); where it runs
        out, the best point is returned with its duality gap. None: no
        budget.

    Returns
    -------
    result : SolverResult
        The optimum (or, out of budget, the best point: RDA's or a round's),
        its objective and ``dual_gap``; ``converged`` is False where the
        budget ended the phase. ``history`` is RDA's with the optimum
        appended at RDA's last iteration. If the LP solver fails, RDA's
        result with its duality gap.
    """
    scale = triplet_scale(differences, triplet_pairs, random_state)
    history = list(result.history)
    weights = result.weights * scale
    n_tasks = weights.shape[0]

    def report_round(n_round, value, n_active, gap, n_rows, n_atoms):
        report(name, verbose, "exact phase, round %d: objective %.6f, %d "
               "active, duality gap %.3g (%d triplets, %d atoms)" % (
                   n_round, value, n_active, gap, n_rows, n_atoms))

    problem = HingeProblem(differences, triplet_pairs, task_offsets, scale)
    lp = working_set_lp(problem)
    try:
        weights, n_rounds, gap, _, out_of_budget = exact_weights(
            problem, beta / scale, weights,
            tol=penalty_for(n_tasks).gap_tol, lp=lp,
            report_round=report_round, budget=budget)
    except RuntimeError as error:
        gap = problem.duality_gap(weights, beta / scale)[0]
        report(name, verbose, "exact phase failed (%s): RDA's point "
               "kept, duality gap %.3g" % (error, gap))
        return replace(result, dual_gap=gap, converged=True)
    value = problem.objective(weights, beta / scale)
    n_active = active_columns(weights)
    history.append((result.n_iter, value, n_active))
    report(name, verbose, "exact phase, %d elements: objective %.6f, %d "
           "active, duality gap %.3g (%d rounds%s)" % (
               problem.n_basis, value, n_active, gap, n_rounds,
               ", out of budget" if out_of_budget else ""))
    return SolverResult(weights / scale, value, result.n_iter,
                        not out_of_budget, history, dual_gap=gap,
                        work=lp.work)


def beta_max(problem):
    r"""The smallest :math:`\beta` at which :math:`w = 0` is optimal.

    At :math:`w = 0` every triplet has margin 1, so :math:`\alpha = 1/N`
    everywhere and the reduced cost of element :math:`k` is
    :math:`\beta + \bar g_k` (:math:`\bar g` the mean triplet vector):
    :math:`w = 0` is optimal iff :math:`\beta \ge \max_k -\bar g_k`. (As
    ``alpha_max`` of scikit-learn's ``lasso_path``.) In the units of
    ``problem``; 0 when no element lowers any loss.
    """
    mean = problem.gradient(np.full(problem.n_triplets,
                                    1.0 / problem.n_triplets))[0]
    return max(float(-mean.min()), 0.0)
