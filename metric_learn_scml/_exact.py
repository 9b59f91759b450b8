r"""The exact optimum of SCML-Global: a working-set linear program.

SCML-Global (Shi, Bellet and Sha, 2014, eq. (2)) with hinge loss and the
non-negative :math:`\ell_1` penalty is a linear program. With :math:`N`
triplets, their vectors :math:`g_c` (rows of :math:`G`, see
:mod:`metric_learn_scml._solvers`) and slacks :math:`\xi`,

.. math::

    \min_{w \ge 0,\ \xi \ge 0}\; \frac{1}{N} \sum_c \xi_c + \beta\, 1^T w
    \quad\text{s.t.}\quad \xi_c \ge 1 + g_c^T w,

and its dual is

.. math::

    \max_{\alpha}\; \sum_c \alpha_c
    \quad\text{s.t.}\quad 0 \le \alpha_c \le \tfrac1N,\quad
    \beta + (G^T \alpha)_k \ge 0 \ \ \forall k .

At the optimum only a few triplets have :math:`\alpha_c > 0` (those on or
inside the margin) and only a few elements have :math:`w_k > 0`: on wine,
60 of 5,340 triplets and 21 of 400 elements. The LP over all of them is
slow (breast cancer: 29 s with HiGHS' dual simplex) but its restriction to
a *working set* of rows and columns is small. :func:`exact_weights` solves
the restricted LP, then checks the whole problem:

- a triplet outside the row set with :math:`1 + g_c^T w > 0` is violated:
  add it (cutting planes);
- an element outside the column set with reduced cost
  :math:`\beta + (G^T \alpha)_k < 0` would lower the objective: add it
  (column generation);

and stops when neither exists (the LPs are solved afresh by scipy's
``linprog``, or, with the ``highs`` extra installed, in one persistent
HiGHS model warm-started from the last basis: :class:`HighsLP`). The
restricted solution is then optimal
for the whole LP: :math:`\alpha` (zero outside the row set) is dual
feasible and complementary. The certificate is the duality gap
:math:`P(w) - \sum_c \alpha_c` after scaling :math:`\alpha` into the dual
feasible set, computed on all triplets and all elements (as scikit-learn's
Lasso solvers certify theirs). The optimality conditions it certifies are
the KKT conditions: :math:`w_k = 0 \Rightarrow (G^T\alpha)_k \ge -\beta`,
:math:`w_k > 0 \Rightarrow (G^T\alpha)_k = -\beta`, with :math:`\alpha_c =
1/N` on violated triplets, 0 on satisfied ones and in between on the
margin.

This goes beyond the paper, which stops at the stochastic RDA iterate; the
start (usually that iterate) only decides the first working set, never the
answer.
"""

import os
import sys
import threading
from dataclasses import replace

import numpy as np
from scipy.linalg import eigh
from scipy.optimize import linprog
from scipy.sparse.linalg import LinearOperator, eigsh

from ._problem import (HingeProblem, SquaredDifferences, pair_coefficients,
                       triplet_scale)
from ._solvers import SolverResult, report

# Triplets whose margin 1 + g.w is within MARGIN_BAND of 0 at the start are
# the LP's rows (the others are folded in or left out, and checked after
# it); on breast cancer, 0.1 at the RDA iterate gave LPs of 900 rows and the
# same optimum as 0.5 in a third of the time.
MARGIN_BAND = 0.1

# Columns added per round at most (the most negative reduced costs first),
# so that one round cannot turn a small LP into the whole problem.
MAX_NEW_COLUMNS = 50

# The largest duality gap, relative to the objective, that the learners
# accept without a warning from either exact phase. The certificate scales
# the dual point by beta over its worst reduced cost, so it loses about
# HiGHS' feasibility tolerance divided by beta: 2.3e-6 on standardised iris
# at beta=1e-5, 1.4e-4 on 200 generated triplets at the default beta, 7e-3
# on the class docstring's triplets scaled by 10 (beta a hundred times
# smaller in the LP's units). Tighter HiGHS tolerances (1e-10) make it fail
# outright on wine and breast cancer at small beta.
EXACT_GAP_TOL = 1e-3

# Above this many features the steepest atoms come from ARPACK on a
# matrix-free product rather than a dense eigendecomposition.
DENSE_EIGEN_FEATURES = 500

# Relative zero of the weights HiGHS returns (its feasibility tolerance is
# 1e-7): smaller basic values are rounding, not elements of the model.
ZERO_WEIGHT = 1e-9


def _restricted_lp(rows, costs, bound, n_triplets):
    r"""Solve the LP on a block ``rows`` (``m x k``) of :math:`G`.

    ``costs`` (``k``) are the weights' linear costs, :math:`\beta` plus the
    gradient of the triplets folded in at :math:`\alpha = 1/N`, and
    ``bound`` an upper bound on every weight. HiGHS solves the dual form
    (``k`` rows; ``m`` box-bounded columns :math:`\alpha`, and ``k``
    columns :math:`\mu \ge 0` for the bounds): its basis is ``k x k``
    where the primal form's is ``m x m`` (the slacks add a column per
    triplet), several times faster here since ``m`` is the larger. The
    weights are the dual values of its rows.

    Returns ``(w, alpha)``: the weights of the block's columns and the
    duals of its rows (in ``[0, 1/N]``).
    """
    m, k = rows.shape
    # In units of alpha' = N alpha (in [0, 1]) the LP's numbers are of
    # order one, as HiGHS' absolute tolerances (1e-7) expect; with alpha
    # itself (at most 1/N, 2e-5 on digits) they let reduced costs off by
    # a sixth of beta pass. The multipliers of its rows are still w.
    # Presolve finds nothing to remove in these dense blocks, and costs
    # most of the solve.
    result = linprog(np.concatenate([-np.ones(m), np.full(k, bound)]),
                     A_ub=np.hstack([-rows.T, -np.eye(k)]),
                     b_ub=costs * n_triplets,
                     bounds=[(0, 1)] * m + [(0, None)] * k,
                     method="highs-ds", options={"presolve": False})
    if result.status != 0:
        raise RuntimeError("HiGHS could not solve the SCML working-set LP: %s"
                           % result.message)
    return (_clean_weights(-result.ineqlin.marginals),
            np.clip(result.x[:m], 0.0, 1.0) / n_triplets)


def _clean_weights(weights):
    """Row duals as weights: non-negative, with HiGHS' rounding set to 0."""
    weights = np.maximum(weights, 0.0)
    weights[weights <= ZERO_WEIGHT * max(weights.max(initial=0.0), 1.0)] = 0.0
    return weights


class ScipyLP:
    """The working-set LPs of one problem, each solved afresh by scipy's
    ``linprog`` (:func:`_restricted_lp`).

    Both this and :class:`HighsLP` offer :meth:`start` (a new ``beta``),
    :meth:`set_rows` (the explicit rows wanted; returns those the LP holds)
    and :meth:`solve`; :func:`exact_weights` drives either.
    """

    def __init__(self, problem):
        self.problem = problem
        self.rows = np.zeros(problem.n_triplets, dtype=bool)
        self.elements = np.zeros(0, dtype=np.intp)

    def start(self, weights):
        pass

    def set_rows(self, explicit):
        self.rows = explicit.copy()
        return self.rows

    def solve(self, columns, costs, bound):
        """The restricted optimum: weights (K,), row ids and their alpha."""
        row_ids = np.flatnonzero(self.rows)
        self.elements = np.flatnonzero(columns)
        restricted, alpha = _restricted_lp(
            self.problem.rows(row_ids, self.elements), costs[self.elements],
            bound, self.problem.n_triplets)
        weights = np.zeros(self.problem.n_basis)
        weights[self.elements] = restricted
        return weights, row_ids, alpha


def _import_highspy():
    """The ``highspy`` module, if installed and recent enough (1.13 added
    ``changeRowsBounds``), else None: scipy's ``linprog`` reaches the same
    optima."""
    try:
        import highspy
    except ImportError:
        return None
    if not hasattr(getattr(highspy, "Highs", None), "changeRowsBounds"):
        return None
    return highspy


_HIGHS_LOCK = threading.Lock()
_HIGHS_STARTED = False


def _silent_highs(highspy):
    """A ``highspy.Highs`` that prints nothing.

    HiGHS prints its banner to the process's standard output when the
    first instance is built, before any option can be set, so that first
    construction runs with file descriptor 1 pointed at ``os.devnull``.
    """
    global _HIGHS_STARTED
    with _HIGHS_LOCK:
        try:
            # No descriptor 1 (a detached process): nothing to silence.
            saved = None if _HIGHS_STARTED else os.dup(1)
        except OSError:
            saved = None
        if saved is None:
            highs = highspy.Highs()
        else:
            if sys.stdout is not None:
                sys.stdout.flush()
            try:
                with open(os.devnull, "w") as devnull:
                    os.dup2(devnull.fileno(), 1)
                    highs = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
        _HIGHS_STARTED = True
    # No "threads" option: HiGHS refuses to run a model whose thread count
    # differs from that of the process's scheduler, which another HiGHS
    # user may have started; the dual simplex used here is serial anyway.
    for option, value in (("output_flag", False), ("presolve", "off")):
        highs.setOptionValue(option, value)
    return highs


class HighsLP:
    r"""The working-set LPs of one problem in one persistent HiGHS model.

    The model is :func:`_restricted_lp`'s dual form: a column
    :math:`\alpha'_c \in [0, 1]` per explicit triplet, a row per element
    (:math:`-(G^T \alpha')_k - \mu_k \le N\, \text{cost}_k`) and its bound
    column :math:`\mu_k \ge 0`. Between solves the working set changes by
    additions and deletions that keep HiGHS' basis valid: rows (triplets)
    that leave are deleted only while non-basic (at 0 or 1; a basic one
    is on the margin and stays), elements only with zero weight and a
    basic slack, and new ones enter non-basic. Each solve then starts from
    the last optimal basis, within a ``beta`` and along a path; scipy's
    ``linprog`` cannot take a starting basis. Needs the ``highspy``
    package (the ``highs`` extra).
    """

    def __init__(self, problem, highspy):
        self.problem = problem
        self.highspy = highspy
        self.model = _silent_highs(highspy)
        # Per model column: its triplet's id, or -1 - k for element k's mu.
        self.columns = np.zeros(0, dtype=np.intp)
        self.elements = np.zeros(0, dtype=np.intp)   # per model row
        self.rows = np.zeros(problem.n_triplets, dtype=bool)
        self.bound = None

    def _basic(self, kind):
        """Which model ``kind`` ('row' or 'col') entries are basic; none
        without a valid basis (then no deletion can spoil one)."""
        basis = self.model.getBasis()
        statuses = getattr(basis, kind + "_status")
        if not basis.valid:
            return np.zeros(len(statuses), dtype=bool)
        basic = self.highspy.HighsBasisStatus.kBasic
        return np.array([status == basic for status in statuses], dtype=bool)

    def start(self, weights):
        """Delete the elements of zero ``weights`` whose slack is basic."""
        if not self.elements.shape[0]:
            return
        drop = self._basic("row") & (weights[self.elements] == 0)
        if drop.any():
            gone = self.elements[drop]
            indices = np.flatnonzero(drop).astype(np.int32)
            self.model.deleteRows(indices.shape[0], indices)
            self.elements = self.elements[~drop]
            self._delete_columns(np.isin(-1 - self.columns, gone)
                                 & (self.columns < 0))

    def _delete_columns(self, drop):
        if drop.any():
            indices = np.flatnonzero(drop).astype(np.int32)
            self.model.deleteCols(indices.shape[0], indices)
            self.columns = self.columns[~drop]

    def set_rows(self, explicit):
        triplet = self.columns >= 0
        if triplet.any():
            leave = triplet & ~self._basic("col")
            leave[triplet] &= ~explicit[self.columns[triplet]]
            self.rows[self.columns[leave]] = False
            self._delete_columns(leave)
        new = np.flatnonzero(explicit & ~self.rows)
        if new.shape[0]:
            n, k = new.shape[0], self.elements.shape[0]
            block = (-self.problem.rows(new, self.elements) if k
                     else np.zeros((n, 0)))
            self.model.addCols(n, -np.ones(n), np.zeros(n), np.ones(n), n * k,
                               (np.arange(n) * k).astype(np.int32),
                               np.tile(np.arange(k, dtype=np.int32), n),
                               block.ravel())
            self.columns = np.concatenate([self.columns, new])
            self.rows[new] = True
        return self.rows

    def _add_elements(self, new, bound):
        n = new.shape[0]
        first = self.columns.shape[0]
        self.model.addCols(n, np.full(n, bound), np.zeros(n), np.full(n, np.inf),
                           0, np.zeros(n, np.int32), np.zeros(0, np.int32),
                           np.zeros(0))
        self.columns = np.concatenate([self.columns, -1 - new])
        positions = np.flatnonzero(self.columns >= 0).astype(np.int32)
        m = positions.shape[0]
        block = (-self.problem.rows(self.columns[positions], new).T if m
                 else np.zeros((n, 0)))
        indices = np.hstack([np.tile(positions, (n, 1)),
                             (first + np.arange(n, dtype=np.int32))[:, None]])
        values = np.hstack([block, -np.ones((n, 1))])
        self.model.addRows(n, np.full(n, -np.inf), np.zeros(n), values.size,
                           (np.arange(n) * (m + 1)).astype(np.int32),
                           indices.ravel().astype(np.int32), values.ravel())
        self.elements = np.concatenate([self.elements, new])

    def solve(self, columns, costs, bound):
        """As :meth:`ScipyLP.solve`; the model keeps its elements."""
        new = np.flatnonzero(columns)
        new = new[~np.isin(new, self.elements)]
        if self.bound != bound:
            mus = np.flatnonzero(self.columns < 0).astype(np.int32)
            if mus.shape[0]:
                self.model.changeColsCost(mus.shape[0], mus,
                                          np.full(mus.shape[0], bound))
            self.bound = bound
        if new.shape[0]:
            self._add_elements(new, bound)
        k = self.elements.shape[0]
        n_triplets = self.problem.n_triplets
        self.model.changeRowsBounds(k, np.arange(k, dtype=np.int32),
                                    np.full(k, -np.inf),
                                    costs[self.elements] * n_triplets)
        optimal = self.highspy.HighsModelStatus.kOptimal
        self.model.run()
        status = self.model.getModelStatus()
        if status != optimal:
            # A start that the model's changes left ill-conditioned can
            # stall a warm-started solve: once more, from no basis.
            self.model.clearSolver()
            self.model.run()
            status = self.model.getModelStatus()
        if status != optimal:
            raise RuntimeError("HiGHS could not solve the SCML working-set "
                               "LP: %s" % self.model.modelStatusToString(status))
        solution = self.model.getSolution()
        weights = np.zeros(self.problem.n_basis)
        weights[self.elements] = _clean_weights(-np.asarray(solution.row_dual))
        triplet = self.columns >= 0
        alpha = np.clip(np.asarray(solution.col_value)[triplet], 0.0,
                        1.0) / n_triplets
        return weights, self.columns[triplet], alpha


def working_set_lp(problem):
    """:class:`HighsLP` when ``highspy`` is installed, else :class:`ScipyLP`."""
    highspy = _import_highspy()
    return ScipyLP(problem) if highspy is None else HighsLP(problem, highspy)


def duality_gap(problem, weights, beta, row_ids=None, alpha=None):
    r""":meth:`~metric_learn_scml._problem.HingeProblem.duality_gap` with the
    dual point given, and returned, as its support ``row_ids`` and values
    ``alpha`` (default: the hinge subgradient).

    Returns
    -------
    gap : float
    row_ids, alpha : ndarray
        The feasible dual point.
    """
    dense = None
    if alpha is not None:
        dense = np.zeros(problem.n_triplets)
        dense[row_ids] = alpha
    gap, _, dense = problem.duality_gap(weights, beta, dense)
    row_ids = np.flatnonzero(dense)
    return gap, row_ids, dense[row_ids]


def exact_weights(problem, beta, start, max_rounds=100, lp=None):
    r"""The optimum of the SCML-Global LP, from a working set around ``start``.

    Parameters
    ----------
    problem : HingeProblem
    beta : float
        In the units of ``problem``.
    start : ndarray of shape (K,)
        A point near the optimum (the RDA iterate, or the optimum at a
        nearby ``beta`` on a path); it only chooses the first working set.
    max_rounds : int, default=100
        Rounds of cutting planes and column generation. Rows are guessed
        anew from each round's margins, so nothing guarantees a finite end;
        in practice it takes 2 to 10 rounds, and what is returned after
        ``max_rounds`` still comes with its (then larger) duality gap.
    lp : ScipyLP or HighsLP, default=None
        The LP of ``problem`` to solve in (default:
        :func:`working_set_lp`); a path passes one along, so that each
        solve starts from the last one's basis.

    Returns
    -------
    weights : ndarray of shape (K,)
        The optimum (exact zeros off its support).
    n_rounds : int
    gap : float
        Its duality gap.
    row_ids, alpha : ndarray
        The dual point that certifies it (see :func:`duality_gap`).
    """
    n_triplets = problem.n_triplets
    lp = working_set_lp(problem) if lp is None else lp
    weights = np.asarray(start, dtype=float)
    lp.start(weights)
    margins = problem.margins(weights)
    # Three kinds of rows: explicit ones, near the margin; folded ones, well
    # past it, whose alpha is 1/N at the optimum, so that they enter as one
    # linear term (their gradient); the rest, well inside, with alpha 0.
    # Both guesses are checked after each LP.
    explicit = np.abs(margins) <= MARGIN_BAND
    full = np.full(n_triplets, 1.0 / n_triplets)
    in_columns = weights > 0
    _add_columns(in_columns, beta + problem.gradient(
        full[margins > 0], np.flatnonzero(margins > 0))[0])
    # No optimum has a weight above 1 / beta (beta sum(w) <= F(w) <= F(0)
    # = 1), so this bound cuts none; it keeps the LP bounded while folded
    # rows, taken as linear, would reward growing a weight without end.
    # Below beta = 1e-6 (at 0 there is no such bound) 1e6 in these units,
    # where the entries of g are of order one, is beyond any weight a unit
    # margin asks for; HiGHS failed on iris at beta = 0 with 1e9.
    bound = 1.0 / max(beta, 1e-6)
    for n_rounds in range(1, max_rounds + 1):
        # The LP may keep rows beyond those asked for (HighsLP keeps its
        # basic ones): every row it holds is explicit.
        in_lp = lp.set_rows(explicit)
        folded = (margins > MARGIN_BAND) & ~in_lp
        folded_ids = np.flatnonzero(folded)
        costs = beta + problem.gradient(full[folded_ids], folded_ids)[0]
        weights, row_ids, alpha = lp.solve(in_columns, costs, bound)
        in_columns[lp.elements] = True
        margins = problem.margins(weights)
        # A folded row now inside the margin, or a left-out one now past
        # it, was taken at the wrong alpha: it becomes explicit.
        wrong = np.where(folded, margins < 0, ~in_lp & (margins > 0))
        # The rows on the margin stay explicit (their alpha is strictly
        # between 0 and 1/N).
        on_margin = np.zeros(n_triplets, dtype=bool)
        on_margin[row_ids] = (alpha > 0) & (alpha < 1.0 / n_triplets)
        row_ids = np.concatenate([row_ids, folded_ids])
        alpha = np.concatenate([alpha, full[folded_ids]])
        added = _add_columns(in_columns,
                             beta + problem.gradient(alpha, row_ids)[0])
        if not wrong.any() and not added:
            return (weights, n_rounds) + duality_gap(problem, weights, beta,
                                                     row_ids, alpha)
        # New guesses from the new margins.
        explicit = (np.abs(margins) <= MARGIN_BAND) | on_margin | wrong
    return (weights, max_rounds) + duality_gap(problem, weights, beta)


def _add_columns(in_columns, reduced):
    """Add to ``in_columns`` the elements of negative ``reduced`` cost.

    At most :data:`MAX_NEW_COLUMNS`, the most negative first; an empty
    working set gets the least positive. Returns whether any was added.
    """
    candidates = np.flatnonzero((reduced < -1e-9 * np.abs(reduced).max())
                                & ~in_columns)
    if candidates.shape[0] > MAX_NEW_COLUMNS:
        candidates = candidates[np.argsort(reduced[candidates])[
            :MAX_NEW_COLUMNS]]
    in_columns[candidates] = True
    if not in_columns.any():
        in_columns[np.argmin(reduced)] = True
    return candidates.shape[0] > 0


def steepest_atoms(X, pairs, triplet_pairs, row_ids, alpha, n_atoms):
    r"""The unit atoms :math:`b` of most negative reduced cost, and their values.

    Over every rank-one element :math:`b b^T` (not only a basis), the
    reduced cost at a dual point :math:`\alpha` is
    :math:`\beta + b^T \nabla b` with the gradient of the loss in
    :math:`M`

    .. math:: \nabla = \sum_c \alpha_c \big[(x_i - x_j)(x_i - x_j)^T -
              (x_i - x_k)(x_i - x_k)^T\big]
              = \sum_p \kappa_p\, d_p d_p^T,

    summed over the distinct pairs :math:`p` with difference :math:`d_p`
    and coefficient :math:`\kappa_p` (the :math:`\alpha` of the triplets
    whose target pair it is, less those whose impostor pair it is). The
    most negative are the top eigenvectors of :math:`-\nabla`; only the
    pairs of triplets with :math:`\alpha_c > 0` enter, so the matrix is
    formed from a few thousand pairs at most (or applied matrix-free past
    :data:`DENSE_EIGEN_FEATURES` features).

    Returns
    -------
    atoms : ndarray of shape (n, n_features)
        Unit rows, the steepest first (``n = min(n_atoms, n_features)``).
    values : ndarray of shape (n,)
        Their eigenvalues :math:`\lambda` of :math:`-\nabla`: an atom
        lowers the objective when :math:`\lambda > \beta`.
    """
    n_features = X.shape[1]
    coefficients = pair_coefficients(triplet_pairs, row_ids, alpha,
                                     pairs.shape[0])
    used = np.flatnonzero(coefficients)
    n_atoms = min(n_atoms, n_features)
    if used.shape[0] == 0:
        return np.zeros((0, n_features)), np.zeros(0)
    deltas = X[pairs[used, 0]] - X[pairs[used, 1]]
    weighted = -coefficients[used, None] * deltas
    if n_features <= DENSE_EIGEN_FEATURES or n_atoms >= n_features - 1:
        values, vectors = eigh(deltas.T @ weighted, subset_by_index=[
            n_features - n_atoms, n_features - 1])
    else:
        operator = LinearOperator((n_features, n_features), dtype=float,
                                  matvec=lambda v: deltas.T @ (weighted @ v))
        values, vectors = eigsh(operator, k=n_atoms, which="LA")
    order = np.argsort(values)[::-1]
    return vectors[:, order].T, values[order]


def exact_phase(X, basis, differences, triplet_pairs, result, beta,
                max_new_elements=0, random_state=None, verbose=False,
                name="SCML"):
    r"""Take a single-task RDA result to the exact optimum, growing the basis.

    First the LP optimum on ``basis`` (:func:`exact_weights`). Then, while
    fewer than ``max_new_elements`` elements were added, the atoms of most
    negative reduced cost over *all* unit rank-one elements
    (:func:`steepest_atoms`, at most five a round) join the basis and the
    LP is solved again from the previous optimum: column generation on the
    convex problem :math:`\min_{M \succeq 0} L(M) + \beta\,
    \operatorname{tr} M`, of which the paper's problem on a fixed basis is
    a restriction (unit rows make :math:`\|w\|_1 = \operatorname{tr} M`).
    Each round can only lower the objective (the previous optimum stays
    feasible), and when no atom has an eigenvalue above :math:`\beta`
    the result is optimal over every PSD matrix, not only the basis' cone.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points, in the units of ``differences``.
    basis : ndarray of shape (K, n_features)
    differences : SquaredDifferences
        Of ``X`` on ``basis``.
    triplet_pairs : ndarray of shape (n_triplets, 2)
    result : SolverResult
        The RDA result (``weights`` of shape (1, K)); it chooses the first
        working set.
    beta : float
    max_new_elements : int, default=0
    random_state : RandomState
        For the sample that sets the units (:func:`triplet_scale`).
    verbose : bool
    name : str
        Prefix of the progress lines.

    Returns
    -------
    result : SolverResult
        The optimum, its objective and ``dual_gap`` (the caller warns when
        the gap exceeds ``EXACT_GAP_TOL`` times the objective); ``history``
        is RDA's with each optimum appended at RDA's last iteration. If
        the LP solver fails, RDA's result with its duality gap.
    basis : ndarray of shape (K + n_added, n_features)
        ``basis`` with the added elements last.
    """
    scale = triplet_scale(differences, triplet_pairs, random_state)
    history = list(result.history)
    weights = result.weights[0] * scale
    added = 0
    while True:
        problem = HingeProblem(differences, triplet_pairs, scale=scale)
        try:
            weights, n_rounds, gap, row_ids, alpha = exact_weights(
                problem, beta / scale, weights)
        except RuntimeError as error:
            if added:
                raise
            gap = duality_gap(problem, weights, beta / scale)[0]
            report(name, verbose, "exact phase failed (%s): RDA's point "
                   "kept, duality gap %.3g" % (error, gap))
            return replace(result, dual_gap=gap), basis
        value = problem.objective(weights, beta / scale)
        n_active = int(np.count_nonzero(weights))
        history.append((result.n_iter, value, n_active))
        report(name, verbose, "exact phase, %d elements: objective %.6f, %d active, "
                     "duality gap %.3g (%d rounds)" % (
                         basis.shape[0], value, n_active, gap, n_rounds))
        if added >= max_new_elements:
            break
        atoms, values = steepest_atoms(X, differences.pairs, triplet_pairs,
                                       row_ids, alpha,
                                       min(5, max_new_elements - added))
        atoms = atoms[values > beta * (1 + 1e-6)]
        if atoms.shape[0] == 0:
            report(name, verbose, "exact phase: optimal over every PSD metric")
            break
        basis = np.concatenate([basis, atoms])
        differences = SquaredDifferences(X @ basis.T, differences.pairs,
                                         pair_offsets=differences.pair_offsets)
        weights = np.concatenate([weights, np.zeros(atoms.shape[0])])
        added += atoms.shape[0]
    return SolverResult((weights / scale)[None, :], value, result.n_iter,
                        True, history, dual_gap=gap), basis


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


def exact_path(problem, betas, start=None, guesses=None, lp=None):
    """The optima for decreasing ``betas``, each warm-started from the last.

    Each solve is :func:`exact_weights` from the previous optimum, whose
    working set is close to the next one's: on a path the LPs only grow as
    the model does, with no stochastic phase. Where ``guesses`` (an
    approximate solution at each beta, such as RDA's) are given, each
    solve starts from whichever of the previous optimum and its guess has
    the lower objective at its beta: at large beta the previous optimum
    leaves most triplets near the margin (36,799 of 41,580 working rows on
    Segment at a third of ``beta_max``), where RDA's iterate at that beta
    gives an LP of 2,795.

    Parameters
    ----------
    problem : HingeProblem
    betas : array-like of shape (n_betas,)
        Decreasing, in the units of ``problem``.
    start : ndarray of shape (K,), default=None
        The start of the first solve (default: ``w = 0``).
    guesses : ndarray of shape (n_betas, K), default=None
        In the units of ``problem``.
    lp : ScipyLP or HighsLP, default=None
        The LP every solve shares (default: :func:`working_set_lp`).

    Returns
    -------
    weights : ndarray of shape (n_betas, K)
    gaps : ndarray of shape (n_betas,)
        The duality gap of each optimum.
    """
    weights = np.zeros(problem.n_basis) if start is None else start
    path, gaps = [], []
    lp = working_set_lp(problem) if lp is None else lp
    for i, beta in enumerate(betas):
        if guesses is not None and (problem.objective(guesses[i], beta)
                                    < problem.objective(weights, beta)):
            weights = guesses[i]
        weights, _, gap, _, _ = exact_weights(problem, beta, weights,
                                              lp=lp)
        path.append(weights)
        gaps.append(gap)
    return np.array(path), np.array(gaps)
