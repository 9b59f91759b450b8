r"""The exact optimum of SCML-Global and mt-SCML: working-set linear programs.

mt-SCML (Shi, Bellet and Sha, 2014) minimises, over :math:`W \in
\mathbb{R}_+^{T \times K}`,

.. math::

    P(W) = \sum_{t=1}^{T} \frac{1}{N_t} \sum_{c \in C_t}
           [1 + W_t \cdot g_c]_+ \;+\; \beta \sum_{k=1}^{K} \|W_{:,k}\|_2

(:class:`metric_learn_scml._problem.HingeProblem`; SCML-Global is
:math:`T = 1`, where it is a linear program). For :math:`T > 1` it is a
second-order cone program, and nothing in the core dependencies solves
those; this module solves every :math:`T` with linear programs (HiGHS) and,
for :math:`T > 1`, a small Newton system.

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
  (:func:`~metric_learn_scml._exact.folded_rows`), and one that the new point
  moves inside the margin becomes explicit;
- an atom of reduced cost :math:`\beta - \|u_k\| < 0` would lower the
  objective: add it (column generation);

and stops when neither exists, or when the duality gap is below its
tolerance. The LPs are solved afresh by scipy's ``linprog``. At :math:`T = 1` the loop ends
finitely, at a vertex optimal for the whole LP. At :math:`T > 1` the atoms
only approximate the cones and cutting planes converge linearly at the
end, so each round whose rows were guessed right is refined by Newton's
method on its KKT equations (:func:`metric_learn_scml._exact.refine`).

This goes beyond the paper, which stops at the stochastic RDA iterate; the
start (usually that iterate) only decides the first working set, never the
answer.

**The linear programs.** Each round's LP is over a working set of
triplets and atoms (:class:`Atoms`; with one task every atom is an
element, :math:`d = 1`), solved afresh by :class:`ScipyLP`
(:func:`dual_form_lp`).

**Newton refinement** (several tasks). Cutting planes converge linearly at the end (on
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
columns' directions join the atoms. (What it costs, and the route not
taken, FISTA on a smoothed hinge: ``benchmarks/results/NOTES.md``, "Design
measurements kept out of the code".)
"""

from dataclasses import replace

import numpy as np
from scipy.optimize import linprog

from ._problem import (HingeProblem, SolverResult, active_columns, penalty_for,
                       report, triplet_scale)

# An LP dual value a in [0, 1] this close to a bound is on it.
# Evidence: numerical (HiGHS' rounding).
ON_BOUND = 1e-9


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
# 0.05 and 0.4 did less. NOTES.md, "The exact phase's folded rows". The
# same columns are the support of mt-SCML's further RDA runs (_driver.
# support_rerun), where the value changes the model: it was taken as it
# stood, not tuned for that use.
# Evidence: speed only for the exact phase (any value gives the same
# certified optimum); NOTES.md, "mt-SCML's RDA run again on its support".
START_ATOMS = 0.2

# Under a budget, an LP is not started with fewer simplex iterations left
# than this: HiGHS' set-up and scipy's conversion of its block cost about
# as much as a few hundred iterations, and on 73 default fits (the breadth
# datasets and the budget benchmark's problems) no LP started with fewer
# than 120 iterations left finished, while those that ran out spent 0.1 to
# 1.6 s each.
# Evidence: NOTES.md, "LPs the budget cannot finish are not started".
MIN_LP_ITERATIONS = 100

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
        :func:`~metric_learn_scml._exact.working_set_lp`); a path passes one
        along, so that each solve keeps the last one's atoms.
    report_round : callable, default=None
        Called as ``report_round(round, primal, n_active, gap, n_rows,
        n_atoms)`` after each LP.
    budget : float, default=None
        A budget of work, counted as each LP's simplex iterations times
        the entries of its block (one pass of the dual simplex's pricing
        over the block per iteration): the LP that would exceed what is
        left is stopped at HiGHS' iteration limit (or not started, with
        fewer than ``MIN_LP_ITERATIONS`` left), and the best point found
        by then is returned, with its duality gap. Work, not
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
    largest = margins.max() if margins.size else 0.0
    if largest < -MARGIN_BAND:
        # Every triplet lies well inside the margin: the band holds none,
        # its LP's optimum is W = 0, and past it every triplet would look
        # wrong at once. Scaled by 1 / (1 - largest) the start keeps a zero
        # loss at a lower penalty, with its closest triplet on the margin.
        weights = weights / (1.0 - largest)
        margins = 1.0 + (margins - 1.0) / (1.0 - largest)
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
    active = large_columns(weights)
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
        if max_iter is not None and max_iter < MIN_LP_ITERATIONS:
            # (Its set-up alone would spend what is left.)
            out_of_budget = True
            break
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


def large_columns(weights):
    """The columns of ``weights`` (T, K) whose norm over the tasks exceeds
    ``START_ATOMS`` times the largest: those of an RDA iterate that the
    optimum is likely to keep."""
    norms = np.linalg.norm(weights, axis=0)
    return np.flatnonzero(norms > START_ATOMS * norms.max(initial=0.0))


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
    return float(beta_max_per_task(problem)[0])


def beta_max_per_task(problem):
    """:func:`beta_max` of each task (shape ``(T,)``), as a single-task
    model of its triplets would have it."""
    return np.maximum(-problem.gradient(problem.upper).min(axis=1), 0.0)


# Relative zero of the weights HiGHS returns (its feasibility tolerance is
# 1e-7): smaller basic values are rounding, not elements of the model.
# Evidence: numerical (HiGHS' rounding).
ZERO_WEIGHT = 1e-9

# Two atoms of a column whose directions agree to this (cosine) are one.
# Evidence: numerical (rounding only).
SAME_DIRECTION = 1.0 - 1e-12


class Atoms:
    """The atoms :math:`(k, d)` of a working set: elements and directions."""

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
        n_new = int(new.sum())
        self.columns = np.concatenate([self.columns, columns[new]])
        self.directions = np.hstack([self.directions, directions[:, new]])
        return n_new

    def block(self, problem, ids, atoms=slice(None)):
        """The rows of triplets ``ids`` on the ``atoms``: :math:`d_t g_{ck}`."""
        columns, directions = self.columns[atoms], self.directions[:, atoms]
        distinct, where = np.unique(columns, return_inverse=True)
        # (At one task every direction is 1.)
        block = problem.rows(ids, distinct)[:, where]
        block *= directions[problem.tasks[ids]]
        return block

    def aggregate(self, gradient):
        r"""Each task's row :math:`d_t V_{t,k}` on the atoms, ``T x A``
        (``gradient`` the :math:`V` of the rows folded in)."""
        return self.directions * gradient[:, self.columns]

    def weights(self, amounts, n_basis):
        r""":math:`W_{:,k} = \sum_j r_{kj} d_{kj}`, ``T x K``."""
        return np.array([np.bincount(self.columns, row * amounts, n_basis)
                         for row in self.directions])


class OutOfBudget(Exception):
    """HiGHS stopped an LP at its iteration limit (the exact phase's
    budget)."""


def dual_form_lp(block, row_sizes, scale, beta, max_iter=None):
    r"""The working-set LP of the exact phases, solved in its dual form.

    The primal is :math:`\min_{x \ge 0} \sum_c \xi_c / N_c + \beta
    \sum_j x_j` with :math:`\xi_c \ge 1 + (\text{block}\, x)_c` and
    :math:`\xi \ge 0`: ``block`` (``m x A``) holds the rows of the LP's
    triplets (and of the folded ones, :func:`folded_rows`) on the columns
    (elements, or mt-SCML's atoms), ``row_sizes`` the :math:`N_t` of each
    row's task (the size that gives a folded row its weight). HiGHS
    solves the dual (``A`` rows; ``m`` box-bounded columns :math:`a_c =
    N_t \alpha_c \in [0, 1]`): its basis is ``A x A`` where the primal
    form's is ``m x m`` (the slacks add a column per triplet), several
    times faster here since ``m`` is the larger. The rows' multipliers
    are the weights :math:`x`.

    In units of :math:`a` (in :math:`[0, 1]`) and multiplied by ``scale``
    (the mean :math:`N_t`) the LP's numbers are of order one, as HiGHS'
    absolute tolerances (1e-7) expect; with :math:`\alpha` itself (at
    most :math:`1/N`, 2e-5 on digits) they let reduced costs off by a sixth
    of beta pass. Presolve finds nothing to remove in these dense blocks,
    and costs most of the solve.

    ``max_iter``: HiGHS' limit on simplex iterations; raise
    :class:`OutOfBudget` when it is reached (the exact phase's budget,
    counted in iterations so that a fit does not depend on the machine's
    speed or load).

    Returns ``(x, a, n_iter)``.
    """
    m, n_columns = block.shape
    if m == 0:
        # No triplet in the LP (every one well inside the margin): the
        # restricted optimum is W = 0, and linprog takes no empty LP.
        return np.zeros(n_columns), np.zeros(0), 0
    row_weights = scale / row_sizes
    options = {"presolve": False}
    if max_iter is not None:
        options["maxiter"] = int(max_iter)
    result = linprog(
        -row_weights, A_ub=-(block * row_weights[:, None]).T,
        b_ub=np.full(n_columns, beta * scale), bounds=(0, 1),
        method="highs-ds", options=options)
    if result.status == 1 and max_iter is not None:
        raise OutOfBudget()
    if result.status != 0:
        raise RuntimeError("HiGHS could not solve the SCML working-set LP: %s"
                           % result.message)
    return (clean_weights(-result.ineqlin.marginals),
            np.clip(result.x, 0.0, 1.0), int(result.nit))


def folded_rows(problem, folded):
    r"""The triplets ``folded`` in, each task's as one aggregate row.

    Past the margin a triplet's hinge is linear, and the LP's other rows
    are few; the folded ones of task :math:`t` enter as one row, the hinge
    of their sum, :math:`[\sum_{c \in F_t} (1 + W_t \cdot g_c)/N_t]_+`: a
    lower bound on their hinges' sum (equal while all stay past the
    margin) that, unlike the sum itself, cannot fall below zero, so that
    the LP cannot trade them for unbounded weights. In the dual, the
    folded triplets of a task share one :math:`a \in [0, 1]`
    (:math:`\alpha_c = a / N_t`). Returns their :math:`V` at :math:`a = 1`
    (``T x K``) and their :math:`\sum_c 1/N_t` per task.
    """
    alpha = np.where(folded, problem.upper, 0.0)
    return (problem.gradient(alpha),
            np.bincount(problem.tasks, alpha, problem.n_tasks))


def triplet_alpha(problem, folded, share, row_ids, a):
    r""":math:`\alpha` of every triplet: the LP's rows ``row_ids`` at
    ``a``, the folded ones at their task's ``share`` (both LP values,
    clipped to [0, 1]), the rest 0."""
    alpha = np.where(folded, problem.upper * share[problem.tasks], 0.0)
    alpha[row_ids] = a / problem.sizes[row_ids]
    return alpha


def clean_weights(weights):
    """Row duals as weights: non-negative, with HiGHS' rounding set to 0."""
    weights = np.maximum(weights, 0.0)
    weights[weights <= ZERO_WEIGHT * max(weights.max(initial=0.0), 1.0)] = 0.0
    return weights


class ScipyLP:
    """The working-set LPs of one problem, each solved afresh by scipy's
    ``linprog`` (:func:`dual_form_lp`).

    It holds the working set's ``atoms`` (:class:`Atoms`; the driver adds
    to them) and its explicit ``rows``;
    :func:`~metric_learn_scml._exact.exact_weights` drives it.
    """

    def __init__(self, problem):
        self.problem = problem
        self.rows = np.zeros(problem.n_triplets, dtype=bool)
        self.atoms = Atoms(problem.n_tasks)
        # The last solve's simplex iterations, and the work of all its
        # solves as the exact phase's budget counts it (its driver adds).
        self.n_iter, self.work = 0, 0.0

    def solve(self, folded, beta, max_iter=None):
        """The restricted optimum: weights (T, K), the LP's row ids and
        the alpha of every triplet (:func:`folded_rows`); ``max_iter`` as
        in :func:`dual_form_lp`, and the simplex iterations taken in
        ``n_iter``."""
        problem = self.problem
        row_ids = np.flatnonzero(self.rows)
        gradient, mass = folded_rows(problem, folded)
        tasks = np.flatnonzero(mass > 0)
        sizes = np.concatenate([problem.sizes[row_ids], 1.0 / mass[tasks]])
        amounts, a, self.n_iter = dual_form_lp(
            np.vstack([self.atoms.block(problem, row_ids),
                       self.atoms.aggregate(gradient)[tasks]
                       / mass[tasks, None]]), sizes,
            problem.task_sizes.mean(), beta, max_iter)
        share = np.zeros(problem.n_tasks)
        share[tasks] = a[row_ids.shape[0]:]
        return (self.atoms.weights(amounts, problem.n_basis), row_ids,
                triplet_alpha(problem, folded, share, row_ids,
                              a[:row_ids.shape[0]]))


def working_set_lp(problem):
    """The working-set LP of ``problem`` (:class:`ScipyLP`)."""
    return ScipyLP(problem)


# Newton's system has (support + margin triplets) unknowns and is solved
# densely (about a second at 1,500 on one core); past this size the
# refinement is skipped and column generation alone goes on. Vowel's
# problems have 150 to 300.
# Evidence: speed only (this module's docstring, "Newton refinement").
MAX_NEWTON_SIZE = 1500


def newton(B, costs, groups, x, a, sizes, beta, max_steps=30):
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


def refine(problem, beta, weights, alpha, tol, max_passes=8):
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
        x, a, converged = newton(
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
