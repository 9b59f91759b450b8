r"""The driver: SCML's problem solved along a decreasing grid of beta.

One implementation serves every caller, as ``enet_path`` serves
scikit-learn's ``ElasticNet``, ``ElasticNetCV`` and ``lasso_path``:

- a fit is the path at ``[beta]``: RDA, then the exact phase
  (``solver='auto'``: under a budget of RDA's work, up to
  ``EXACT_MAX_TRIPLETS`` triplets and at a positive beta);
- :func:`~metric_learn_scml.scml_path` is the path along a grid with
  ``solver='exact'``;
- the choice of beta is the path along a grid with ``solver='rda'``, on
  each fold (:mod:`._selection`).

Along a grid, every beta's RDA run shares the same batches
(:func:`._solvers.rda`), and each exact phase starts from its RDA iterate,
or from the previous beta's point where that has the lower objective (as
``lasso_path`` warm-starts each alpha from the last).

The problem is a value, :class:`PairProblem`: the table of the triplets'
pairs along the basis, on the data at unit scale. Betas and weights are in
the user's units; the problem's are ``beta * unit**2`` and
``weights / unit**2``, and only this module converts between them.
"""

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ._defaults import (EXACT_GAP_TOL, EXACT_MAX_TRIPLETS, EXACT_MIN_WORK,
                        EXACT_WORK_RATIO)
from ._exact import exact_phase
from ._progress import FitLog
from ._problem import (HingeProblem, SquaredDifferences, pair_index,
                       scaled_differences)
from ._solvers import active_columns, rda, rda_state_for, rda_work

class PairProblem(NamedTuple):
    """SCML's problem at unit scale: the squared differences of the
    triplets' pairs along the basis, pairs grouped by task.

    ``triplet_pairs`` holds each triplet's (target pair, impostor pair),
    grouped by task as ``task_offsets`` says; ``unit`` is the factor that
    brought the data to unit scale; ``scale``, where given, the unit of the
    triplet vectors that RDA works in (None: RDA draws it).
    """

    differences: SquaredDifferences
    triplet_pairs: np.ndarray
    task_offsets: np.ndarray
    unit: float
    scale: float = None


def pair_problem(X, basis, triplets, task_offsets, unit=None):
    """The :class:`PairProblem` of index ``triplets`` into ``X`` on ``basis``.

    Pairs are grouped by task, so that each task's distances are computed
    under its own weights only. ``unit``: that of an earlier batch
    (``partial_fit``); None: the data's own.
    """
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, task_offsets)
    differences, unit = scaled_differences(X, basis, pairs, unit=unit,
                                           pair_offsets=pair_offsets)
    return PairProblem(differences, triplet_pairs, np.asarray(task_offsets),
                       unit)


def runs_exact_phase(solver, n_triplets, beta):
    """Whether a solve takes RDA's result to the exact optimum.

    ``'exact'``: always. ``'auto'``: at a positive beta, up to
    ``EXACT_MAX_TRIPLETS`` (the paper's model is the sparse optimum of its
    objective); not at ``beta=0``, where no bound on the weights keeps the
    linear program well scaled and its optimum cannot be certified.
    ``'rda'``: never.
    """
    if solver == "auto":
        return n_triplets <= EXACT_MAX_TRIPLETS and beta > 0
    return solver == "exact"


def solve_path(problem, betas, rda_parameters, solver="auto", state=None,
               random_state=None, verbose=False, name="SCML", log=None):
    """The weights at each of the decreasing ``betas`` (user's units).

    Parameters
    ----------
    problem : PairProblem
    betas : array-like of shape (n_betas,)
        Decreasing; a fit passes one.
    rda_parameters : dict
        Keyword arguments of :func:`._solvers.rda`: ``gamma`` and
        ``batch_size`` at least (the phase's budget and the state after it
        need them), and ``max_iter``, ``eval_every``, ``tol``, ... .
    solver : {'auto', 'exact', 'rda'}
        Whether each beta's RDA result is taken to the exact optimum
        (:func:`runs_exact_phase`); ``'auto'`` bounds the phase's work by
        ``max(EXACT_WORK_RATIO x RDA's, EXACT_MIN_WORK)``.
    state : RDAState, default=None
        RDA continues from it (``partial_fit``).
    random_state : RandomState
    verbose : bool
    name : str
        The learner's name, for progress lines and errors.
    log : FitLog, default=None
        Records the stages ("RDA at beta=...", "exact phase") and their
        facts (``fit_stages_``).

    Returns
    -------
    results : list of SolverResult
        One per beta: ``weights`` (T, K) in the user's units, with
        ``objective`` and ``dual_gap`` (NaN without an exact phase; the
        objective is the same number in every unit), ``n_iter``, ``history``, ``converged`` (RDA's rule;
        True after an exact phase, whose own shortfall is its
        ``dual_gap``), ``out_of_budget`` and ``state``, the RDA state a
        later ``partial_fit`` continues from (at the exact phase's point
        where it ran).

    Raises
    ------
    ValueError
        When RDA's state is no longer finite (a ``partial_fit`` batch far
        larger than the data the model was fitted on).
    """
    betas = np.asarray(betas, dtype=float)
    differences, triplet_pairs = problem.differences, problem.triplet_pairs
    task_offsets, square = problem.task_offsets, problem.unit ** 2
    task_sizes = np.diff(task_offsets)
    # (A path without a log keeps its stages in a log of its own.)
    log = FitLog(name, False) if log is None else log
    with log.stage("RDA at beta=%.3g" % betas[0] if betas.shape[0] == 1
                   else "RDA at %d betas" % betas.shape[0]) as facts:
        runs = rda(differences, triplet_pairs, task_offsets, betas * square,
                   scale=problem.scale, random_state=random_state,
                   verbose=verbose, name=name, state=state, **rda_parameters)
        works = [rda_work(run.n_iter, rda_parameters["batch_size"],
                          task_sizes, differences.n_features) for run in runs]
        facts.update(iterations=_one([run.n_iter for run in runs]),
                     active=_one([active_columns(run.weights)
                                  for run in runs]),
                     work=_one(works))
    for run in runs:
        if not (np.isfinite(run.state.mean_gradient).all()
                and np.isfinite(run.weights).all()):
            raise ValueError(
                "%s's solver state is no longer finite after this batch: its "
                "values are far larger than those the model was fitted on. "
                "Scale every batch alike (for instance with a StandardScaler "
                "fitted on the first)." % name)
    results, previous = [], None
    for beta, run, work in zip(betas * square, runs, works):
        if not runs_exact_phase(solver, triplet_pairs.shape[0], beta):
            results.append(run)
            continue
        start = run
        if previous is not None:
            objective = HingeProblem(differences, triplet_pairs,
                                     task_offsets).objective
            if objective(previous, beta) < objective(run.weights, beta):
                start = replace(run, weights=previous)
        with log.stage("exact phase") as facts:
            budget = (max(EXACT_WORK_RATIO * work, EXACT_MIN_WORK)
                      if solver == "auto" else None)
            result = exact_phase(differences, triplet_pairs, task_offsets,
                                 start, beta, random_state, verbose, name,
                                 budget=budget)
            relative_gap = result.dual_gap / max(result.objective, 1e-300)
            facts.update(active=active_columns(result.weights),
                         work=result.work, relative_duality_gap=relative_gap,
                         certified=bool(result.converged
                                        and relative_gap <= EXACT_GAP_TOL))
            if budget is not None:
                facts.update(budget=budget,
                             out_of_budget=not result.converged)
        result.state = rda_state_for(run.state, result.weights, beta,
                                     rda_parameters["gamma"])
        # The phase's own shortfall is its duality gap, not RDA's rule.
        result.out_of_budget, result.converged = not result.converged, True
        previous = result.weights
        results.append(result)
    for result in results:
        result.weights = result.weights * square
    return results


def _one(values):
    """A stage's fact: the value of a one-point path, every beta's on a grid."""
    return values[0] if len(values) == 1 else values
