"""Why ours trails LMNN on the digit stand-ins: the basis, not the solver.

On one split of a global-benchmark dataset, every metric below is scored
on the training triplets of :class:`~metric_learn_scml.SCML_Supervised`
(3 targets x 10 impostors per point) and by 3-NN test error:

- ``Euclidean``;
- ``ours``: SCML_Supervised at its defaults (the RDA solution);
- ``ours, full-batch optimum``: the same objective (mean hinge plus
  ``beta * sum(w)``, ``w >= 0``, the same basis and triplets) minimised on
  all triplets at once by L-BFGS-B from the RDA solution: how far the
  stochastic solver is from the best metric the basis allows;
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

Run ``python -m benchmarks.cone [--datasets mfeat_pix mnist5k] [--split
N]`` (LMNN takes about 100 s on mfeat-pix and 380 s on MNIST-5k).
"""

import argparse
import time
import warnings

import numpy as np
from scipy.optimize import minimize, nnls

from metric_learn_scml._solvers import SquaredDifferences
from metric_learn_scml._triplets import pair_index

from .compare_global import (DATASETS, DEFAULT_PREPROCESSING, RANDOM_STATE,
                             datasets_splits, knn_error)

SCALES = np.logspace(-3, 3, 61)
COLUMNS = ("dataset", "metric", "error", "violated", "hinge_best_scale",
           "cone_residual", "n_active")


def _pair_table(X, triplets, components):
    """``(SquaredDifferences, triplet_pairs)`` of the triplets under ``L``.

    The rows are the squared differences of ``X @ L.T`` for the distinct
    pairs (computed in double precision, ``max_bytes=0``): the solvers'
    triplet vectors when ``L`` is the basis, and with unit weights the
    squared distances of a metric ``M = L^T L``.
    """
    pairs, triplet_pairs = pair_index(triplets)
    return (SquaredDifferences(X @ components.T, pairs, max_bytes=0),
            triplet_pairs)


def triplet_scores(X, triplets, components):
    """Violated fraction and best-scale mean hinge of a metric on triplets."""
    differences, triplet_pairs = _pair_table(X, triplets, components)
    distances = differences.distances(np.ones(components.shape[0]))[0]
    gaps = distances[triplet_pairs[:, 0]] - distances[triplet_pairs[:, 1]]
    hinge = min(np.maximum(0.0, 1.0 + scale * gaps).mean() for scale in SCALES)
    return float(np.mean(gaps >= 0)), float(hinge)


def full_batch_weights(X, triplets, basis, beta, start):
    """Minimiser of mean hinge + beta * sum(w) over w >= 0, from ``start``.

    The triplet vectors :math:`g_{abc} = (B(x_a - x_b))^2 - (B(x_a - x_c))^2`
    (elementwise) make the objective
    :math:`\\mathrm{mean}(\\max(0, 1 + G w)) + \\beta \\sum w`, piecewise
    linear; L-BFGS-B with its subgradient stops where the projected
    gradient vanishes.
    """
    differences, triplet_pairs = _pair_table(X, triplets, basis)
    vectors = (differences.rows(triplet_pairs[:, 0])
               - differences.rows(triplet_pairs[:, 1]))

    def value_and_gradient(weights):
        margins = 1.0 + vectors @ weights
        violated = margins > 0
        return (margins[violated].sum() / len(margins) + beta * weights.sum(),
                vectors[violated].sum(0) / len(margins) + beta)

    result = minimize(value_and_gradient, start, jac=True, method="L-BFGS-B",
                      bounds=[(0, None)] * basis.shape[0],
                      options=dict(maxiter=5000))
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

    ``reference`` fits the compared metric (default: metric-learn's LMNN
    with ``n_neighbors=3``); it must return an estimator with
    ``get_mahalanobis_matrix``.
    """
    from metric_learn_scml import SCML_Supervised
    from metric_learn_scml._triplets import triplets_from_labels

    if reference is None:
        def reference(X, y):
            from metric_learn import LMNN
            return LMNN(n_neighbors=3, random_state=random_state).fit(X, y)

    ours = SCML_Supervised(random_state=random_state).fit(X_train, y_train)
    basis = ours.basis_
    triplets = triplets_from_labels(X_train, y_train, ours.k_genuine,
                                    ours.k_impostor)
    optimum, _ = full_batch_weights(X_train, triplets, basis, ours.beta_,
                                    ours.weights_.astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = reference(X_train, y_train)
    other_matrix = other.get_mahalanobis_matrix()
    projected, residual = cone_projection(other_matrix, basis)
    eigenvalues, vectors = np.linalg.eigh(other_matrix)
    other_components = (np.sqrt(np.maximum(eigenvalues, 0))[:, None]
                        * vectors.T)
    metrics = [
        ("Euclidean", np.eye(X_train.shape[1]), np.nan, np.nan),
        ("ours", ours.components_, np.nan, ours.n_active_basis_),
        ("ours, full-batch optimum", _components(optimum, basis), np.nan,
         int(np.count_nonzero(optimum))),
        ("LMNN", other_components, np.nan, np.nan),
        ("LMNN in the cone", _components(projected, basis), residual,
         int(np.count_nonzero(projected))),
    ]
    rows = []
    for name, components, cone_residual, n_active in metrics:
        violated, hinge = triplet_scores(X_train, triplets, components)
        rows.append(dict(
            metric=name, violated=violated, hinge_best_scale=hinge,
            error=knn_error(X_train, y_train, X_test, y_test, components),
            cone_residual=cone_residual, n_active=n_active))
    return rows


def run(datasets=("mfeat_pix", "mnist5k"), split=0):
    """Print the table for ``split`` of each dataset; return its rows."""
    rows = []
    for name in datasets:
        dataset = DATASETS[name]
        X, y = dataset.load()
        y = np.unique(y, return_inverse=True)[1]   # metric-learn wants ints
        for number, (train, val, test) in enumerate(
                datasets_splits(y, split + 1, dataset.sizes)):
            if number == split:
                break
        X_train, _, X_test = dataset.features(X, train, val, test,
                                              DEFAULT_PREPROCESSING)
        start = time.perf_counter()
        found = diagnose(X_train, y[train], X_test, y[test],
                         random_state=RANDOM_STATE + split)
        rows += [dict(row, dataset=name) for row in found]
        print_table([dict(row, dataset=name) for row in found])
        print("(%s split %d: %.0f s)\n" % (name, split,
                                           time.perf_counter() - start))
    return rows


def print_table(rows):
    print("| dataset | metric | 3-NN test error (%) | training triplets "
          "violated (%) | mean hinge, best scale | residual in the cone "
          "| active elements |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %.2f | %.2f | %.4f | %s | %s |" % (
            row["dataset"], row["metric"], 100 * row["error"],
            100 * row["violated"], row["hinge_best_scale"],
            "-" if np.isnan(row["cone_residual"])
            else "%.3f" % row["cone_residual"],
            "-" if np.isnan(row["n_active"]) else "%d" % row["n_active"]))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.cone", description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["mfeat_pix", "mnist5k"],
                        choices=sorted(DATASETS))
    parser.add_argument("--split", type=int, default=0)
    args = parser.parse_args(argv)
    if args.split < 0:
        parser.error("--split must be >= 0")
    run(args.datasets, args.split)


if __name__ == "__main__":
    main()
