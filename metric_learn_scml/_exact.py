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

from dataclasses import replace

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, eigsh

from ._defaults import DENSE_EIGEN_FEATURES, MARGIN_BAND, MAX_NEW_COLUMNS
from ._lp import working_set_lp
from ._problem import (HingeProblem, SquaredDifferences, pair_coefficients,
                       triplet_scale)
from ._solvers import SolverResult, report


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
