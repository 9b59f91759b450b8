"""Active elements: a property of the model or of the solver? (diagnostic)

The multi-task target asks mt-SCML to use fewer active basis elements than
the st-SCML models together. On Vowel it does not (see ``NOTES.md``). This
diagnostic tells the two possible causes apart on one split of the
multi-task benchmark: it fits mt-SCML and the per-task st-SCML models (RDA
alone) at a given ``beta`` as the benchmark does, rebuilds the problem each
fit solved (its basis, and each task's triplets from the labels) and
solves that problem to optimality with an interior-point method: for
mt-SCML the second-order cone program

.. math::

    \\min_{W \\ge 0} \\sum_t \\frac{1}{|C_t|} \\sum_{(i,j,k) \\in C_t}
    [1 + W_t \\cdot g_{ijk}]_+ + \\beta \\sum_k \\|W_{:,k}\\|_2,

and for each st-SCML model its ``T = 1`` case (a linear program). The
objective does not depend on the units of the data, so the problem is
solved in the user's. Printed per model: the fitted model's objective
(``objective_``, the solver's) and active count, the optimum's objective
and active count (columns whose norm exceeds ``1e-6`` of the largest;
``1e-3`` gives the same counts on Vowel).

Needs ``cvxpy`` with the Clarabel solver, which the package does not
depend on: ``pip install ".[diagnostics]"``. The mt problem on a Vowel
split (4 tasks x 840 elements, 7,200 triplets, dense) takes about 20
minutes on one core.
"""

import sys
import time
from importlib import metadata

import numpy as np
import scipy

from metric_learn_scml import SCML_Supervised, scml_path
from metric_learn_scml._lp import _import_highspy
from metric_learn_scml._triplets import triplets_from_labels

from .. import breadth, global_table
from ..multitask import N_BASIS_PER_TASK, TaskSplit, load, mt_scml, quiet_fits, scml

COLUMNS = ("model", "beta", "rda_objective", "rda_active",
           "exact_objective", "exact_active", "exact_seconds")


def triplet_matrices(model, X, y, tasks=None):
    """Per task, the ``(|C_t|, K)`` matrix of triplet vectors ``g_ijk`` of a fit.

    The triplets of each task (in the order of ``np.unique(tasks)``; one
    task if ``tasks`` is None) from its labels, as the supervised learners
    build them, under the fitted ``basis_``.
    """
    projections = X @ model.basis_.T
    members = ([np.arange(len(y))] if tasks is None
               else [np.flatnonzero(tasks == task) for task in np.unique(tasks)])
    matrices = []
    for rows in members:
        a, b, c = rows[triplets_from_labels(X[rows], y[rows], model.k_genuine,
                                            model.k_impostor)].T
        matrices.append(np.square(projections[a] - projections[b])
                        - np.square(projections[a] - projections[c]))
    return matrices


def exact_optimum(matrices, beta):
    """Optimal ``W`` (T x K) and objective of the (mt-)SCML problem.

    Solved by cvxpy with Clarabel (an interior-point method for conic
    programs); entries below zero from the solver's tolerance are clipped.
    """
    try:
        import cvxpy as cp
    except ImportError:
        raise ImportError("benchmarks.diagnostics.exact needs cvxpy with the Clarabel "
                          "solver: pip install cvxpy clarabel") from None
    W = cp.Variable((len(matrices), matrices[0].shape[1]), nonneg=True)
    loss = sum(cp.sum(cp.pos(1 + G @ W[t])) / G.shape[0] for t, G in enumerate(matrices))
    problem = cp.Problem(cp.Minimize(loss + beta * cp.sum(cp.norm(W, 2, axis=0))))
    problem.solve(solver=cp.CLARABEL)
    return np.maximum(W.value, 0.0), float(problem.value)


def n_active(weights, relative=1e-6):
    """Columns of ``weights`` whose norm exceeds ``relative`` of the largest."""
    norms = np.linalg.norm(np.atleast_2d(weights), axis=0)
    return int(np.count_nonzero(norms > relative * norms.max(initial=0.0)))


def compare(dataset="vowel", split=0, betas=(1e-3,)):
    """Rows of :data:`COLUMNS` for mt-SCML and the st-SCML models together."""
    data = TaskSplit(load(dataset, split))
    X_union, y_union = data.part("train")
    tasks = data.data["task_train"]
    rows = []
    for beta in betas:
        fits = {"mt-SCML": lambda: [(mt_scml(beta, split).fit(X_union, y_union, tasks),
                                     X_union, y_union, tasks)],
                # RDA alone: its solution is what this compares with the optimum
                "st-SCML (all tasks)": lambda: [
                    (scml(beta, split, N_BASIS_PER_TASK).set_params(solver="rda").fit(
                        *data.part("train", task)), *data.part("train", task), None)
                    for task in data.tasks]}
        for name, fit in fits.items():
            with quiet_fits():
                models = fit()
            row = dict(model=name, beta=beta, rda_objective=0.0, rda_active=0,
                       exact_objective=0.0, exact_active=0, exact_seconds=0.0)
            for model, *problem in models:
                start = time.perf_counter()
                weights, value = exact_optimum(triplet_matrices(model, *problem), beta)
                row["exact_seconds"] += time.perf_counter() - start
                row["exact_objective"] += value
                row["exact_active"] += n_active(weights)
                row["rda_objective"] += model.objective_
                row["rda_active"] += model.n_active_basis_
            rows.append(row)
    return rows


# The global model's exactness (issue 13): the datasets of the global table
# (its training part, its preprocessing) and three of scikit-learn's.
GLOBAL_DATASETS = tuple(global_table.DATASETS) + ("wine", "breast_cancer", "digits")
GLOBAL_COLUMNS = ("dataset", "points", "triplets", "beta", "default_objective",
                  "default_active", "exact_objective", "exact_active", "dual_gap",
                  "objective_ratio", "active_ratio", "default_seconds", "exact_seconds",
                  "lp_solver")


def lp_solver():
    """What solves the exact phase's LPs here (its times depend on it): the
    ``highs`` extra's persistent model, or scipy's ``linprog``."""
    if _import_highspy() is None:
        return "scipy %s linprog" % scipy.__version__
    return "highspy %s" % metadata.version("highspy")


def training_points(name, split=0):
    """The training points of one split: the global table's, or the breadth
    protocol's (standardised) for the other datasets."""
    if name in global_table.DATASETS:
        part = next(global_table.splits(name, split + 1, first=split))
        return part.X_train, part.y_train
    _, _, X_train, y_train, _, _ = list(breadth._splits(
        [name], split + 1, breadth.MAX_SAMPLES))[split]
    return X_train, y_train


def compare_global(names=GLOBAL_DATASETS, split=0, verbose=True):
    """Rows of :data:`GLOBAL_COLUMNS`: ``SCML_Supervised()`` at its defaults
    against the exact optimum of the same problem.

    The default fit chooses ``beta`` and refits by RDA (``beta='auto'``); the
    optimum is ``SCML_Supervised(beta=beta_, basis=basis_, solver='exact')``
    on the same points (same basis, same triplets), certified by its duality
    gap. The ratios are default / optimum.
    """
    rows = []
    for name in names:
        X, y = training_points(name, split)
        with quiet_fits():
            start = time.perf_counter()
            default = SCML_Supervised(random_state=split).fit(X, y)
            middle = time.perf_counter()
            exact = SCML_Supervised(beta=default.beta_, basis=default.basis_,
                                    solver="exact", random_state=split).fit(X, y)
            end = time.perf_counter()
        rows.append(dict(
            dataset=name, points=X.shape[0],
            triplets=len(triplets_from_labels(X, y, default.k_genuine,
                                              default.k_impostor)),
            beta=default.beta_, default_objective=default.objective_,
            default_active=default.n_active_basis_, exact_objective=exact.objective_,
            exact_active=exact.n_active_basis_, dual_gap=exact.dual_gap_,
            objective_ratio=default.objective_ / exact.objective_,
            active_ratio=default.n_active_basis_ / max(exact.n_active_basis_, 1),
            default_seconds=middle - start, exact_seconds=end - middle,
            lp_solver=lp_solver()))
        if verbose:
            print("%-14s default %.4f (%d active), optimum %.4f (%d active), gap %.1e"
                  % (name, default.objective_, default.n_active_basis_,
                     exact.objective_, exact.n_active_basis_, exact.dual_gap_),
                  file=sys.stderr, flush=True)
    return rows


PATH_COLUMNS = ("dataset", "points", "n_betas", "path_seconds", "independent_seconds",
                "speedup", "max_objective_difference", "max_dual_gap", "lp_solver")


def path_timing(names=GLOBAL_DATASETS, split=0, n_betas=10, verbose=True):
    """Rows of :data:`PATH_COLUMNS`: ``scml_path`` over ``n_betas`` values
    against as many independent exact fits.

    The independent fits are ``SCML_Supervised(beta=b, solver='exact')``, one
    per value of the path's grid, each building its own basis and triplets
    (the same ones: same points, same ``random_state``) and starting its
    exact phase from its own RDA solution. ``max_objective_difference`` is
    the largest relative difference between the two objectives at a value.
    """
    rows = []
    for name in names:
        X, y = training_points(name, split)
        with quiet_fits():
            start = time.perf_counter()
            betas, weights, gaps, basis = scml_path(X, y, n_betas=n_betas,
                                                    random_state=split)
            middle = time.perf_counter()
            fits = [SCML_Supervised(beta=beta, solver="exact", random_state=split).fit(X, y)
                    for beta in betas]
            end = time.perf_counter()
        triplets = triplets_from_labels(X, y, fits[0].k_genuine, fits[0].k_impostor)
        difference = max(
            abs(_objective(X, triplets, basis, w, beta)
                - _objective(X, triplets, fit.basis_, fit.weights_, beta))
            / _objective(X, triplets, fit.basis_, fit.weights_, beta)
            for beta, w, fit in zip(betas, weights, fits))
        rows.append(dict(dataset=name, points=X.shape[0], n_betas=n_betas,
                         path_seconds=middle - start, independent_seconds=end - middle,
                         speedup=(end - middle) / (middle - start),
                         max_objective_difference=difference,
                         max_dual_gap=float(np.max(gaps)), lp_solver=lp_solver()))
        if verbose:
            print("%-14s path %.1f s, independent %.1f s (%.1fx)" % (
                name, middle - start, end - middle, rows[-1]["speedup"]),
                file=sys.stderr, flush=True)
    return rows


def _objective(X, triplets, basis, weights, beta):
    """The paper's objective in the user's units: mean hinge plus l1."""
    projected = X @ basis.T
    anchors, targets, impostors = triplets.T
    near = np.square(projected[anchors] - projected[targets]) @ weights
    far = np.square(projected[anchors] - projected[impostors]) @ weights
    return np.maximum(1.0 + near - far, 0.0).mean() + beta * weights.sum()
