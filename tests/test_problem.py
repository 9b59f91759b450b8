"""The problem object: one objective, gradient and duality gap for T tasks."""

import numpy as np
import pytest

from metric_learn_scml._problem import (HingeProblem, SquaredDifferences,
                                        pair_index)
from metric_learn_scml._triplets import triplets_from_labels


def two_task_problem(max_bytes=0, scale=1.0):
    rng = np.random.RandomState(0)
    X, y = rng.randn(60, 4), rng.randint(0, 3, 60)
    first = triplets_from_labels(X[:30], y[:30], 2, 3)
    second = 30 + triplets_from_labels(X[30:], y[30:], 2, 3)
    triplets = np.concatenate([first, second])
    offsets = [0, len(first), len(triplets)]
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, offsets)
    basis = rng.randn(6, 4)
    differences = SquaredDifferences(X @ basis.T, pairs, max_bytes=max_bytes,
                                     pair_offsets=pair_offsets)
    return HingeProblem(differences, triplet_pairs, offsets, scale), rng


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_gradient_is_the_derivative_of_the_loss(scale):
    # V(alpha) at the hinge subgradient (1/N_t past the margin) is the
    # gradient of the loss wherever no margin is exactly 0: central
    # differences agree, entry by entry, with the sign the solvers step on.
    problem, rng = two_task_problem(scale=scale)
    W = rng.uniform(0.0, 0.3, (2, problem.n_basis))
    margins = problem.margins(W)
    alpha = np.where(margins > 0, problem.upper, 0.0)
    analytic = problem.gradient(alpha)
    # The loss is linear between kinks: a step that moves no margin across
    # 0 gives the derivative exactly, up to rounding of order eps * loss / h.
    h = 0.5 * np.abs(margins).min() / np.abs(problem.rows(
        np.arange(problem.n_triplets))).max()
    rounding = 100 * np.finfo(float).eps * problem.loss(margins) / h
    numeric = np.zeros_like(W)
    for index in np.ndindex(*W.shape):
        step = np.zeros_like(W)
        step[index] = h
        numeric[index] = (problem.loss(problem.margins(W + step))
                          - problem.loss(problem.margins(W - step))) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-9, atol=rounding)


def test_duality_gap_bounds_the_distance_to_every_point():
    # Weak duality: the scaled dual point's value is below P at every W,
    # so P(W) - gap(W) <= P(W') for any W'.
    problem, rng = two_task_problem()
    beta = 0.01
    candidates = [rng.uniform(0.0, 0.3, (2, problem.n_basis))
                  * (rng.rand(2, problem.n_basis) < 0.5) for _ in range(10)]
    values = [problem.objective(W, beta) for W in candidates]
    for W, value in zip(candidates, values):
        gap, primal, alpha = problem.duality_gap(W, beta)
        assert primal == pytest.approx(value, rel=1e-12)
        assert gap >= 0 and alpha.min() >= 0
        assert np.all(alpha <= problem.upper * (1 + 1e-12))
        assert primal - gap <= min(values) * (1 + 1e-12)


@pytest.mark.parametrize("max_bytes", [0, 10 ** 9])
def test_columns_are_the_differences_of_those_elements(max_bytes):
    # With and without the float32 table: a restricted copy must give the
    # rows and distances of a table built on those basis elements alone.
    problem, rng = two_task_problem(max_bytes)
    differences, kept = problem.differences, np.array([4, 0, 3])
    restricted = differences.columns(kept)
    direct = SquaredDifferences(differences.projections[:, kept],
                                differences.pairs, max_bytes=max_bytes,
                                pair_offsets=differences.pair_offsets)
    assert restricted.n_features == 3
    assert (restricted.table is None) == (differences.table is None)
    ids = rng.randint(0, differences.pairs.shape[0], 20)
    np.testing.assert_allclose(restricted.rows(ids), direct.rows(ids),
                               rtol=1e-6)
    w = rng.rand(2, 3)
    np.testing.assert_allclose(restricted.distances(w), direct.distances(w),
                               rtol=1e-5)
    # the columns of the whole: weights zero elsewhere give the same distances
    whole = np.zeros((2, differences.n_features))
    whole[:, kept] = w
    np.testing.assert_allclose(restricted.distances(w),
                               differences.distances(whole), rtol=1e-5)
