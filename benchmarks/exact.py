"""Active elements: a property of the model or of the solver? (diagnostic)

The multi-task target asks mt-SCML to use fewer active basis elements than
the st-SCML models together. On Vowel it does not (see ``NOTES.md``). This
script tells the two possible causes apart on one split of the multi-task
benchmark: it fits mt-SCML and the per-task st-SCML models at a given
``beta`` as the benchmark does, records the exact problem each fit hands to
the RDA solver (basis, triplets, task blocks), and solves that problem to
optimality with an interior-point method: for mt-SCML the second-order
cone program

.. math::

    \\min_{W \\ge 0} \\sum_t \\frac{1}{|C_t|} \\sum_{(i,j,k) \\in C_t}
    [1 + W_t \\cdot g_{ijk}]_+ + \\beta \\sum_k \\|W_{:,k}\\|_2,

and for each st-SCML model its ``T = 1`` case (a linear program). Printed
per model: the RDA solution's objective and active count, the optimum's
objective and active count (columns whose norm exceeds ``1e-6`` of the
largest; ``1e-3`` gives the same counts on Vowel).

Needs ``cvxpy`` with the Clarabel solver, which the package does not
depend on: ``pip install cvxpy clarabel``. The mt problem on a Vowel
split (4 tasks x 840 elements, 7,200 triplets, dense) takes about 20
minutes on one core.

The command is ``python -m benchmarks exact [--datasets vowel] [--split 0]
[--betas 1e-3 ...]``.
"""

import time
from contextlib import contextmanager

import numpy as np

import metric_learn_scml._base as _scml_module

from .multitask import N_BASIS_PER_TASK, TaskSplit, load, mt_scml, quiet_fits, scml

COLUMNS = ("model", "beta", "rda_objective", "rda_active",
           "exact_objective", "exact_active", "exact_seconds")


@contextmanager
def recorded_problems():
    """Record ``(differences, triplet_pairs, task_offsets, beta)`` of every RDA run.

    ``beta`` is the one RDA was given: the fits solve at unit scale, where
    it is the user's times the square of the scale factor. Yields the list
    the fits inside the block append to.
    """
    problems = []
    solver = _scml_module.rda

    def recording(differences, triplet_pairs, task_offsets, **options):
        problems.append((differences, triplet_pairs, np.asarray(task_offsets),
                         options["beta"]))
        return solver(differences, triplet_pairs, task_offsets, **options)

    _scml_module.rda = recording
    try:
        yield problems
    finally:
        _scml_module.rda = solver


def triplet_matrices(differences, triplet_pairs, task_offsets):
    """Per task, the ``(|C_t|, K)`` matrix of triplet vectors ``g_ijk``."""
    return [differences.rows(pairs[:, 0]).astype(float)
            - differences.rows(pairs[:, 1]).astype(float)
            for pairs in np.split(triplet_pairs, task_offsets[1:-1])]


def exact_optimum(matrices, beta):
    """Optimal ``W`` (T x K) and objective of the (mt-)SCML problem.

    Solved by cvxpy with Clarabel (an interior-point method for conic
    programs); entries below zero from the solver's tolerance are clipped.
    """
    try:
        import cvxpy as cp
    except ImportError:
        raise ImportError("benchmarks.exact needs cvxpy with the Clarabel "
                          "solver: pip install cvxpy clarabel") from None
    n_tasks, n_basis = len(matrices), matrices[0].shape[1]
    W = cp.Variable((n_tasks, n_basis), nonneg=True)
    loss = sum(cp.sum(cp.pos(1 + G @ W[t])) / G.shape[0]
               for t, G in enumerate(matrices))
    penalty = cp.sum(cp.norm(W, 2, axis=0))
    problem = cp.Problem(cp.Minimize(loss + beta * penalty))
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
    rows = []
    for beta in betas:
        fits = {"mt-SCML": lambda: [mtscml(beta, split).fit(
                    X_union, y_union, data.data["task_train"])],
                # RDA alone: its solution is what this compares with the optimum
                "st-SCML (all tasks)": lambda: [
                    scml(beta, split, N_BASIS_PER_TASK).set_params(
                        solver="rda").fit(*data.part("train", task))
                    for task in data.tasks]}
        for name, fit in fits.items():
            with recorded_problems() as problems, quiet_fits():
                models = fit()
            row = dict(model=name, beta=beta, rda_objective=0.0, rda_active=0,
                       exact_objective=0.0, exact_active=0, exact_seconds=0.0)
            for model, (*problem, solved_beta) in zip(models, problems):
                start = time.perf_counter()
                weights, value = exact_optimum(triplet_matrices(*problem),
                                               solved_beta)
                row["exact_seconds"] += time.perf_counter() - start
                row["exact_objective"] += value
                row["exact_active"] += n_active(weights)
                row["rda_objective"] += model.objective_
                row["rda_active"] += model.n_active_basis_
            rows.append(row)
    return rows
