"""The problem builder and the driver: the problem is a value built from
values; a fit is the path at one beta, scml_path the path on a grid."""

from dataclasses import replace

import numpy as np
import pytest

from metric_learn_scml import SCML_Supervised
from metric_learn_scml._defaults import (EXACT_FLOOR_TRIPLETS,
                                         EXACT_MAX_TRIPLETS, EXACT_MIN_WORK,
                                         EXACT_WORK_RATIO)
from metric_learn_scml._driver import (BetaSelection, FitLog, pair_problem,
                                       runs_exact_phase, safe_norm,
                                       solve_path, support_rerun,
                                       task_beta_max)
from metric_learn_scml._exact import beta_max, large_columns
from metric_learn_scml._pipelines import (grouped_by_task, labels_triplets,
                                          union_basis)
from metric_learn_scml._problem import HingeProblem, SolverResult
from metric_learn_scml._solvers import rda_work
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


def three_task_problem(seed=0):
    """The generated points' triplets cut into three tasks (of the same
    kind), on a basis of 30 elements."""
    X, basis, triplets = generated(seed, n=90, n_basis=30)
    n = triplets.shape[0]
    return pair_problem(X, basis, triplets, [0, n // 3, 2 * n // 3, n])


def problem_objective(problem, weights, beta):
    """The objective of the user's-units ``weights`` and ``beta``."""
    square = problem.unit ** 2
    return HingeProblem(problem.differences, problem.triplet_pairs,
                        problem.task_offsets).objective(weights / square,
                                                        beta * square)


@pytest.mark.parametrize("seed, factor", [(0, 0.01), (1, 0.1), (5, 0.03)])
def test_group_rda_reruns_on_its_support_and_never_raises_the_objective(
        seed, factor):
    problem = three_task_problem(seed)
    beta = factor * user_beta_max(problem)
    plain, = solve_path(problem, [beta], RDA, "rda",
                        random_state=np.random.RandomState(0))
    log = FitLog("test", False)
    again, = solve_path(problem, [beta], RDA, "rda", log=log,
                        random_state=np.random.RandomState(0), rerun=True)
    stages = [s for s in log.stages if s["stage"] == "RDA on its support"]
    first = large_columns(plain.weights)
    assert stages[0]["elements"] == first.shape[0]
    assert first.shape[0] < problem.differences.n_features
    before = problem_objective(problem, plain.weights, beta)
    after = problem_objective(problem, again.weights, beta)
    assert after <= before + 1e-12
    assert stages[0]["objective_before"] == pytest.approx(before, rel=1e-9)
    # Each run starts from the last point kept, on narrower columns; the
    # runs stop at the first that is not kept or does not narrow them.
    for earlier, later in zip(stages, stages[1:]):
        assert earlier["kept"]
        assert later["elements"] < earlier["elements"]
        assert later["objective_before"] == earlier["objective"]
    kept = [s for s in stages if s["kept"]]
    if not kept:
        np.testing.assert_array_equal(again.weights, plain.weights)
        return
    assert again.objective == pytest.approx(after, rel=1e-9)
    assert after == pytest.approx(kept[-1]["objective"], rel=1e-9)
    # the last point kept lives on its run's columns
    assert again.weights.any(axis=0).sum() == kept[-1]["active"]
    outside = np.setdiff1d(np.arange(problem.differences.n_features), first)
    assert not again.weights[:, outside].any()
    assert again.n_iter > plain.n_iter
    assert again.state.mean_gradient.shape == plain.weights.shape
    assert np.isfinite(again.state.mean_gradient).all()


def test_a_second_run_is_kept_where_it_lowers_the_objective():
    # (Seed and beta where it does, by about 6e-4 of the objective: far
    # beyond any rounding.)
    problem = three_task_problem(5)
    beta = 0.03 * user_beta_max(problem)
    log = FitLog("test", False)
    solve_path(problem, [beta], RDA, "rda", log=log,
               random_state=np.random.RandomState(0), rerun=True)
    assert log.stages[1]["stage"] == "RDA on its support"
    assert log.stages[1]["kept"] is True
    assert log.stages[1]["active"] <= log.stages[1]["elements"]


def test_one_task_and_partial_fit_runs_take_no_second_run():
    X, basis, triplets = generated(1)
    problem = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
    beta = 0.01 * user_beta_max(problem)
    log = FitLog("test", False)
    plain, = solve_path(problem, [beta], RDA, "rda",
                        random_state=np.random.RandomState(0))
    again, = solve_path(problem, [beta], RDA, "rda", log=log,
                        random_state=np.random.RandomState(0), rerun=True)
    np.testing.assert_array_equal(plain.weights, again.weights)
    assert [s["stage"] for s in log.stages] == ["RDA at beta=%.3g" % beta]


def test_the_runs_on_the_support_stay_within_their_budget():
    # The runs together do at most the budget's work: each takes at most
    # the iterations the rest pays for, and none starts that could not
    # take eval_every. The budget's unit is RDA's (rda_work).
    problem = three_task_problem(5)
    beta = 0.03 * user_beta_max(problem)
    plain, = solve_path(problem, [beta], RDA, "rda",
                        random_state=np.random.RandomState(0))
    square = problem.unit ** 2
    run = replace(plain, weights=plain.weights / square)
    sizes = np.diff(problem.task_offsets)

    def runs(budget):
        log = FitLog("test", False)
        support_rerun(problem, run, beta * square, dict(RDA),
                      np.random.RandomState(0), log, budget=budget)
        return log.stages
    free = runs(np.inf)
    assert free and free[0]["iterations"] > RDA["eval_every"]
    spent = [rda_work(s["iterations"], RDA["batch_size"], sizes,
                      s["elements"]) for s in free]
    # a budget short of one evaluation's worth starts nothing
    assert runs(rda_work(RDA["eval_every"] - 1, RDA["batch_size"], sizes,
                         free[0]["elements"])) == []
    # half the first run's work: that run is cut short
    cut = runs(spent[0] / 2)
    assert cut[0]["iterations"] <= free[0]["iterations"] / 2
    assert sum(rda_work(s["iterations"], RDA["batch_size"], sizes,
                        s["elements"]) for s in cut) <= spent[0] / 2


def test_no_second_run_where_it_would_keep_every_column():
    # On every column a second run is RDA's own run on other batches.
    problem = three_task_problem(5)
    K = problem.differences.n_features
    run = SolverResult(np.ones((3, K)), 1.0, 10, True, [(10, 1.0, K)])
    log = FitLog("test", False)
    assert support_rerun(problem, run, 1e-3, dict(RDA),
                         np.random.RandomState(0), log) is run
    assert log.stages == []


def test_a_second_run_that_does_worse_is_dropped():
    # From the exact optimum no RDA run on its support does better: the
    # optimum itself must come back.
    problem = three_task_problem(1)
    beta = 0.01 * user_beta_max(problem)
    optimum, = solve_path(problem, [beta], RDA, "exact",
                          random_state=np.random.RandomState(0))
    square = problem.unit ** 2
    run = SolverResult(optimum.weights / square, optimum.objective, 100,
                       True, [(100, optimum.objective, 1)],
                       state=optimum.state)
    log = FitLog("test", False)
    kept = support_rerun(problem, run, beta * square, dict(RDA),
                         np.random.RandomState(0), log)
    assert kept is run
    assert log.stages[-1]["kept"] is False
    assert log.stages[-1]["objective"] > log.stages[-1]["objective_before"]


def test_when_the_exact_phase_runs():
    assert runs_exact_phase("exact", 10 * EXACT_MAX_TRIPLETS, 0.0)
    assert runs_exact_phase("auto", EXACT_MAX_TRIPLETS, 1e-3)
    assert not runs_exact_phase("auto", EXACT_MAX_TRIPLETS + 1, 1e-3)
    # no bound on the weights keeps the LP well scaled at beta = 0
    assert not runs_exact_phase("auto", 100, 0.0)
    assert not runs_exact_phase("rda", 100, 1e-3)


@pytest.mark.parametrize("n_points", [EXACT_FLOOR_TRIPLETS // 30 - 1,
                                      EXACT_FLOOR_TRIPLETS // 30])
def test_the_exact_phase_budget_has_its_floor_below_1000_points_only(
        n_points):
    # 3 x 10 triplets a point: just below and at EXACT_FLOOR_TRIPLETS.
    rng = np.random.RandomState(0)
    X = rng.randn(n_points, 5)
    y = np.arange(n_points) % 3
    X[:, 0] += y
    model = SCML_Supervised(beta=1e-3, random_state=0).fit(X, y)
    stages = {stage["stage"].split(" at ")[0]: stage
              for stage in model.fit_stages_}
    n_triplets = stages["mining triplets"]["triplets"]
    assert n_triplets == 30 * n_points
    rda_work = EXACT_WORK_RATIO * stages["RDA"]["work"]
    floor = EXACT_MIN_WORK if n_triplets < EXACT_FLOOR_TRIPLETS else 0.0
    assert rda_work < EXACT_MIN_WORK
    assert stages["exact phase"]["budget"] == max(rda_work, floor)
    assert stages["exact phase"]["work"] <= stages["exact phase"]["budget"]


def test_the_triplets_are_built_from_values_alone():
    rng = np.random.RandomState(0)
    X, y = rng.randn(40, 3), np.tile([0, 1], 20)
    members = [np.flatnonzero(np.arange(40) % 4 < 2),
               np.flatnonzero(np.arange(40) % 4 >= 2)]
    first = labels_triplets(X, y, members, 2, 3, np.random.RandomState(5))
    again = labels_triplets(X, y, members, 2, 3, np.random.RandomState(5))
    for rows, mine, same in zip(members, first, again):
        np.testing.assert_array_equal(mine, same)
        # every triplet of a task is among its own points: anchor and
        # target of one class, the impostor of another
        assert np.isin(mine, rows).all() and mine.shape[0] > 0
        assert np.all(y[mine[:, 0]] == y[mine[:, 1]])
        assert np.all(y[mine[:, 0]] != y[mine[:, 2]])


def test_a_task_of_one_class_is_named():
    X, y = np.random.RandomState(0).randn(12, 2), np.tile([0, 1], 6)
    members = [np.arange(6), np.flatnonzero(y == 1)]
    with pytest.raises(ValueError, match="Task 'b' has a single class"):
        labels_triplets(X, y, members, 1, 1, np.random.RandomState(0),
                        names=np.array(["a", "b"]))
    # a later partial_fit batch: no triplet for that task, no error
    found = labels_triplets(X, y, members, 1, 1, np.random.RandomState(0),
                            names=np.array(["a", "b"]), partial=True)
    assert found[0].shape[0] > 0 and found[1].shape[0] == 0


def test_triplets_grouped_by_task_keep_their_order():
    triplets = np.arange(15).reshape(5, 3)
    grouped, offsets = grouped_by_task(triplets, np.array([1, 0, 1, 0, 2]), 3)
    np.testing.assert_array_equal(grouped[:, 0], [3, 9, 0, 6, 12])
    np.testing.assert_array_equal(offsets, [0, 2, 4, 5])
    alone, offsets = grouped_by_task(triplets, None, None)
    assert alone is triplets and list(offsets) == [0, 5]


def test_the_union_basis_keeps_each_element_once_and_checks_arrays():
    element = np.array([[1.0, 0.0], [0.0, 1.0]])
    union = union_basis("lda", 4, 2, lambda task, n: element, n_tasks=2)
    np.testing.assert_array_equal(np.unique(union, axis=0),
                                  np.unique(element, axis=0))
    assert union.shape[0] == 2
    with pytest.raises(ValueError, match="basis has 3 columns"):
        union_basis(np.ones((2, 3)), None, 2, None)


def test_each_task_beta_max_is_its_own_single_task_value():
    # A task's beta_max is that of a single-task model of its triplets;
    # with one task it is beta_max itself.
    problem = three_task_problem(0)
    found = task_beta_max(problem)
    assert found.shape == (3,) and np.all(found > 0)
    offsets = problem.task_offsets
    for t in range(3):
        X, basis, triplets = generated(0, n=90, n_basis=30)
        alone = pair_problem(X, basis, triplets[offsets[t]:offsets[t + 1]],
                             [0, offsets[t + 1] - offsets[t]])
        assert found[t] == pytest.approx(user_beta_max(alone), rel=1e-6)
    X, basis, triplets = generated(1)
    one = pair_problem(X, basis, triplets, [0, triplets.shape[0]])
    assert task_beta_max(one)[0] == pytest.approx(user_beta_max(one),
                                                  rel=1e-9)
    # at beta_max nothing is kept, just below something is
    beta = task_beta_max(one)[0]
    at, below = solve_path(one, [beta * 1.001, beta * 0.9], RDA, "exact",
                           random_state=np.random.RandomState(0))
    assert not at.weights.any() and below.weights.any()


def test_a_selection_carries_over_as_a_multiple_of_beta_max():
    betas = np.array([0.3, 0.03, 0.003])
    chosen = BetaSelection(0.03, betas, np.zeros(3), False, 0.1, 10,
                           beta_max=1.0)
    moved = chosen.rescaled(0.25)
    assert moved.beta == pytest.approx(0.0075)
    np.testing.assert_allclose(moved.betas, betas / 4)
    assert moved.beta in moved.betas and moved.beta_max == 0.25
    # a grid that is not relative to a beta_max, or a problem without one
    # (no element lowers any loss), keeps its values
    assert chosen._replace(beta_max=None).rescaled(0.25).beta == 0.03
    assert chosen.rescaled(0.0) is chosen
    assert safe_norm(np.array([3e200, 4e200])) == pytest.approx(5e200)
    assert safe_norm(np.array([3e-200, 4e-200])) == pytest.approx(5e-200)
