"""Why ours trails LMNN on the digit stand-ins: the basis, not the solver.

On one split of a global-table dataset, every metric below is scored on
the training triplets of :class:`~metric_learn_scml.SCML_Supervised` (3
targets x 10 impostors per point) and by 3-NN test error:

- ``Euclidean``;
- ``ours``: SCML_Supervised at its defaults;
- ``ours, full-batch optimum``: the same objective (mean hinge plus
  ``beta * sum(w)``, ``w >= 0``, the same basis and triplets; the
  package's :class:`~metric_learn_scml._exact.TripletProblem`) minimised
  on all triplets at once by L-BFGS-B from our solution: how far the
  solver is from the best metric the basis allows;
- ``LMNN``: metric-learn's LMNN (``n_neighbors=3``);
- ``LMNN in the cone``: the non-negative combination of our basis elements
  :math:`\\sum_k w_k b_k b_k^T` nearest to LMNN's matrix in Frobenius norm
  (NNLS), with its relative residual: how much of LMNN's metric the
  basis can express.

Columns: test error (%), the fraction of training triplets whose impostor
is not farther than the target, and the mean hinge
:math:`\\max(0, 1 + d(a, b) - d(a, c))` at the best scale ``c M`` of the
metric (``c`` on a log grid: the unit margin makes the hinge depend on the
scale, the ranking of distances does not).

The command is ``python -m benchmarks cone [--datasets mfeat_pix mnist5k]
[--split N]`` (LMNN takes about 100 s on mfeat-pix and 380 s on MNIST-5k).
"""

import warnings

import numpy as np
from scipy.optimize import minimize, nnls

# First: it makes metric-learn run on new scikit-learn.
from metric_learn_scml import SCML_Supervised
from metric_learn_scml._exact import TripletProblem
from metric_learn_scml._solvers import SquaredDifferences
from metric_learn_scml._triplets import pair_index, triplets_from_labels
from metric_learn import LMNN

from .global_table import splits
from .protocol import RANDOM_STATE, knn_error
from .results import markdown_table

SCALES = np.logspace(-3, 3, 61)


def triplet_problem(X, triplets, components):
    """The triplets' problem under the rows of ``components`` (``L``).

    Its pair rows are the squared differences of ``X @ L.T`` (in double
    precision, ``max_bytes=0``): the solvers' triplet vectors when ``L`` is
    the basis, and with unit weights the squared distances of ``M = L^T L``.
    """
    pairs, triplet_pairs = pair_index(triplets)
    return TripletProblem(SquaredDifferences(X @ components.T, pairs, max_bytes=0),
                          triplet_pairs)


def triplet_scores(X, triplets, components):
    """Violated fraction and best-scale mean hinge of a metric on triplets."""
    problem = triplet_problem(X, triplets, components)
    distances = problem.differences.distances(np.ones(components.shape[0]))[0]
    gaps = distances[problem.triplet_pairs[:, 0]] - distances[problem.triplet_pairs[:, 1]]
    hinge = min(np.maximum(0.0, 1.0 + scale * gaps).mean() for scale in SCALES)
    return float(np.mean(gaps >= 0)), float(hinge)


def full_batch_weights(X, triplets, basis, beta, start):
    """Minimiser of the objective (mean hinge + ``beta * sum(w)``, ``w >= 0``) from ``start``.

    The objective is piecewise linear; L-BFGS-B with its subgradient (the
    mean triplet vector of the violated triplets, plus ``beta``) stops where
    the projected gradient vanishes. Returns the weights and the objective.
    """
    problem = triplet_problem(X, triplets, basis)

    def value_and_gradient(weights):
        violated = np.flatnonzero(problem.margins(weights) > 0)
        alpha = np.full(violated.shape[0], 1.0 / problem.n_triplets)
        return (problem.objective(weights, beta),
                problem.gradient(violated, alpha) + beta)

    result = minimize(value_and_gradient, start, jac=True, method="L-BFGS-B",
                      bounds=[(0, None)] * basis.shape[0], options=dict(maxiter=5000))
    return result.x, result.fun


def cone_projection(matrix, basis):
    """Non-negative ``w`` with :math:`\\sum_k w_k b_k b_k^T` nearest ``matrix``.

    Returns the weights and the relative Frobenius residual.
    """
    outer = np.einsum("ki,kj->ijk", basis, basis).reshape(-1, basis.shape[0])
    norm = np.linalg.norm(matrix)
    weights, residual = nnls(outer, matrix.ravel() / norm, maxiter=50 * len(basis))
    return weights * norm, float(residual)


def _components(weights, basis):
    active = weights > 0
    return np.sqrt(weights[active])[:, None] * basis[active]


def diagnose(X_train, y_train, X_test, y_test, random_state=0, reference=None):
    """Rows of the module's table for one split (errors as fractions).

    ``reference(X, y)`` fits the compared metric (default: metric-learn's
    LMNN with ``n_neighbors=3``); it must return an estimator with
    ``get_mahalanobis_matrix``.
    """
    reference = reference or (lambda X, y: LMNN(n_neighbors=3, random_state=random_state)
                              .fit(X, y))
    ours = SCML_Supervised(random_state=random_state).fit(X_train, y_train)
    triplets = triplets_from_labels(X_train, y_train, ours.k_genuine, ours.k_impostor)
    optimum, _ = full_batch_weights(X_train, triplets, ours.basis_, float(ours.beta_),
                                    np.ravel(ours.weights_).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other_matrix = reference(X_train, y_train).get_mahalanobis_matrix()
    projected, residual = cone_projection(other_matrix, ours.basis_)
    eigenvalues, vectors = np.linalg.eigh(other_matrix)
    metrics = [
        ("Euclidean", np.eye(X_train.shape[1]), np.nan, np.nan),
        ("ours", ours.components_, np.nan, ours.n_active_basis_),
        ("ours, full-batch optimum", _components(optimum, ours.basis_), np.nan,
         int(np.count_nonzero(optimum))),
        ("LMNN", np.sqrt(np.maximum(eigenvalues, 0))[:, None] * vectors.T, np.nan, np.nan),
        ("LMNN in the cone", _components(projected, ours.basis_), residual,
         int(np.count_nonzero(projected))),
    ]
    rows = []
    for name, components, cone_residual, active in metrics:
        violated, hinge = triplet_scores(X_train, triplets, components)
        rows.append(dict(metric=name, violated=violated, hinge_best_scale=hinge,
                         error=knn_error(X_train @ components.T, y_train,
                                         X_test @ components.T, y_test),
                         cone_residual=cone_residual, n_active=active))
    return rows


def run(datasets=("mfeat_pix", "mnist5k"), split=0):
    """Rows of :func:`diagnose` for split number ``split`` of each dataset."""
    rows = []
    for name in datasets:
        data = next(splits(name, split + 1, first=split))
        rows += [dict(row, dataset=name) for row in diagnose(
            data.X_train, data.y_train, data.X_test, data.y_test,
            random_state=RANDOM_STATE + split)]
    return rows


def table(rows):
    return markdown_table(
        ["dataset", "metric", "3-NN test error (%)", "training triplets violated (%)",
         "mean hinge, best scale", "residual in the cone", "active elements"],
        [[row["dataset"], row["metric"], "%.2f" % (100 * row["error"]),
          "%.2f" % (100 * row["violated"]), "%.4f" % row["hinge_best_scale"],
          "-" if np.isnan(row["cone_residual"]) else "%.3f" % row["cone_residual"],
          "-" if np.isnan(row["n_active"]) else "%d" % row["n_active"]] for row in rows])
