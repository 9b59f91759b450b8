r"""Newton refinement of the exact phase's LP points, for several tasks.

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

import numpy as np

from ._defaults import ON_BOUND


# Newton's system has (support + margin triplets) unknowns and is solved
# densely (about a second at 1,500 on one core); past this size the
# refinement is skipped and column generation alone goes on. Vowel's
# problems have 150 to 300.
# Evidence: speed only (the _newton module notes).
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
