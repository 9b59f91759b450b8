import numpy as np
import pytest
from scipy.optimize import linprog

import metric_learn_scml._exact as exact_module
from metric_learn_scml._exact import (ScipyLP, beta_max as exact_beta_max,
                                      exact_phase, exact_weights)
from metric_learn_scml._problem import (HingeProblem, SquaredDifferences,
                                        pair_index)
from metric_learn_scml._solvers import rda
from metric_learn_scml._triplets import triplets_from_labels


def group_problem(seed, n_tasks=3, n_basis=30, n_points=25, n_features=5):
    """Related tasks: each labels its own points by a perturbed shared map.

    Returns the problem (float64 rows, pairs grouped by task), the dense
    triplet vectors of each task and the task offsets.
    """
    rng = np.random.RandomState(seed)
    shared = rng.randn(n_features, n_features)
    X, triplets, offsets = [], [], [0]
    for task in range(n_tasks):
        points = rng.randn(n_points, n_features)
        mixed = points @ (shared + 0.5 * rng.randn(n_features, n_features))
        y = (mixed[:, 0] > 0).astype(int) + (mixed[:, 1] > 0.5)
        task_triplets = triplets_from_labels(points, y, 2, 4) + len(X) * n_points
        X.append(points)
        triplets.append(task_triplets)
        offsets.append(offsets[-1] + task_triplets.shape[0])
    X, triplets, offsets = np.vstack(X), np.vstack(triplets), np.array(offsets)
    basis = rng.randn(n_basis, n_features)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, offsets)
    P = X @ basis.T
    differences = SquaredDifferences(P, pairs, max_bytes=0,
                                     pair_offsets=pair_offsets)
    G = (np.square(P[triplets[:, 0]] - P[triplets[:, 1]])
         - np.square(P[triplets[:, 0]] - P[triplets[:, 2]]))
    return (HingeProblem(differences, triplet_pairs, offsets),
            np.split(G, offsets[1:-1]), offsets)


def primal(matrices, W, beta):
    """The mt-SCML objective from its definition."""
    return (sum(np.maximum(1 + G @ w, 0).mean() for G, w in zip(matrices, W))
            + beta * np.linalg.norm(W, axis=0).sum())


def beta_max(matrices):
    """The smallest beta at which W = 0 is optimal (||u_k|| at alpha = 1/N_t)."""
    means = np.array([G.mean(axis=0) for G in matrices])
    return np.linalg.norm(np.maximum(-means, 0), axis=0).max()


def fan_optimum(matrices, beta, n_directions=1000):
    """The two-task optimum as one LP over a fine fan of directions.

    Each column may take any non-negative combination of the unit
    directions (cos a, sin a), a in [0, pi/2], at cost beta per unit: the
    cost of W_k is between ||W_k|| and ||W_k|| / cos(pi / (4 n)), so the
    value is at most 1 / cos(pi / (4 n)) - 1 (3e-7 here) above the
    optimum. Solved in its dual form (a row per direction and column),
    several times faster in HiGHS than the primal.
    """
    angles = np.linspace(0, np.pi / 2, n_directions + 1)
    (G0, G1), fan = matrices, np.array([np.cos(angles), np.sin(angles)])
    rows = np.vstack([np.kron(G0, fan[0]), np.kron(G1, fan[1])])
    upper = np.concatenate([np.full(len(G0), 1.0 / len(G0)),
                            np.full(len(G1), 1.0 / len(G1))])
    result = linprog(-np.ones(len(upper)), A_ub=-rows.T,
                     b_ub=np.full(rows.shape[1], beta),
                     bounds=np.column_stack([0 * upper, upper]),
                     method="highs-ds")
    assert result.status == 0
    return -result.fun


def cvxpy_optimum(matrices, beta):
    cp = pytest.importorskip("cvxpy")
    W = cp.Variable((len(matrices), matrices[0].shape[1]), nonneg=True)
    loss = sum(cp.sum(cp.pos(1 + G @ W[t])) / G.shape[0]
               for t, G in enumerate(matrices))
    problem = cp.Problem(cp.Minimize(
        loss + beta * cp.sum(cp.norm(W, 2, axis=0))))
    problem.solve(solver=cp.CLARABEL)
    return problem.value


def solve(problem, beta, start=None, tol=1e-6, **kwargs):
    """``(weights, alpha, gap, n_rounds)`` of the exact solver."""
    if start is None:
        start = np.zeros((problem.n_tasks, problem.n_basis))
    weights, n_rounds, gap, alpha, _ = exact_weights(problem, beta, start,
                                                     tol, **kwargs)
    return weights, alpha, gap, n_rounds


def group_phase(problem, result, beta, **kwargs):
    """:func:`exact_phase` on ``problem``'s triplets."""
    return exact_phase(problem.differences, problem.triplet_pairs,
                       problem.task_offsets, result, beta, **kwargs)


@pytest.mark.parametrize("relative_beta", [1e-3, 0.2])
def test_two_tasks_match_the_lp_over_a_fine_fan_of_directions(relative_beta):
    # An independent reference that needs no extra (and no duality).
    problem, matrices, _ = group_problem(0, n_tasks=2, n_basis=12,
                                         n_points=15)
    beta = relative_beta * beta_max(matrices)
    weights, _, _, _ = solve(problem, beta)
    assert np.all(weights >= 0)
    assert primal(matrices, weights, beta) == pytest.approx(
        fan_optimum(matrices, beta), rel=1e-6)


@pytest.mark.parametrize("n_tasks", [2, 3])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("relative_beta", [1e-3, 0.05, 0.5])
def test_match_an_interior_point_solver(n_tasks, seed, relative_beta):
    problem, matrices, _ = group_problem(seed, n_tasks=n_tasks)
    beta = relative_beta * beta_max(matrices)
    weights, _, _, _ = solve(problem, beta)
    expected = cvxpy_optimum(matrices, beta)
    assert primal(matrices, weights, beta) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_three_tasks_agree_from_different_starts(seed):
    # A reference without the optional extra: the optimum from zero and from
    # a far, dense start (other working sets, other LPs) is the same.
    problem, matrices, _ = group_problem(seed, n_tasks=3)
    beta = 0.02 * beta_max(matrices)
    from_zero, _, _, _ = solve(problem, beta, tol=1e-10)
    dense = np.random.RandomState(seed).uniform(0, 0.5, from_zero.shape)
    from_dense, _, _, _ = solve(problem, beta, dense, tol=1e-10)
    assert primal(matrices, from_zero, beta) == pytest.approx(
        primal(matrices, from_dense, beta), rel=1e-9)
    np.testing.assert_array_equal(from_zero > 0, from_dense > 0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("relative_beta", [1e-3, 0.05, 0.5])
def test_duality_gap_is_certified_and_bounds_the_distance(seed, relative_beta):
    problem, matrices, _ = group_problem(seed, n_tasks=3)
    beta = relative_beta * beta_max(matrices)
    tol = 1e-6
    weights, alpha, gap, _ = solve(problem, beta, tol=tol)
    value = primal(matrices, weights, beta)
    assert 0 <= gap <= tol * value
    # the dual value is a lower bound on every objective
    assert alpha.sum() <= primal(matrices, 0 * weights, beta)
    assert value - gap == pytest.approx(alpha.sum(), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_kkt_conditions_at_the_solution(seed):
    problem, matrices, offsets = group_problem(seed, n_tasks=3)
    beta = 0.02 * beta_max(matrices)
    weights, alpha, gap, _ = solve(problem, beta, tol=1e-10)
    alphas = np.split(alpha, offsets[1:-1])
    sizes = np.diff(offsets)
    for G, w, a, n in zip(matrices, weights, alphas, sizes):
        margins = 1 + G @ w
        # alpha is the hinge subgradient: 1/N_t past the margin, 0 inside it
        assert np.all((a >= 0) & (a <= 1.0 / n * (1 + 1e-12)))
        np.testing.assert_allclose(a[margins > 1e-7], 1.0 / n, rtol=1e-6)
        np.testing.assert_allclose(a[margins < -1e-7], 0, atol=1e-9 / n)
    u = np.maximum(-np.array([G.T @ a for G, a in zip(matrices, alphas)]), 0)
    norms = np.linalg.norm(u, axis=0)
    active = weights.any(axis=0)
    tol = 1e-6
    # W_k = 0 => ||u_k|| <= beta; W_k != 0 => ||u_k|| = beta and W_k along u_k
    assert np.all(norms[~active] <= beta * (1 + tol))
    np.testing.assert_allclose(norms[active], beta, rtol=tol)
    directions = weights[:, active] / np.linalg.norm(weights[:, active], axis=0)
    np.testing.assert_allclose(directions, u[:, active] / beta, atol=tol)
    # and, checked here from the definitions alone, alpha is dual feasible
    # with a value within 1e-10 of P(W): weak duality bounds P(W) - P*
    value = primal(matrices, weights, beta)
    assert value - alpha.sum() <= 1e-10 * value


def test_weak_duality_of_the_scaled_dual_point():
    # The conjugate of the group norm on W >= 0: any alpha in the box, once
    # scaled, has ||max(0, -v_k)|| <= beta and a value below every P(W).
    problem, matrices, offsets = group_problem(0, n_tasks=3)
    beta = 0.05 * beta_max(matrices)
    rng = np.random.RandomState(1)
    upper = np.repeat(1.0 / np.diff(offsets), np.diff(offsets))
    for _ in range(20):
        W = rng.uniform(0, 0.3, (3, problem.n_basis)) * (rng.rand(3, problem.n_basis) < 0.3)
        alpha = rng.uniform(0, 1, upper.shape) * upper
        gap, value, feasible = problem.duality_gap(W, beta, alpha)
        v = np.array([G.T @ a for G, a in
                      zip(matrices, np.split(feasible, offsets[1:-1]))])
        assert np.linalg.norm(np.maximum(-v, 0), axis=0).max() <= beta * (1 + 1e-12)
        assert value == pytest.approx(primal(matrices, W, beta), rel=1e-9)
        assert feasible.sum() <= value and gap >= 0


@pytest.mark.parametrize("max_rounds", [1, 2, 100])
def test_never_worse_than_the_start(max_rounds):
    problem, matrices, _ = group_problem(1, n_tasks=3)
    beta = 0.01 * beta_max(matrices)
    optimum, _, _, _ = solve(problem, beta)
    rng = np.random.RandomState(0)
    for start in (optimum * (1 + 0.01 * rng.rand(*optimum.shape)),
                  optimum):
        weights, alpha, gap, _ = solve(problem, beta, start,
                                       max_rounds=max_rounds)
        value = primal(matrices, weights, beta)
        assert value <= primal(matrices, start, beta) + 1e-12
        assert gap >= 0 and value - gap <= primal(matrices, optimum, beta) + 1e-12


def test_phase_takes_rda_to_the_optimum_in_the_callers_units():
    # The units contract of _base._solve: data at unit scale, beta as given
    # to RDA; the weights come back in those units.
    problem, matrices, offsets = group_problem(2, n_tasks=3)
    differences, triplet_pairs = problem.differences, problem.triplet_pairs
    beta = 0.05 * beta_max(matrices)
    result = rda(differences, triplet_pairs, offsets, beta, max_iter=500,
                 random_state=0)
    exact = group_phase(problem, result, beta,
                        random_state=np.random.RandomState(0))
    optimum = solve(problem, beta)[0]
    assert exact.objective == pytest.approx(primal(matrices, optimum, beta),
                                            rel=1e-6)
    assert exact.objective == pytest.approx(HingeProblem(
        differences, triplet_pairs, offsets).objective(exact.weights, beta),
        rel=1e-9)
    assert exact.objective <= result.objective
    assert exact.converged and 0 <= exact.dual_gap <= 1e-6 * exact.objective
    assert exact.history[-1] == (result.n_iter, exact.objective,
                                 int(exact.weights.any(axis=0).sum()))
    np.testing.assert_array_equal(exact.weights > 0, optimum > 0)


def test_phase_reports_its_rounds_and_keeps_rda_if_highs_fails(
        monkeypatch, capsys):
    problem, matrices, offsets = group_problem(0, n_tasks=2)
    differences, triplet_pairs = problem.differences, problem.triplet_pairs
    beta = 0.05 * beta_max(matrices)
    result = rda(differences, triplet_pairs, offsets, beta, max_iter=250,
                 random_state=0)
    group_phase(problem, result, beta, verbose=True, name="Test")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[Test] exact phase, round 1: objective")
    assert "duality gap" in lines[-1]

    class Failing(ScipyLP):
        def solve(self, *args):
            raise RuntimeError("no solution")

    # A test of the phase's private LP failing: no public input makes
    # HiGHS fail on a well-posed problem.
    monkeypatch.setattr(exact_module, "working_set_lp", Failing)
    kept = group_phase(problem, result, beta)
    np.testing.assert_array_equal(kept.weights, result.weights)
    assert kept.dual_gap == pytest.approx(HingeProblem(
        differences, triplet_pairs, offsets).duality_gap(result.weights,
                                                         beta)[0], rel=1e-6)


@pytest.mark.parametrize("n_tasks", [1, 2])
def test_phase_out_of_budget_returns_its_best_point_with_its_gap(n_tasks,
                                                                 capsys):
    # No budget at all: no LP is solved, and RDA's point comes back with
    # the duality gap that bounds its distance to the optimum (not a
    # certificate: converged is False). Unbudgeted, the same phase
    # certifies the optimum.
    problem, matrices, offsets = group_problem(0, n_tasks=n_tasks)
    differences, triplet_pairs = problem.differences, problem.triplet_pairs
    beta = 0.05 * beta_max(matrices)
    result = rda(differences, triplet_pairs, offsets, beta, max_iter=250,
                 random_state=0)
    stopped = group_phase(problem, result, beta, budget=0.0, verbose=True,
                          name="Test")
    assert "out of budget" in capsys.readouterr().out
    # (through the phase's units and back: equal to rounding)
    np.testing.assert_allclose(stopped.weights, result.weights, rtol=1e-12)
    assert not stopped.converged
    gap = HingeProblem(differences, triplet_pairs, offsets).duality_gap(
        result.weights, beta)[0]
    assert stopped.dual_gap == pytest.approx(gap, rel=1e-6)
    assert stopped.dual_gap > 1e-3 * stopped.objective
    certified = group_phase(problem, result, beta)
    assert certified.converged
    assert certified.dual_gap <= 1e-6 * certified.objective
    assert certified.objective <= stopped.objective


def test_exact_weights_out_of_budget_keeps_the_start():
    problem, _, _ = group_problem(1, n_tasks=1)
    start = np.zeros((1, problem.n_basis))
    weights, n_rounds, gap, alpha, out_of_budget = exact_weights(
        problem, 0.01, start, budget=0.0)
    assert out_of_budget and n_rounds == 0
    np.testing.assert_array_equal(weights, start)
    # at W = 0 the gap is the objective (1) less the best dual value found
    assert 0 < gap <= 1.0


def test_an_lp_the_budget_cannot_finish_is_not_started():
    # The first LP's block, from an unbudgeted run; a budget of fewer
    # iterations on it than MIN_LP_ITERATIONS starts no LP (no work is
    # counted), where one of more starts it.
    problem, _, _ = group_problem(1, n_tasks=1)
    beta = 0.02 * exact_beta_max(problem)
    start = np.zeros((1, problem.n_basis))
    first = []
    exact_weights(problem, beta, start,
                  report_round=lambda *args: first.append(args))
    n_rows, n_atoms = first[0][4], first[0][5]
    entries = (n_rows + 1) * n_atoms
    few, lp = exact_module.MIN_LP_ITERATIONS - 1, ScipyLP(problem)
    weights, n_rounds, _, _, stopped = exact_weights(
        problem, beta, start, lp=lp, budget=few * entries)
    assert stopped and n_rounds == 0 and lp.work == 0
    np.testing.assert_array_equal(weights, start)
    enough = exact_weights(problem, beta, start,
                           budget=10 * exact_module.MIN_LP_ITERATIONS * entries)
    assert enough[1] >= 1


@pytest.mark.parametrize("n_tasks", [1, 2])
def test_budget_counts_simplex_work_not_seconds(n_tasks, monkeypatch):
    # The budget is simplex iterations times block entries: twice the
    # work of the unbudgeted phase changes nothing; half of it stops the
    # phase at a point between the start and the optimum, the same one on
    # every run (no clock is read).
    problem, _, _ = group_problem(1, n_tasks=n_tasks, n_basis=60,
                                  n_points=40)
    beta = 0.02 * exact_beta_max(problem)
    start = np.zeros((n_tasks, problem.n_basis))
    work = []
    solve = exact_module.dual_form_lp

    def counted(block, *args, **kwargs):
        solved = solve(block, *args, **kwargs)
        work.append(solved[2] * block.size)
        return solved

    monkeypatch.setattr(exact_module, "dual_form_lp", counted)
    optimum, n_rounds, _, _, stopped = exact_weights(problem, beta, start)
    monkeypatch.undo()
    assert not stopped and n_rounds > 2
    ample = exact_weights(problem, beta, start, budget=2 * sum(work))
    assert not ample[4] and ample[1] == n_rounds
    np.testing.assert_array_equal(ample[0], optimum)
    half = [exact_weights(problem, beta, start, budget=sum(work) / 2)
            for _ in range(2)]
    assert half[0][4] and 1 <= half[0][1] < n_rounds
    np.testing.assert_array_equal(half[0][0], half[1][0])
    assert (problem.objective(optimum, beta)
            <= problem.objective(half[0][0], beta)
            < problem.objective(start, beta))
