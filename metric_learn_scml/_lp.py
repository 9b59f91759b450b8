r"""The linear programs of the exact phase: scipy's ``linprog`` over atoms.

The exact phase (:mod:`metric_learn_scml._exact`) solves an LP on a
working set of triplets and *atoms* :math:`(k, d)`: element :math:`k`
with a unit non-negative direction :math:`d \in \mathbb{R}^T` over the
tasks, whose column holds :math:`d_t\, g_{ck}` on the triplets :math:`c`
of task :math:`t` (:class:`Atoms`). With one task every atom is an
element, :math:`d = 1`. :class:`ScipyLP` solves each LP afresh
(:func:`dual_form_lp`). (A persistent HiGHS model warm-started from the
last basis was tried: it cut a 25.3 s exact phase to 24.0 s, and went.)
"""


import numpy as np
from scipy.optimize import linprog


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

    def remove(self, drop):
        """Remove the atoms at the positions where ``drop`` is True."""
        self.columns = self.columns[~drop]
        self.directions = self.directions[:, ~drop]

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
        if max_iter < 1:
            raise OutOfBudget()
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
