r"""The linear programs of the exact phases: scipy's ``linprog`` or one
persistent HiGHS model.

Both exact phases (:mod:`metric_learn_scml._exact`, one task, and
:mod:`metric_learn_scml._exact_group`, several) solve the same LP on a
working set of triplets and columns (:func:`dual_form_lp`). One task's
working sets grow and shrink by a few rows and columns between solves,
which :class:`HighsLP` (with the ``highs`` extra) takes as changes to one
model warm-started from its last basis; :class:`ScipyLP` solves each
afresh.
"""

import os
import sys
import threading

import numpy as np
from scipy.optimize import linprog

from ._defaults import ZERO_WEIGHT


def dual_form_lp(block, row_sizes, scale, costs, bound):
    r"""The working-set LP of the exact phases, solved in its dual form.

    The primal is :math:`\min_{x \ge 0} \sum_c \xi_c / N_c + \text{cost}
    \cdot x` with :math:`\xi_c \ge 1 + (\text{block}\, x)_c`,
    :math:`\xi \ge 0` and every :math:`x \le` ``bound``: ``block``
    (``m x A``) holds the rows of the explicit triplets on the columns
    (elements, or mt-SCML's atoms), ``row_sizes`` the :math:`N_t` of each
    row's task, ``costs`` (``A``) :math:`\beta` plus the gradient of the
    triplets folded in. HiGHS solves the dual (``A`` rows; ``m``
    box-bounded columns :math:`a_c = N_t \alpha_c \in [0, 1]`, and ``A``
    columns :math:`\mu \ge 0` for the bounds): its basis is ``A x A``
    where the primal form's is ``m x m`` (the slacks add a column per
    triplet), several times faster here since ``m`` is the larger. The
    columns' values are the multipliers of its rows.

    In units of :math:`a` (in :math:`[0, 1]`) and multiplied by ``scale``
    (the mean :math:`N_t`) the LP's numbers are of order one, as HiGHS'
    absolute tolerances (1e-7) expect; with :math:`\alpha` itself (at
    most :math:`1/N`, 2e-5 on digits) they let reduced costs off by a sixth
    of beta pass. Presolve finds nothing to remove in these dense blocks,
    and costs most of the solve.

    Returns ``(x, a)``.
    """
    m, n_columns = block.shape
    row_weights = scale / row_sizes
    result = linprog(
        np.concatenate([-row_weights, np.full(n_columns, bound)]),
        A_ub=np.hstack([-(block * row_weights[:, None]).T,
                        -np.eye(n_columns)]),
        b_ub=costs * scale,
        bounds=[(0, 1)] * m + [(0, None)] * n_columns,
        method="highs-ds", options={"presolve": False})
    if result.status != 0:
        raise RuntimeError("HiGHS could not solve the SCML working-set LP: %s"
                           % result.message)
    return (clean_weights(-result.ineqlin.marginals),
            np.clip(result.x[:m], 0.0, 1.0))


def clean_weights(weights):
    """Row duals as weights: non-negative, with HiGHS' rounding set to 0."""
    weights = np.maximum(weights, 0.0)
    weights[weights <= ZERO_WEIGHT * max(weights.max(initial=0.0), 1.0)] = 0.0
    return weights


class ScipyLP:
    """The working-set LPs of one problem, each solved afresh by scipy's
    ``linprog`` (:func:`dual_form_lp`).

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
        n_triplets = self.problem.n_triplets
        restricted, a = dual_form_lp(
            self.problem.rows(row_ids, self.elements),
            np.full(row_ids.shape[0], float(n_triplets)), n_triplets,
            costs[self.elements], bound)
        weights = np.zeros(self.problem.n_basis)
        weights[self.elements] = restricted
        return weights, row_ids, a / n_triplets


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

    The model is :func:`dual_form_lp`'s dual form: a column
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
        weights[self.elements] = clean_weights(-np.asarray(solution.row_dual))
        triplet = self.columns >= 0
        alpha = np.clip(np.asarray(solution.col_value)[triplet], 0.0,
                        1.0) / n_triplets
        return weights, self.columns[triplet], alpha


def working_set_lp(problem):
    """:class:`HighsLP` when ``highspy`` is installed, else :class:`ScipyLP`."""
    highspy = _import_highspy()
    return ScipyLP(problem) if highspy is None else HighsLP(problem, highspy)
