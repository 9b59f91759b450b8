r"""The driver: SCML's problem solved along a decreasing grid of beta.

One implementation serves every caller, as ``enet_path`` serves
scikit-learn's ``ElasticNet``, ``ElasticNetCV`` and ``lasso_path``:

- a fit is the path at ``[beta]``: RDA, then the exact phase
  (``solver='auto'``: under a budget of RDA's work, up to
  ``EXACT_MAX_TRIPLETS`` triplets and at a positive beta);
- :func:`~metric_learn_scml.scml_path` is the path along a grid with
  ``solver='exact'``;
- the choice of beta is the path along a grid with ``solver='rda'``, on
  each fold, scored on the points held out (below).

Along a grid, every beta's RDA run shares the same batches
(:func:`._solvers.rda`), and each exact phase starts from its RDA iterate,
or from the previous beta's point where that has the lower objective (as
``lasso_path`` warm-starts each alpha from the last).

The problem is a value, :class:`PairProblem`: the table of the triplets'
pairs along the basis, on the data at unit scale. Betas and weights are in
the user's units; the problem's are ``beta * unit**2`` and
``weights / unit**2``, and only this module converts between them.

**What a fit says it does.** A fit passes one :class:`FitLog` through its stages (choosing beta, mining
triplets, building the basis, the solvers, a fallback). With ``verbose``
each stage prints a line when it starts and one when it ends, and a long
stage prints its own progress in between (the solvers' tables, the path
of the choice of beta), so that no stretch of a fit is silent. The same
records are kept on the estimator as ``fit_stages_``, for a quiet fit.

**Choosing** :math:`\beta` **from the data: a path scored on held-out
points.** The useful :math:`\beta` differs from one dataset to the next by orders of
magnitude in units of :math:`\beta_{\max}` (the smallest value that keeps no
element, :func:`~metric_learn_scml._exact.beta_max`): on the KEEL ``ring``
data the 3-NN error is best near :math:`0.1\,\beta_{\max}` (a few elements),
on ``sonar`` near :math:`10^{-3}\,\beta_{\max}`, and no single value suits
both. So :math:`\beta` is chosen as scikit-learn chooses a Lasso's
:math:`\alpha` (``LassoCV``): on a decreasing grid relative to
:math:`\beta_{\max}`, each value fitted by RDA (all of them at once, on
shared batches: the path of :func:`~metric_learn_scml._driver.solve_path`
with ``solver='rda'``), each
solution scored on points the fit did not see by the 3-nearest-neighbour
error under its metric, as the paper tunes :math:`\beta` on a validation
split. Two cheaper criteria with less variance were measured and rejected
(``benchmarks/results/NOTES.md``, "Deciding the defaults"): the held-out
mean hinge is not scale-free and prefers the denser models of small betas,
and the held-out triplet error, whose triplets are mined with Euclidean
neighbours, prefers metrics close to the Euclidean one; both keep noise
features that the 3-NN error drops.
:func:`~metric_learn_scml.scml_path` gives the exact optima along the same
grid, on the same driver (``solver='exact'``).
"""

import time
import warnings
from contextlib import contextmanager
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neighbors import KDTree
from sklearn.utils import check_random_state

from ._arrays import (centred, distinct_rows, fitted_knn, neighbour_votes,
                      plain, search_algorithm)
from ._defaults import (BETA_RATIO_HIGH, BETA_RATIO_LOW, ERROR_BAND,
                        EXACT_FLOOR_TRIPLETS, EXACT_MAX_TRIPLETS,
                        EXACT_MIN_WORK, EXACT_WORK_RATIO, FALLBACK_BETA,
                        MAX_SELECTION_POINTS, MAX_VALIDATION_POINTS,
                        MIN_SCORED_POINTS, MIN_SELECTION_POINTS, N_BETAS,
                        SELECTION_SHARE, SPARSE_CHOICE_MIN_POINTS,
                        VALIDATION_FRACTION)
from ._exact import beta_max, beta_max_per_task, exact_phase, large_columns
from ._problem import (HingeProblem, SquaredDifferences, active_columns,
                       pair_index, penalty_for, report, scaled_differences,
                       triplet_scale)
from ._solvers import components_from_weights, rda, rda_state_for, rda_work
from ._triplets import labels_basis, triplets_from_labels


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


def exact_budget(work, n_triplets):
    """The exact phase's budget under ``solver='auto'``: RDA's ``work``
    times ``EXACT_WORK_RATIO``, and ``EXACT_MIN_WORK`` at least on fewer
    than ``EXACT_FLOOR_TRIPLETS`` triplets, where that floor lets a small
    problem's phase run to its optimum."""
    floor = EXACT_MIN_WORK if n_triplets < EXACT_FLOOR_TRIPLETS else 0.0
    return max(EXACT_WORK_RATIO * work, floor)


# beta in a problem's units (PairProblem.unit) beyond which no element is
# kept: its points lie within [-1, 1] on every feature (unit_scale), so
# the squared difference along a unit element, hence every entry of a
# triplet vector and beta_max, is at most 4 D (1e100 leaves room for any D).
# Evidence: numerical (bounds, not measurements).
MAX_PROBLEM_BETA = 1e100


def solve_path(problem, betas, rda_parameters, solver="auto", state=None,
               random_state=None, verbose=False, name="SCML", log=None,
               rerun=False):
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
        (:func:`runs_exact_phase`); ``'auto'`` bounds the phase's work
        (:func:`exact_budget`).
    state : RDAState, default=None
        RDA continues from it (``partial_fit``).
    random_state : RandomState
    verbose : bool
    name : str
        The learner's name, for progress lines and errors.
    log : FitLog, default=None
        Records the stages ("RDA at beta=...", "exact phase") and their
        facts (``fit_stages_``).
    rerun : bool, default=False
        Where no exact phase runs and the penalty asks for it (mt-SCML's),
        RDA runs again on the support of its iterate
        (:func:`support_rerun`). A fit asks for it; ``partial_fit``, whose
        result is RDA's last iterate, does not.

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
    # Above MAX_PROBLEM_BETA every weight is zero either way; a larger
    # value would overflow RDA's threshold and the exact phase's bounds.
    problem_betas = np.minimum(betas * square, MAX_PROBLEM_BETA)
    task_sizes = np.diff(task_offsets)
    # (A path without a log keeps its stages in a log of its own.)
    log = FitLog(name, False) if log is None else log
    with log.stage("RDA at beta=%.3g" % betas[0] if betas.shape[0] == 1
                   else "RDA at %d betas" % betas.shape[0]) as facts:
        runs = rda(differences, triplet_pairs, task_offsets, problem_betas,
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
    results, previous, objective = [], None, None
    for beta, run, work in zip(problem_betas, runs, works):
        if not runs_exact_phase(solver, triplet_pairs.shape[0], beta):
            if rerun and penalty_for(task_sizes.shape[0]).reruns_on_support:
                run = support_rerun(problem, run, beta, rda_parameters,
                                    random_state, log,
                                    budget=EXACT_WORK_RATIO * work)
            results.append(run)
            continue
        start = run
        if previous is not None:
            # (Built once, where a second exact phase first needs it.)
            objective = objective or HingeProblem(
                differences, triplet_pairs, task_offsets).objective
            if objective(previous, beta) < objective(run.weights, beta):
                start = replace(run, weights=previous)
        with log.stage("exact phase") as facts:
            budget = (exact_budget(work, triplet_pairs.shape[0])
                      if solver == "auto" else None)
            result = exact_phase(differences, triplet_pairs, task_offsets,
                                 start, beta, random_state, verbose, name,
                                 budget=budget)
            relative_gap = result.dual_gap / max(result.objective, 1e-300)
            facts.update(active=active_columns(result.weights),
                         work=result.work, relative_duality_gap=relative_gap,
                         certified=result.converged and result.certified)
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


def support_rerun(problem, run, beta, rda_parameters, random_state, log,
                  budget=np.inf):
    r"""RDA run again from zero on the elements of largest weight, while
    that lowers the objective and narrows the support, within ``budget``.

    RDA's iterate is :math:`W_t = \text{prox}(-\bar G_t)`, the average of
    every batch gradient since :math:`W = 0`: the early ones, where every
    element lowers the loss, keep the iterate far denser than the optimum
    (mt-SCML on satimage in 3 tasks: about 900 elements, where the
    exact optimum keeps under 200). A run on the columns that carry the
    weight (:func:`~metric_learn_scml._exact.large_columns`) averages only
    gradients taken there. Its point, zero elsewhere, is kept where its
    objective on the whole problem is at most the last one's, so the
    objective never rises; the runs go on from each point kept until one
    does not lower the objective or the columns stop narrowing (so at
    most K runs). Where the first run's columns are every column, it
    would be RDA's own run on other batches, and none is made. The runs'
    work (:func:`~metric_learn_scml._solvers.rda_work`) stays within
    ``budget``: each may take as many iterations as the rest of it pays
    for, and none starts that could not take ``eval_every`` (the solve
    gives RDA's work at the same beta times ``EXACT_WORK_RATIO``, as it
    gives the exact phase). Beyond the paper (which stops at RDA's
    iterate); ``benchmarks/results/NOTES.md``, "mt-SCML's RDA run again
    on its support".

    ``beta`` is in the units of ``problem``; ``run`` is RDA's
    :class:`~metric_learn_scml._problem.SolverResult` (``weights`` T x K).
    Returns the last point kept: with every run's iterations and history,
    and an RDA state at that point
    (:func:`~metric_learn_scml._solvers.rda_state_for`). ``log`` records a
    stage "RDA on its support" per run.
    """
    differences, task_offsets = problem.differences, problem.task_offsets
    whole = HingeProblem(differences, problem.triplet_pairs, task_offsets)
    before = whole.objective(run.weights, beta)
    kept = large_columns(run.weights)
    if kept.shape[0] == differences.n_features:
        return run
    step_work = rda_work(1, rda_parameters["batch_size"],
                         np.diff(task_offsets), 1)
    # (None where RDA kept no element: no support to run on.)
    while kept.shape[0]:
        max_iter = min(rda_parameters.get("max_iter", np.inf),
                       budget // (step_work * kept.shape[0]))
        if max_iter < rda_parameters.get("eval_every", 1):
            break
        with log.stage("RDA on its support") as facts:
            again = rda(differences.columns(kept), problem.triplet_pairs,
                        task_offsets, beta, random_state=random_state,
                        **dict(rda_parameters, max_iter=int(max_iter)))
            budget -= again.n_iter * step_work * kept.shape[0]
            weights = np.zeros_like(run.weights)
            weights[:, kept] = again.weights
            after = whole.objective(weights, beta)
            facts.update(elements=kept.shape[0], iterations=again.n_iter,
                         active=active_columns(weights), objective=after,
                         objective_before=before, kept=bool(after <= before))
        if not after <= before:
            break
        history = [*run.history, *((run.n_iter + i, value, n_active)
                                   for i, value, n_active in again.history)]
        run = replace(again, weights=weights, objective=after,
                      n_iter=run.n_iter + again.n_iter, history=history,
                      state=rda_state_for(run.state, weights, beta,
                                          rda_parameters["gamma"]))
        before, narrower = after, large_columns(weights)
        kept = narrower if narrower.shape[0] < kept.shape[0] else kept[:0]
    return run


def _one(values):
    """A stage's fact: the value of a one-point path, every beta's on a grid."""
    return values[0] if len(values) == 1 else values


def describe(value):
    """A short text of a recorded value: numbers to 3 digits, arrays as lists."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return "%.3g" % value
    if isinstance(value, np.ndarray):
        return "[%s]" % " ".join(describe(item) for item in value.tolist())
    return str(value)


class FitLog:
    """The stages of one fit.

    Parameters
    ----------
    name : str
        The learner's name, which prefixes every printed line.
    verbose : bool

    Attributes
    ----------
    stages : list of dict
        One per stage, in order: ``stage`` (its name), ``seconds`` and the
        facts it found (counts, the values tried, the chosen beta, ...).
    """

    def __init__(self, name, verbose):
        self.name = name
        self.verbose = verbose
        self.stages = []

    def say(self, message):
        """Print a line (with ``verbose``)."""
        report(self.name, self.verbose, message)

    def _record(self, stage, seconds, facts):
        # numpy scalars as Python ones, so that the record serialises as is
        facts = {key: plain(value) for key, value in facts.items()}
        self.stages.append({"stage": stage, "seconds": seconds, **facts})
        found = "; ".join("%s %s" % (key.replace("_", " "), describe(value))
                          for key, value in facts.items())
        took = "(%.2f s)" % seconds if seconds else ""
        self.say(("%s: %s %s" % (stage, found, took)).rstrip())

    @contextmanager
    def stage(self, stage):
        """Time a stage; the caller fills the yielded dict with its facts."""
        self.say("%s ..." % stage)
        facts = {}
        start = time.perf_counter()
        yield facts
        self._record(stage, time.perf_counter() - start, facts)

    def ticker(self, what, every=1.0):
        """A ``progress(done, total)`` function that says how far ``what``
        has gone, at most once every ``every`` seconds."""
        last = [time.perf_counter()]

        def progress(done, total):
            now = time.perf_counter()
            if now - last[0] >= every and done < total:
                last[0] = now
                self.say("  %s: %d of %d" % (what, done, total))
        return progress

    def note(self, stage, **facts):
        """A finding that takes no time of its own (a fallback and its reason)."""
        self._record(stage, 0.0, facts)


# ... but at least this many per class: a stratified 1,000 of 1,000 classes
# left one point per class, which gives no triplet (and more classes than
# points could not be drawn at all).
MIN_SELECTION_POINTS_PER_CLASS = 5

# Neighbours of the held-out score (the paper evaluates with 3-NN).
# Evidence: the paper's protocol.
SCORE_NEIGHBOURS = 3

# scikit-learn's KNeighborsClassifier searches a k-d tree of this leaf size
# up to this many features (algorithm='auto', leaf_size=30): the held-out
# score searches the same tree, so that tied neighbours are the same.
# Evidence: scikit-learn's neighbors/_base.py.
SKLEARN_TREE_MAX_FEATURES = 15
SKLEARN_LEAF_SIZE = 30

# The paths that only score betas on held-out points stop at this many
# times the learner's tol: the ranking of the betas needs no more, and the
# choice of beta is most of a small fit's time. Median default fit 1.15 ->
# 0.92 s over the breadth table and 0.61 -> 0.51 s over its draws of 100
# and 300 points, with no significant change of error in any group.
# Evidence: NOTES.md, "A looser tolerance on the scoring paths".
SCORING_TOL_RATIO = 10.0

# Two points are one under a map when their images agree to this many
# significant digits of the images' largest coordinate; they are distinct
# points when they differ by more than DISTINCT_RATIO of the data's largest
# coordinate (far above rounding: rows 1e-12 apart, standardised, are one).
# Evidence: numerical (rounding only; merges_points).
MERGE_DIGITS = 9
DISTINCT_RATIO = 1e-6


class LabelledPath:
    r"""SCML-Global's problem of labelled points on a basis, for paths.

    Builds the triplets (``k_genuine`` x ``k_impostor`` per point) and
    their :class:`~metric_learn_scml._driver.PairProblem`, ``problem``
    (the table of squared differences at unit scale, and RDA's unit of
    the triplet vectors, drawn here). ``basis`` is an array, or a function
    of the triplets that builds it (``'triplet_diffs'``,
    :func:`path_basis`); ``self.basis`` is the array.
    """

    def __init__(self, X, y, basis, k_genuine, k_impostor, random_state):
        triplets = triplets_from_labels(X, y, k_genuine, k_impostor,
                                        random_state=random_state)
        if callable(basis):
            basis = basis(triplets)
        problem = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
        self.triplet_pairs = problem.triplet_pairs
        self.problem = problem._replace(scale=triplet_scale(
            problem.differences, problem.triplet_pairs, random_state))
        self.basis = basis

    def beta_max(self):
        """The smallest beta (user's units) that keeps no element."""
        unit, scale = self.problem.unit, self.problem.scale
        # (user's beta = problem's / factor)
        return beta_max(HingeProblem(self.problem.differences,
                                     self.triplet_pairs, scale=scale)
                        ) / (unit ** 2 / scale)

    def solve(self, betas, rda_parameters, solver, random_state):
        """:func:`~metric_learn_scml._driver.solve_path` along ``betas``:
        the weights (user's units, one row per beta) and each one's
        :class:`~metric_learn_scml._problem.SolverResult`."""
        results = solve_path(self.problem, betas, rda_parameters, solver,
                             random_state=random_state)
        return np.array([result.weights[0] for result in results]), results


def beta_grid(largest, n_betas=N_BETAS, high=BETA_RATIO_HIGH,
              low=BETA_RATIO_LOW):
    """``n_betas`` decreasing values from ``high`` to ``low`` times ``largest``."""
    return largest * np.logspace(np.log10(high), np.log10(low), n_betas)


def held_out_scores(weights, basis, X_fit, y_fit, X_held, y_held):
    r"""How each row of ``weights`` does on held-out points: the 3-NN
    error of the held-out points among the fit points under the metric
    :math:`\sum_k w_k b_k b_k^T`.

    Returns
    -------
    errors : ndarray of shape (n_rows,)
    mistakes : ndarray of shape (n_rows, n_held), bool
        Which held-out points each row's 3-NN classifier gets wrong (the
        mean of a row is its error): paired comparisons of two betas.
    """
    mistakes = np.empty((weights.shape[0], X_held.shape[0]), dtype=bool)
    for row, w in enumerate(weights):
        components = components_from_weights(w, basis)
        mistakes[row] = held_out_mistakes(X_fit @ components.T, y_fit,
                                          X_held @ components.T, y_held)
    return mistakes.mean(axis=1), mistakes


class PathSettings(NamedTuple):
    """How a supervised learner builds and solves a path: its parameters, read once.

    ``basis`` is ``'lda'``, ``'triplet_diffs'`` or a checked array;
    ``n_basis`` the generated basis' size; ``rda`` the keyword arguments of
    :func:`~metric_learn_scml._solvers.rda` (``gamma``,
    ``batch_size``, ``max_iter``, ``eval_every``, ``tol``,
    ``n_iter_no_change``).
    """

    basis: object
    n_basis: int
    k_genuine: int
    k_impostor: object
    rda: dict


def path_basis(settings, X, y, random_state):
    """The basis of a path on ``(X, y)``: the array, the ``'lda'`` basis, or
    for ``'triplet_diffs'`` a function of the triplets that builds it
    (:class:`LabelledPath` mines them first)."""
    if not isinstance(settings.basis, str):
        return settings.basis

    def build(triplets=None):
        return labels_basis(settings.basis, X, y, slice(None), triplets,
                            settings.n_basis, random_state=random_state)
    return build if settings.basis == "triplet_diffs" else build()


def silent(message):
    """A ``progress`` that hears nothing."""


def path_scores(X, y, fit, held, settings, betas=None, random_state=None,
                progress=silent):
    """Fit ``X[fit]`` along ``betas`` by RDA and score on ``X[held]``.

    ``betas`` defaults to :func:`beta_grid` relative to the ``beta_max`` of
    the fit part. ``progress``, a function of a message, hears when the
    path is fitted. ``X`` far from the origin must come centred
    (:func:`~metric_learn_scml._arrays.centred`, as :func:`select_beta`
    centres it): the held-out neighbours are searched on it, and each
    caller centres its points once, not once a fold.

    Returns
    -------
    (betas, errors, mistakes, n_active) or None
        The held-out 3-NN errors at each beta and the points each beta
        misclassifies (:func:`held_out_scores`), and the elements each
        beta keeps; None where the fit part gives no basis element or no
        beta keeps one.
    """
    rng = check_random_state(random_state)
    basis = path_basis(settings, X[fit], y[fit], rng)
    if not callable(basis) and basis.shape[0] == 0:
        return None
    path = LabelledPath(X[fit], y[fit], basis, settings.k_genuine,
                        settings.k_impostor, rng)
    if path.basis.shape[0] == 0:
        return None
    if betas is None:
        largest = path.beta_max()
        if not largest > 0:
            return None
        betas = beta_grid(largest)
    weights, _ = path.solve(
        betas, dict(settings.rda, tol=SCORING_TOL_RATIO * settings.rda["tol"]),
        "rda", rng)
    progress("    %d betas fitted on %d triplets; scoring ..." % (
        len(betas), path.triplet_pairs.shape[0]))
    return (np.asarray(betas),) + held_out_scores(
        weights, path.basis, X[fit], y[fit], X[held], y[held]) + (
        np.count_nonzero(weights, axis=1),)


def best_beta(betas, mistakes, sparsest=False):
    """The smallest beta (the densest model) whose held-out 3-NN error is
    within ``ERROR_BAND`` paired standard errors of the least; with
    ``sparsest``, the largest such beta.

    ``mistakes`` (``n_betas x n_scored``, :func:`held_out_scores`) says
    which held-out points each beta's metric misclassifies. The least
    error is biased low (the best of several noisy estimates), and a
    sparser model within its noise is a choice made on noise: on sets of a
    few hundred points the former rule (the least triplet error within
    half a binomial standard error, then the largest beta) jumped to
    models of 2 to 7 elements, and fell behind the Euclidean metric.
    So a beta is as good as the best when their difference, point by
    point, is within ``ERROR_BAND`` standard errors of that difference,
    and on such data the densest of those is kept: sparsity comes from the
    optimum at that beta, not from a larger beta inside the noise
    (``benchmarks/results/NOTES.md``, "Small data: a choice of beta that
    uses every point"). ``sparsest`` is the one-standard-error rule of
    CART and glmnet: :func:`select_beta` takes it from
    ``SPARSE_CHOICE_MIN_POINTS`` points, where its part is a fifth of the
    points or fewer, whose best multiple of beta_max is larger than the
    part's.
    """
    mistakes = np.asarray(mistakes, dtype=float)
    errors = mistakes.mean(axis=1)
    best = int(np.argmin(errors))
    spread = ((mistakes - mistakes[best]).std(axis=1)
              / np.sqrt(max(mistakes.shape[1], 1)))
    near = np.flatnonzero(errors <= errors[best] + ERROR_BAND * spread + 1e-12)
    # betas decrease along the grid: the last near one is the smallest
    return float(betas[near[0] if sparsest else near[-1]])


class BetaSelection(NamedTuple):
    r"""What :func:`select_beta` chose, and the record it chose from.

    ``betas`` and ``errors`` are the grid and the held-out 3-NN errors
    at each value (empty where nothing could be held out); ``euclidean``
    whether the Euclidean metric did better on the held-out points than
    every beta (:func:`euclidean_wins`), with its error ``euclidean_error``
    (NaN where it was not scored); ``n_scored`` the distinct points
    scored; ``reason`` why no selection ran (None where it did);
    ``mistakes`` the held-out points each beta misclassifies
    (``n_betas x n_scored``, :func:`best_beta`); ``beta_max`` the
    :math:`\beta_{\max}` of the points the grid was drawn for, where
    the grid is relative to it (None: the values hold as they are; see
    :func:`rescaled`); ``sparsest`` whether the sparsest value within the
    band was kept (:func:`best_beta`).
    """

    beta: float
    betas: np.ndarray
    errors: np.ndarray
    euclidean: bool
    euclidean_error: float
    n_scored: int
    reason: object = None
    mistakes: np.ndarray = None
    beta_max: float = None
    sparsest: bool = False

    def rescaled(self, beta_max):
        r"""The selection with its grid and choice as the same multiples of
        ``beta_max``: that of the problem the chosen beta is applied to.

        The grid is drawn and scored on part of the points, and a
        problem's :math:`\beta_{\max}` falls as its points grow
        denser: the nearer a point's targets and impostors, the smaller
        its triplet vectors. Beyond a few thousand points the same value
        keeps far fewer elements on all the points than on the part
        (85,714 generated points of 6 features: :math:`\beta_{\max}`
        0.152 on all the points, 0.424 on a part of 1,000; 2 elements
        and 29 % 3-NN error, where the same multiple keeps 89 and errs
        6.3 %, the Euclidean metric 9.2 %). So the choice is a multiple of
        :math:`\beta_{\max}`, as scikit-learn's ``lasso_path`` grids are.
        """
        if self.beta_max is None or not self.beta_max > 0 or not beta_max > 0:
            return self
        ratio = beta_max / self.beta_max
        return self._replace(beta=self.beta * ratio, betas=self.betas * ratio,
                             beta_max=beta_max)

    def for_problem(self, problem):
        r""":meth:`rescaled` to the :math:`\beta_{\max}` of a
        :class:`PairProblem` (several tasks: the norm of theirs, as
        :func:`pool_selections` pools them)."""
        return self.rescaled(safe_norm(task_beta_max(problem)))


def safe_norm(values):
    """The Euclidean norm of non-negative ``values``, also where squares
    overflow or underflow (beyond 1e154 and below 1e-154: the betas of
    features of 1e77 or 1e-77)."""
    top = values.max(initial=0.0)
    if top == 0 or 1e-150 < top < 1e150:
        return float(np.linalg.norm(values))
    return float(top * np.linalg.norm(values / top))


def task_beta_max(problem):
    r"""The :math:`\beta_{\max}` of each task of a :class:`PairProblem`
    (user's units, shape ``(T,)``), as a single-task model of its
    triplets would have it (:func:`~metric_learn_scml._exact.beta_max`)."""
    return beta_max_per_task(HingeProblem(
        problem.differences, problem.triplet_pairs,
        problem.task_offsets)) / problem.unit ** 2


def select_beta(X, y, settings, random_state=None,
                min_fit_points=MIN_SELECTION_POINTS,
                max_scored_points=MAX_VALIDATION_POINTS,
                min_scored_points=MIN_SCORED_POINTS, progress=silent):
    """``beta='auto'``: the beta whose model does best on held-out points.

    A stratified ``VALIDATION_FRACTION`` of the points is held out; the
    rest (a stratified ``SELECTION_SHARE`` of all the points at most,
    between ``min_fit_points`` and ``MAX_SELECTION_POINTS``, but
    ``MIN_SELECTION_POINTS_PER_CLASS`` per class at least) is fitted
    along the grid of :func:`beta_grid` (relative to its own ``beta_max``)
    by RDA, and each solution is scored on the held-out points (a
    stratified ``max_scored_points`` of them at most; :func:`path_scores`).
    Until ``min_scored_points`` points are scored, the next fold of the
    same stratified k-fold (k = 1 / ``VALIDATION_FRACTION``) is held out
    in turn, on the first fold's grid, so that small data are scored on
    every point (:func:`cuts`); above ``k * min_scored_points`` points one
    cut is scored. :func:`best_beta` chooses from the pooled per-point
    mistakes. The Euclidean metric is preferred where its held-out 3-NN
    error is lower than every beta's (:func:`euclidean_wins`). Classes of
    one point are left out of the choice; where a stratified fifth cannot
    hold a point of every class, the folds hold out at most a point of
    each class in turn, and classes of fewer than three points are left
    out too. Where fewer than two classes are left, ``FALLBACK_BETA`` is
    returned with a ``reason`` and no record; where the part fitted keeps
    no element at any beta (none lowers its triplets' loss), the Euclidean
    metric is preferred, with a ``reason``: a metric learned on all the
    points at ``FALLBACK_BETA`` would have no held-out check (200 generated
    classes: 3-NN accuracy 0.027 against the Euclidean 0.138).

    A pure function of the data, the ``settings`` (:class:`PathSettings`)
    and ``random_state``; it returns a :class:`BetaSelection`.
    ``progress``, a function of a message, hears of each step.
    """
    rng = check_random_state(random_state)
    sparsest = X.shape[0] >= SPARSE_CHOICE_MIN_POINTS
    # Far from the origin, every distance below (the held-out 3-NN errors
    # of the metrics and of the data's own coordinates) loses the offset's
    # digits; the choice is the same for the data moved to their mean.
    X = centred(X)
    given = np.unique(y, return_counts=True)[1]
    # A class of one point can be neither held out nor a target: the
    # choice rests on the other classes (the fit keeps every point).
    X, y, classes, counts = classes_of_at_least(X, y, 2)
    # A stratified fifth holds a point of every class and leaves two to fit;
    # with fewer points a class than that needs, the folds of a stratified
    # k-fold hold out at most one point of each class in turn, and leave
    # two of each to fit where every class has three (the choice rests on
    # those).
    n_held, fifth = held_fifth(y.shape[0], classes.shape[0])
    if not fifth:
        X, y, classes, counts = classes_of_at_least(X, y, 3)
        n_held, fifth = held_fifth(y.shape[0], classes.shape[0])
    fewest = 2 if fifth else 3
    if counts.min() < fewest:
        return no_selection(
            "could not hold out points of every class (%d of %d classes "
            "have %s points or more, among %d points: each class needs two "
            "points left to fit and one held out%s)" % (
                np.count_nonzero(given >= fewest), given.shape[0],
                "two" if fifth else "three", given.sum(),
                "" if fifth else ", and a fifth of the points cannot hold "
                "one of every class"))
    n_fit_points = max(min_fit_points,
                       min(int(SELECTION_SHARE * y.shape[0]),
                           MAX_SELECTION_POINTS),
                       MIN_SELECTION_POINTS_PER_CLASS * classes.shape[0])
    n_cuts = min(int(round(1.0 / VALIDATION_FRACTION)),
                 -(-min(min_scored_points, max_scored_points)
                   // min(n_held, max_scored_points)))
    if not fifth:
        n_cuts = max(n_cuts, 2)
    betas, mistakes, euclidean = None, [], []
    for fit, held in cuts(y, n_held, n_cuts, rng):
        # (A stratified cut must leave out at least a point of every class.)
        if fit.shape[0] >= n_fit_points + classes.shape[0]:
            fit = stratified_part(fit, y, n_fit_points, rng)
        if held.shape[0] > max_scored_points + classes.shape[0]:
            held = stratified_part(held, y, max_scored_points, rng)
        progress("  the path on %d points ..." % fit.shape[0])
        # Every cut scores the first cut's grid: its errors then add up
        # point by point.
        scores = path_scores(X, y, fit, held, settings, betas,
                             random_state=rng, progress=progress)
        if scores is None:
            return no_selection(
                "found no basis element that lowers the loss of the "
                "triplets of the %d points it fits the path on (%d classes)"
                % (fit.shape[0], classes.shape[0]), euclidean=True)
        betas = scores[0]
        mistakes.append(scores[2])
        euclidean.append(held_out_mistakes(X[fit], y[fit], X[held], y[held]))
    mistakes, euclidean = np.hstack(mistakes), np.concatenate(euclidean)
    n_scored = euclidean.shape[0]
    errors = mistakes.mean(axis=1)
    progress("  %d betas scored on %d held-out points" % (len(betas), n_scored))
    return BetaSelection(
        best_beta(betas, mistakes, sparsest), betas, errors,
        euclidean_wins(errors.min(), euclidean.mean()),
        float(euclidean.mean()), n_scored, mistakes=mistakes,
        beta_max=betas[0] / BETA_RATIO_HIGH, sparsest=sparsest)


def held_fifth(n_points, n_classes):
    """The points a ``VALIDATION_FRACTION`` holds out, and whether a
    stratified cut of that many holds one of every class and leaves two of
    each to fit."""
    n_held = int(np.ceil(VALIDATION_FRACTION * n_points))
    return n_held, n_held >= n_classes and n_points - n_held >= 2 * n_classes


def classes_of_at_least(X, y, fewest):
    """``(X, y, classes, counts)`` less the classes of fewer than ``fewest``
    points, where two classes or more have that many (else as they are)."""
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < fewest and (counts >= fewest).sum() >= 2:
        kept = np.isin(y, classes[counts >= fewest])
        X, y = X[kept], y[kept]
        classes, counts = np.unique(y, return_counts=True)
    return X, y, classes, counts


def stratified_part(indices, y, size, random_state):
    """``size`` of ``indices``, stratified by their labels ``y[indices]``.

    A class with one point among them is kept whole (scikit-learn's
    stratified split refuses it: a class of two points of which a fold
    holds out one).
    """
    _, inverse, counts = np.unique(y[indices], return_inverse=True,
                                   return_counts=True)
    alone = counts[inverse] < 2
    if not alone.any():
        return train_test_split(indices, train_size=size, stratify=y[indices],
                                random_state=random_state)[0]
    rest = indices[~alone]
    return np.concatenate([indices[alone], train_test_split(
        rest, train_size=size - np.count_nonzero(alone), stratify=y[rest],
        random_state=random_state)[0]])


def cuts(y, n_held, n_cuts, random_state):
    """``n_cuts`` stratified ``(fit, held)`` index pairs of ``n_held``
    held-out points each: one random cut, or the first ``n_cuts`` folds of
    a stratified ``k``-fold (``k`` about ``1 / VALIDATION_FRACTION``), so
    that no point is scored twice."""
    indices = np.arange(y.shape[0])
    if n_cuts == 1:
        return [train_test_split(indices, test_size=n_held, stratify=y,
                                 random_state=random_state)]
    # (StratifiedKFold needs a class of at least as many points as folds.)
    n_folds = min(int(round(1.0 / VALIDATION_FRACTION)),
                  max(2, int(np.unique(y, return_counts=True)[1].max())))
    with warnings.catch_warnings():
        # (A class of fewer points than folds is simply absent from some.)
        warnings.filterwarnings("ignore", message="The least populated class")
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=
                                random_state.randint(2 ** 31)).split(indices, y)
        return [next(folds) for _ in range(min(n_cuts, n_folds))]


def scored_shares(members):
    """The held-out points each task's choice scores at least, so that
    :func:`pool_selections` pools ``MIN_SCORED_POINTS``: each task's share
    of them in proportion to its points (``members``, one index array a
    task). The pooled choice rests on the pooled mistakes, whose noise is
    that of their total; a task of 600 points would otherwise score 500
    of its own, and each of several tasks run up to five paths where one
    single-task model of all the points runs one or two. Beyond the paper.
    """
    sizes = np.array([len(rows) for rows in members], dtype=float)
    return [int(np.ceil(MIN_SCORED_POINTS * size / sizes.sum()))
            for size in sizes]


def pool_selections(selections):
    r"""One beta for mt-SCML from each task's :func:`select_beta`.

    Every task's grid is the same multiples of its own
    :math:`\beta_{\max,t}`; the tasks' held-out errors are averaged at each
    multiple (weighted by the points each scored), :func:`best_beta`
    chooses from their mistakes, pooled point by point, and the multiple applies to
    :math:`\|(\beta_{\max,1}, \dots, \beta_{\max,T})\|_2`. That is the
    :math:`\beta_{\max}` of the group penalty when the tasks' steepest
    elements coincide, and an upper bound on it otherwise: the group norm
    of a column shared by :math:`T` like tasks is :math:`\sqrt{T}` times
    one task's weight, so the value of a single task would leave mt-SCML
    :math:`\sqrt{T}` times less penalised, and denser, than the
    single-task models together (satimage cut into 3 tasks: about 7x their
    elements). Tasks whose choice could not run (their ``reason`` is set:
    too few points of a class) are left out, and the multiples apply to the
    norm over the others; where none could run, the first one's is
    returned (with its reason), and one selection as it is. mt-SCML has no
    Euclidean fallback, so ``euclidean`` is False. Beyond the paper.
    """
    scored = [selection for selection in selections
              if selection.reason is None]
    if len(selections) == 1:
        return selections[0]
    if not scored:
        return selections[0]._replace(euclidean=False)
    # (The multiples of a norm over some tasks do not carry over to all.)
    every_task = len(scored) == len(selections)
    selections = scored
    n_scored = np.array([selection.n_scored for selection in selections])
    share = n_scored / n_scored.sum()
    largest = np.array([selection.betas[0] for selection in selections])
    betas = safe_norm(largest) * (selections[0].betas / largest[0])
    errors, euclidean = (
        share @ np.array([getattr(selection, name) for selection in selections])
        for name in ("errors", "euclidean_error"))
    mistakes = np.hstack([selection.mistakes for selection in selections])
    sparsest = all(selection.sparsest for selection in selections)
    return BetaSelection(
        best_beta(betas, mistakes, sparsest), betas, errors, False,
        float(euclidean), int(n_scored.sum()), mistakes=mistakes,
        beta_max=betas[0] / BETA_RATIO_HIGH if every_task else None,
        sparsest=sparsest)


def no_selection(reason, euclidean=False):
    """The :class:`BetaSelection` where none could run: ``FALLBACK_BETA``
    (and the Euclidean metric, where ``euclidean``)."""
    empty = np.zeros(0)
    return BetaSelection(FALLBACK_BETA, empty, empty, euclidean,
                         float("nan"), 0, reason)


def held_out_anchor_triplets(anchors, random_state):
    """Rows of the triplets whose anchor is held out, for SCML-Local's check.

    A ``VALIDATION_FRACTION`` of the distinct anchors (``MAX_VALIDATION_POINTS``
    at most), as :func:`select_beta` holds out points; the local stage's
    metric at a point is a function of the point, so triplets anchored at
    points it did not fit on measure that function on new points. None
    where fewer than two anchors leave nothing to hold out.
    """
    distinct = np.unique(anchors)
    if distinct.shape[0] < 2:
        return None
    n_held = min(int(np.ceil(VALIDATION_FRACTION * distinct.shape[0])),
                 MAX_VALIDATION_POINTS)
    held = check_random_state(random_state).choice(distinct, n_held,
                                                   replace=False)
    return np.flatnonzero(np.isin(anchors, held))


def held_out_mistakes(X_fit, y_fit, X_held, y_held):
    """Which held-out points the 3-NN classifier of the fit points gets
    wrong, as a boolean array, under the Euclidean distance of the given
    coordinates (a metric's, through its components, or the data's own).

    Where scikit-learn's classifier would search a k-d tree (its own rule:
    15 features or fewer, and fewer neighbours than half the points; and
    where :func:`~._arrays.search_algorithm` keeps it), the tree is
    searched directly, with the classifier's leaf size, and the vote is
    the classifier's (uniform weights, a tie to the smallest label): the
    same mistakes, tied neighbours included, without an estimator's checks
    of its inputs, which cost ten times the search on small data (the
    choice of beta scores each beta of each cut).
    """
    k = min(SCORE_NEIGHBOURS, X_fit.shape[0])
    if (X_fit.shape[1] > SKLEARN_TREE_MAX_FEATURES or k >= X_fit.shape[0] // 2
            or search_algorithm(X_fit) != "auto"):
        with warnings.catch_warnings():
            # Many classes of few points are class labels here, not a
            # regression target: scikit-learn's guess says nothing to the
            # user.
            warnings.filterwarnings("ignore", message="The number of unique "
                                    "classes is greater than 50%")
            classifier = fitted_knn(k, X_fit, y_fit)
        return classifier.predict(X_held) != y_held
    labels, codes = np.unique(y_fit, return_inverse=True)
    tree = KDTree(X_fit, leaf_size=SKLEARN_LEAF_SIZE, metric="euclidean")
    nearest = tree.query(X_held, k, return_distance=False)
    votes = neighbour_votes(codes[nearest], labels.shape[0])
    return labels[votes.argmax(axis=1)] != y_held


def euclidean_wins(best_error, euclidean):
    """Whether the Euclidean held-out error ``euclidean`` is lower than
    every beta's, the least of which is ``best_error``.

    Preferring the Euclidean metric only beyond a margin (one binomial
    standard error, before) kept learned metrics that were worse on new
    points where few points a class make every held-out estimate noisy
    (20 isotropic classes of 4 points: 4.3 points worse than Euclidean);
    without it, the breadth table and its draws of 100 and 300 points do
    no worse (NOTES.md, "The Euclidean check without a margin").
    """
    return bool(euclidean < best_error)


def merges_points(X, components):
    """Whether ``x -> components @ x`` maps distinct rows of ``X`` onto one.

    Only a map of lower rank than the data can, and on continuous data it
    does not; on discrete data it can (KEEL titanic: 3 features of a few
    values each, 14 distinct training points, and the one element the
    chosen beta keeps maps them onto 4). k-NN then picks among the points
    merged into one by their storage order, not by distance: there, the
    3-NN error averaged over orders of the training rows was 36 % under
    the learned metric and 25 % under the Euclidean one, and the held-out
    score, measured on a model fitted to fewer points, did not see it.
    The rows are grouped by their images (to ``MERGE_DIGITS`` digits), and
    a group merges points where its rows differ by more than
    ``DISTINCT_RATIO`` of the data's scale: near-duplicates (rows a
    rounding error apart) are one point, whichever side of a rounding step
    they fall.
    """
    if components.shape[0] and np.linalg.matrix_rank(components) >= X.shape[1]:
        return False
    # (Centred: far from the origin the images' offset would take the
    # digits that tell points apart.)
    X = centred(X)
    Z = X @ components.T
    scale = np.abs(Z).max(initial=0.0)
    # (+ 0.0 turns the -0.0 of a rounded small negative into 0.0, so that
    # equal images are equal bytes for distinct_rows.)
    images = (np.round(Z / scale, MERGE_DIGITS) + 0.0 if scale > 0
              else np.zeros((X.shape[0], 1)))
    first, group = distinct_rows(images)
    if first.shape[0] == X.shape[0]:
        return False
    shared = np.bincount(group)[group] > 1
    apart = np.abs(X[shared] - X[first[group[shared]]]).max(axis=1,
                                                            initial=0.0)
    return bool((apart > DISTINCT_RATIO * np.abs(X).max(initial=0.0)).any())
