r"""The linear programs of the exact phase: scipy's ``linprog`` or one
persistent HiGHS model, over atoms.

The exact phase (:mod:`metric_learn_scml._exact`) solves an LP on a
working set of triplets and *atoms* :math:`(k, d)`: element :math:`k`
with a unit non-negative direction :math:`d \in \mathbb{R}^T` over the
tasks, whose column holds :math:`d_t\, g_{ck}` on the triplets :math:`c`
of task :math:`t` (:class:`Atoms`). With one task every atom is an
element, :math:`d = 1`. Between solves the working sets change by a few
rows and atoms, which :class:`HighsLP` (with the ``highs`` extra) takes as
changes to one model warm-started from its last basis; :class:`ScipyLP`
solves each afresh (:func:`dual_form_lp`).
"""

import os
import sys
import threading

import numpy as np
from scipy.optimize import linprog

from ._defaults import SAME_DIRECTION, ZERO_WEIGHT


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
        block = problem.rows(ids, distinct)[:, where]
        if problem.n_tasks > 1:
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


def dual_form_lp(block, row_sizes, scale, beta):
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

    Returns ``(x, a)``.
    """
    m, n_columns = block.shape
    if m == 0:
        # No triplet in the LP (every one well inside the margin): the
        # restricted optimum is W = 0, and linprog takes no empty LP.
        return np.zeros(n_columns), np.zeros(0)
    row_weights = scale / row_sizes
    result = linprog(
        -row_weights, A_ub=-(block * row_weights[:, None]).T,
        b_ub=np.full(n_columns, beta * scale), bounds=(0, 1),
        method="highs-ds", options={"presolve": False})
    if result.status != 0:
        raise RuntimeError("HiGHS could not solve the SCML working-set LP: %s"
                           % result.message)
    return clean_weights(-result.ineqlin.marginals), np.clip(result.x, 0.0, 1.0)


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

    Both this and :class:`HighsLP` hold the working set's ``atoms``
    (:class:`Atoms`; the driver adds to them) and offer :meth:`start` (a
    new ``beta``), :meth:`set_rows` (the explicit rows wanted; returns
    those the LP holds) and :meth:`solve`;
    :func:`~metric_learn_scml._exact.exact_weights` drives either.
    """

    def __init__(self, problem):
        self.problem = problem
        self.rows = np.zeros(problem.n_triplets, dtype=bool)
        self.atoms = Atoms(problem.n_tasks)

    def start(self, weights):
        pass

    def set_rows(self, explicit):
        self.rows = explicit.copy()
        return self.rows

    def solve(self, folded, beta):
        """The restricted optimum: weights (T, K), the LP's row ids and
        the alpha of every triplet (:func:`folded_rows`)."""
        problem = self.problem
        row_ids = np.flatnonzero(self.rows)
        gradient, mass = folded_rows(problem, folded)
        tasks = np.flatnonzero(mass > 0)
        sizes = np.concatenate([problem.sizes[row_ids], 1.0 / mass[tasks]])
        amounts, a = dual_form_lp(
            np.vstack([self.atoms.block(problem, row_ids),
                       self.atoms.aggregate(gradient)[tasks]
                       / mass[tasks, None]]), sizes,
            problem.task_sizes.mean(), beta)
        share = np.zeros(problem.n_tasks)
        share[tasks] = a[row_ids.shape[0]:]
        return (self.atoms.weights(amounts, problem.n_basis), row_ids,
                triplet_alpha(problem, folded, share, row_ids,
                              a[:row_ids.shape[0]]))


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

    The model is :func:`dual_form_lp`'s dual form: a column :math:`a_c =
    N_t \alpha_c \in [0, 1]` per explicit triplet (objective :math:`-\bar
    N / N_t`, :math:`\bar N` the mean task size), one per task for its
    folded rows (:func:`folded_rows`), and a row per atom
    (:math:`-\sum_c (\bar N / N_t)\, d_t g_{ck}\, a_c \le \bar N \beta`).
    Between solves the working set changes by additions and deletions
    that keep HiGHS' basis valid: rows (triplets) that leave are deleted
    only while non-basic (at 0 or 1; a basic one is on the margin and
    stays), atoms only when their element has zero weight and their slack
    is basic, and new ones enter non-basic. The folded rows' columns are
    added anew for each solve, and the last ones are fixed at 0 until they
    can be deleted (HiGHS changes a coefficient at a time, too slowly for
    a column over every atom). Each solve then starts from the last
    optimal basis, within a ``beta`` and along a path; scipy's ``linprog``
    cannot take a starting basis. Needs the ``highspy`` package (the
    ``highs`` extra).
    """

    def __init__(self, problem, highspy):
        self.problem = problem
        self.highspy = highspy
        self.model = _silent_highs(highspy)
        self.atoms = Atoms(problem.n_tasks)
        self.n_modelled = 0            # atoms[:n_modelled] are model rows
        # Per model column: its triplet's id; or -1 - t for the folded rows
        # of task t, and self.retired for earlier ones, fixed at 0.
        self.columns = np.zeros(0, dtype=np.intp)
        self.retired = -1 - problem.n_tasks
        self.rows = np.zeros(problem.n_triplets, dtype=bool)
        self.scale = problem.task_sizes.mean()

    def _weight(self, ids):
        """:math:`\bar N / N_t` of the triplets ``ids``."""
        return self.scale / self.problem.sizes[ids]

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
        """Delete the atoms of zero-weight elements whose slack is basic."""
        if not self.n_modelled:
            return
        drop = np.zeros(self.atoms.columns.shape[0], dtype=bool)
        drop[:self.n_modelled] = self._basic("row") & ~np.atleast_2d(
            weights).any(axis=0)[self.atoms.columns[:self.n_modelled]]
        if drop.any():
            indices = np.flatnonzero(drop).astype(np.int32)
            self.model.deleteRows(indices.shape[0], indices)
            self.atoms.remove(drop)
            self.n_modelled -= indices.shape[0]

    def _delete_columns(self, drop):
        if drop.any():
            indices = np.flatnonzero(drop).astype(np.int32)
            self.model.deleteCols(indices.shape[0], indices)
            self.columns = self.columns[~drop]

    def set_rows(self, explicit):
        triplet = self.columns >= 0
        leave = ~self._basic("col") & ((self.columns == self.retired)
                                       | triplet)
        leave[triplet] &= ~explicit[self.columns[triplet]]
        self.rows[self.columns[leave & triplet]] = False
        self._delete_columns(leave)
        new = np.flatnonzero(explicit & ~self.rows)
        if new.shape[0]:
            weight = self._weight(new)
            self._add_columns(-weight, np.ones(new.shape[0]),
                              self.atoms.block(self.problem, new,
                                               slice(0, self.n_modelled))
                              * weight[:, None])
            self.columns = np.concatenate([self.columns, new])
            self.rows[new] = True
        return self.rows

    def _add_columns(self, costs, upper, rows):
        """Columns of these ``costs`` and bounds ``[0, upper]``, whose
        entries on the atom rows are ``-rows`` (``n x n_modelled``)."""
        n, k = rows.shape
        self.model.addCols(n, costs, np.zeros(n), upper, n * k,
                           (np.arange(n) * k).astype(np.int32),
                           np.tile(np.arange(k, dtype=np.int32), n),
                           -rows.ravel())

    def _add_atoms(self):
        """Model rows for the atoms not yet modelled."""
        added = slice(self.n_modelled, self.atoms.columns.shape[0])
        n = added.stop - added.start
        positions = np.flatnonzero(self.columns >= 0).astype(np.int32)
        triplets, m = self.columns[positions], positions.shape[0]
        block = (-(self.atoms.block(self.problem, triplets, added)
                   * self._weight(triplets)[:, None]).T if m
                 else np.zeros((n, 0)))
        self.model.addRows(n, np.full(n, -np.inf), np.zeros(n), block.size,
                           (np.arange(n) * m).astype(np.int32),
                           np.tile(positions, n), block.ravel())
        self.n_modelled = self.atoms.columns.shape[0]

    def solve(self, folded, beta):
        """As :meth:`ScipyLP.solve`; the model keeps its atoms."""
        if self.atoms.columns.shape[0] > self.n_modelled:
            self._add_atoms()
        k, n_tasks = self.n_modelled, self.problem.n_tasks
        last = np.flatnonzero(self.columns < 0).astype(np.int32)
        if last.shape[0]:
            self.model.changeColsBounds(last.shape[0], last,
                                        np.zeros(last.shape[0]),
                                        np.zeros(last.shape[0]))
            self.columns[last] = self.retired
        gradient, mass = folded_rows(self.problem, folded)
        self._add_columns(-self.scale * mass, (mass > 0).astype(float),
                          self.scale * self.atoms.aggregate(gradient))
        self.columns = np.concatenate([self.columns, -1 - np.arange(n_tasks)])
        self.model.changeRowsBounds(k, np.arange(k, dtype=np.int32),
                                    np.full(k, -np.inf),
                                    np.full(k, beta * self.scale))
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
        values = np.clip(np.asarray(solution.col_value), 0.0, 1.0)
        triplet = self.columns >= 0
        row_ids = self.columns[triplet]
        return (self.atoms.weights(clean_weights(-np.asarray(solution.row_dual)),
                                   self.problem.n_basis), row_ids,
                triplet_alpha(self.problem, folded,
                              values[-n_tasks:], row_ids, values[triplet]))


def working_set_lp(problem):
    """:class:`HighsLP` when ``highspy`` is installed, else :class:`ScipyLP`."""
    highspy = _import_highspy()
    return ScipyLP(problem) if highspy is None else HighsLP(problem, highspy)
