"""The driver: a fit is the path at one beta, scml_path the path on a grid."""

import numpy as np
import pytest

from metric_learn_scml._defaults import EXACT_MAX_TRIPLETS
from metric_learn_scml._driver import (pair_problem, runs_exact_phase,
                                       solve_path)
from metric_learn_scml._exact import beta_max
from metric_learn_scml._problem import HingeProblem
from metric_learn_scml._triplets import triplets_from_labels

RDA = dict(gamma=1.0, batch_size=32, max_iter=3000, eval_every=250,
           tol=1e-3, n_iter_no_change=4)


def generated(seed=0, n=60, n_features=4, n_basis=10, size=7.0):
    """Points far from unit scale (so that the units matter), triplets from
    labels, a random basis."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_features)
    y = (X[:, 0] + 0.5 * rng.randn(n) > 0).astype(int) + (X[:, 1] > 1)
    basis = rng.randn(n_basis, n_features)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    triplets = triplets_from_labels(X, y, 2, 3, random_state=0)
    return X * size, basis, triplets


def user_objective(X, basis, triplets, w, beta):
    """The paper's objective computed on the raw points, in the user's
    units: the mean hinge of the triplets plus beta times the l1 norm."""
    P = X @ basis.T
    G = (np.square(P[triplets[:, 0]] - P[triplets[:, 1]])
         - np.square(P[triplets[:, 0]] - P[triplets[:, 2]]))
    return np.maximum(1 + G @ w, 0).mean() + beta * w.sum()


def user_beta_max(problem):
    """beta_max of ``problem`` in the user's units."""
    return beta_max(HingeProblem(problem.differences, problem.triplet_pairs)
                    ) / problem.unit ** 2


def test_weights_and_betas_are_in_the_users_units():
    # The objective is the same number in every unit; the driver's weights
    # at the user's beta must reach it on the raw points. A conversion by
    # unit**2 the wrong way misses it by a factor of unit**4.
    X, basis, triplets = generated()
    problem = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
    assert abs(problem.unit - 1.0) > 0.5
    beta = 0.1 * user_beta_max(problem)
    result, = solve_path(problem, [beta], RDA, "exact",
                         random_state=np.random.RandomState(0))
    weights = result.weights[0]
    assert weights.any() and np.all(weights >= 0)
    assert user_objective(X, basis, triplets, weights, beta) == pytest.approx(
        result.objective, rel=1e-6)
    assert result.dual_gap <= 1e-6 * result.objective


def test_a_path_is_its_one_point_paths_and_grows_as_beta_falls():
    X, basis, triplets = generated(1)
    problem = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
    betas = user_beta_max(problem) * np.logspace(-0.5, -3, 5)
    path = solve_path(problem, betas, RDA, "exact",
                      random_state=np.random.RandomState(0))
    norms, losses = [], []
    for beta, result in zip(betas, path):
        alone, = solve_path(problem, [beta], RDA, "exact",
                            random_state=np.random.RandomState(1))
        assert result.dual_gap <= 1e-6 * result.objective
        # two certified optima of one LP: one value (not always one point)
        assert result.objective == pytest.approx(alone.objective, rel=1e-6)
        weights = result.weights[0]
        norms.append(weights.sum())
        losses.append(user_objective(X, basis, triplets, weights, 0.0))
    assert np.all(np.diff(norms) >= -1e-9 * max(norms))
    assert np.all(np.diff(losses) <= 1e-9)


def test_rda_alone_has_no_certificate_and_a_state_to_continue():
    X, basis, triplets = generated(2)
    problem = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
    beta = 0.01 * user_beta_max(problem)
    rda_only, = solve_path(problem, [beta], RDA, "rda",
                           random_state=np.random.RandomState(0))
    exact, = solve_path(problem, [beta], RDA, "exact",
                        random_state=np.random.RandomState(0))
    assert np.isnan(rda_only.dual_gap) and not rda_only.out_of_budget
    assert rda_only.state is not None and exact.state is not None
    # the same RDA run under both: the phase only lowers the objective
    assert rda_only.n_iter == exact.n_iter
    assert exact.objective <= HingeProblem(
        problem.differences, problem.triplet_pairs).objective(
            rda_only.weights / problem.unit ** 2,
            beta * problem.unit ** 2) + 1e-12


def test_when_the_exact_phase_runs():
    assert runs_exact_phase("exact", 10 * EXACT_MAX_TRIPLETS, 0.0)
    assert runs_exact_phase("auto", EXACT_MAX_TRIPLETS, 1e-3)
    assert not runs_exact_phase("auto", EXACT_MAX_TRIPLETS + 1, 1e-3)
    # no bound on the weights keeps the LP well scaled at beta = 0
    assert not runs_exact_phase("auto", 100, 0.0)
    assert not runs_exact_phase("rda", 100, 1e-3)
