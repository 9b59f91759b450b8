import numpy as np
import pytest
from scipy.optimize import minimize

from metric_learn_scml._local import forward_backward
from metric_learn_scml._problem import (FactoredProjections, HingeProblem,
                                        NonNegativeGroupL21, NonNegativeL1,
                                        SquaredDifferences,
                                        group_soft_threshold, pair_index,
                                        penalty_for)
from metric_learn_scml._solvers import components_from_weights, rda
from metric_learn_scml._triplets import triplets_from_labels


def prox_by_definition(values, threshold, nonnegative):
    """Minimise 1/2 ||W - V||^2 + tau sum_k ||W[:, k]|| numerically."""
    shape = values.shape

    def f(flat):
        W = flat.reshape(shape)
        return (0.5 * np.sum((W - values) ** 2)
                + threshold * np.linalg.norm(W, axis=0).sum())

    bounds = [(0, None)] * values.size if nonnegative else None
    start = np.maximum(values, 0) if nonnegative else values
    best = minimize(f, start.ravel(), method="L-BFGS-B" if nonnegative
                    else "Powell", bounds=bounds,
                    options={"maxiter": 20000})
    return best.x.reshape(shape), best.fun


@pytest.mark.parametrize("nonnegative", [True, False])
@pytest.mark.parametrize("n_rows", [1, 3])
def test_group_prox_matches_its_definition(nonnegative, n_rows):
    rng = np.random.RandomState(n_rows)
    for trial in range(5):
        values = rng.randn(n_rows, 6)
        threshold = rng.uniform(0.1, 1.5)
        closed = group_soft_threshold(values, threshold, nonnegative)
        if nonnegative:
            assert np.all(closed >= 0)

        def f(W):
            return (0.5 * np.sum((W - values) ** 2)
                    + threshold * np.linalg.norm(W, axis=0).sum())

        _, numeric_value = prox_by_definition(values, threshold, nonnegative)
        # the closed form is at least as good as a numerical minimiser
        assert f(closed) <= numeric_value + 1e-6
        # and it is the minimiser: random feasible perturbations are worse
        for _ in range(20):
            other = closed + 1e-3 * rng.randn(*closed.shape)
            if nonnegative:
                other = np.maximum(other, 0)
            assert f(other) >= f(closed) - 1e-12


def test_nonnegative_group_prox_differs_from_clipping_the_unconstrained_one():
    # The exact prox clips before taking the norm; clipping after (the
    # original code) shrinks by the norm of the whole column.
    values = np.array([[3.0], [-4.0]])
    exact = group_soft_threshold(values, 1.0, nonnegative=True)
    np.testing.assert_allclose(exact, [[2.0], [0.0]])
    clipped_after = np.maximum(group_soft_threshold(values, 1.0), 0)
    assert not np.allclose(exact, clipped_after)


def test_one_row_prox_is_the_nonnegative_l1_prox():
    values = np.array([[-2.0, 0.5, 3.0, 1.0]])
    np.testing.assert_allclose(group_soft_threshold(values, 1.0, True),
                               [[0.0, 0.0, 2.0, 0.0]])


def make_problem(seed=0, n=60, n_features=4, n_basis=12):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_features)
    y = rng.randint(0, 3, size=n)
    X[:, 0] += 2 * y
    basis = rng.randn(n_basis, n_features)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    triplets = triplets_from_labels(X, y)
    return X, basis, triplets


def brute_force_objective(X, basis, triplets, w, beta):
    M = (basis.T * w) @ basis
    i, j, k = triplets.T
    d_ij = np.einsum("nd,de,ne->n", X[i] - X[j], M, X[i] - X[j])
    d_ik = np.einsum("nd,de,ne->n", X[i] - X[k], M, X[i] - X[k])
    return np.maximum(1 + d_ij - d_ik, 0).mean() + beta * w.sum()


@pytest.mark.parametrize("max_bytes", [0, 1 << 30])
def test_objective_matches_brute_force(max_bytes):
    X, basis, triplets = make_problem()
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs, max_bytes=max_bytes)
    assert (differences.table is None) == (max_bytes == 0)
    w = np.random.RandomState(3).uniform(0, 0.5, size=basis.shape[0])
    problem = HingeProblem(differences, triplet_pairs)
    total = problem.objective(w, 0.01)
    loss = problem.loss(problem.margins(w))
    expected = brute_force_objective(X, basis, triplets, w, 0.01)
    assert total == pytest.approx(expected, rel=1e-5)
    assert loss == pytest.approx(expected - 0.01 * w.sum(), rel=1e-5)


@pytest.mark.parametrize("n_zero", [0, 3, 8, 12])
def test_distances_without_a_table_with_sparse_weights(n_zero):
    # Without a table, sparse weights are computed on their weighted
    # columns only. With 12 columns and n_zero zeros per row (different in
    # the two rows): dense (0, and 3 whose union is near-dense), compact
    # (8) and all zero (12). The distances are those of the full table.
    X, basis, triplets = make_problem()
    pairs, _ = pair_index(triplets)
    on_the_fly = SquaredDifferences(X @ basis.T, pairs, max_bytes=0)
    tabulated = SquaredDifferences(X @ basis.T, pairs)
    assert on_the_fly.table is None and tabulated.table is not None
    rng = np.random.RandomState(n_zero)
    W = rng.uniform(0, 0.5, size=(2, basis.shape[0]))
    W[0, rng.permutation(basis.shape[0])[:n_zero]] = 0.0
    W[1, rng.permutation(basis.shape[0])[:n_zero]] = 0.0
    expected = np.einsum("pk,tk->tp", tabulated.table.astype(float), W)
    np.testing.assert_allclose(on_the_fly.distances(W), expected, rtol=1e-5)
    np.testing.assert_allclose(on_the_fly.distances(W, 7, 30),
                               expected[:, 7:30], rtol=1e-5)
    assert np.all(on_the_fly.distances(np.zeros_like(W)) == 0)


@pytest.mark.parametrize("n_zero", [0, 2, 10])
def test_distances_through_the_metric_on_few_features(n_zero):
    # With the points and basis behind the projections and more active
    # elements than features squared, a distance is (x_a - x_b)^T M
    # (x_a - x_b): the same numbers as the squared differences' sum, for
    # each task's row, on a block too.
    X, basis, triplets = make_problem(n_features=3, n_basis=30)
    pairs, _ = pair_index(triplets)
    through = SquaredDifferences(X @ basis.T, pairs, max_bytes=0,
                                 factors=FactoredProjections(X, basis))
    rng = np.random.RandomState(n_zero)
    W = rng.uniform(0, 0.5, size=(2, basis.shape[0]))
    W[0, rng.permutation(basis.shape[0])[:n_zero]] = 0.0
    P = X @ basis.T
    expected = W @ np.square(P[pairs[:, 0]] - P[pairs[:, 1]]).T
    np.testing.assert_allclose(through.distances(W), expected, rtol=1e-10,
                               atol=1e-12 * expected.max())
    np.testing.assert_allclose(through.distances(W, 5, 17), expected[:, 5:17],
                               rtol=1e-10, atol=1e-12 * expected.max())
    # restricted to some columns, the metric is theirs
    kept = np.arange(0, 30, 2)
    np.testing.assert_allclose(
        through.columns(kept).distances(W[:, kept]),
        W[:, kept] @ np.square(P[pairs[:, 0]][:, kept]
                               - P[pairs[:, 1]][:, kept]).T,
        rtol=1e-10, atol=1e-12 * expected.max())


@pytest.mark.parametrize("max_bytes", [0, 1 << 30])
def test_objective_on_task_blocks_matches_brute_force(max_bytes):
    # Pairs grouped by task (each task's distances on its own block) give
    # the sum over tasks of each task's brute-force objective.
    X, basis, triplets = make_problem()
    task_offsets = [0, 100, len(triplets)]
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, task_offsets)
    differences = SquaredDifferences(X @ basis.T, pairs, max_bytes=max_bytes,
                                     pair_offsets=pair_offsets)
    W = np.random.RandomState(5).uniform(0, 0.5, size=(2, basis.shape[0]))
    problem = HingeProblem(differences, triplet_pairs, task_offsets)
    total, loss = problem.objective(W, 0.01), problem.loss(problem.margins(W))
    expected_loss = sum(
        brute_force_objective(X, basis, triplets[lo:hi], W[t], 0.0)
        for t, (lo, hi) in enumerate(zip(task_offsets[:-1], task_offsets[1:])))
    assert loss == pytest.approx(expected_loss, rel=1e-5)
    assert total == pytest.approx(
        expected_loss + 0.01 * np.linalg.norm(W, axis=0).sum(), rel=1e-5)
    # the block distances equal those of the whole table
    np.testing.assert_allclose(
        differences.distances(W[1], pair_offsets[1], pair_offsets[2])[0],
        differences.distances(W[1])[0, pair_offsets[1]:pair_offsets[2]],
        rtol=1e-5)


def test_rda_decreases_the_objective_and_keeps_the_best():
    X, basis, triplets = make_problem()
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs)
    result = rda(differences, triplet_pairs, [0, len(triplets)], beta=1e-3,
                 max_iter=3000, eval_every=100, random_state=0)
    values = np.array([h[1] for h in result.history])
    assert values[0] == 1.0                      # w = 0
    assert result.objective == pytest.approx(values.min())
    assert result.objective < 0.5
    assert np.all(result.weights >= 0)
    recomputed = brute_force_objective(X, basis, triplets, result.weights[0],
                                       1e-3)
    assert result.objective == pytest.approx(recomputed, rel=1e-4)


def test_rda_sparsity_grows_with_beta():
    X, basis, triplets = make_problem(n_basis=30)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs)
    active = []
    for beta in [1e-4, 1e-2, 1e-1]:
        result = rda(differences, triplet_pairs, [0, len(triplets)], beta=beta,
                     max_iter=2000, random_state=0)
        active.append(np.count_nonzero(result.weights))
    assert active[0] >= active[1] >= active[2]
    assert active[0] > active[2]


@pytest.mark.parametrize("max_bytes", [0, 1 << 30])
def test_rda_on_a_grid_runs_each_beta_as_alone(max_bytes):
    # every beta of a grid sees the batches a lone run with the same seed
    # draws, and stops where that run stops (the betas stop at different
    # times)
    X, basis, triplets = make_problem(n_basis=30)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs, max_bytes=max_bytes)
    betas = [1e-1, 1e-2, 1e-4]
    results = rda(differences, triplet_pairs, [0, len(triplets)], betas,
                  max_iter=4000, eval_every=100, random_state=5)
    weights = np.array([result.weights[0] for result in results])
    n_iter = [result.n_iter for result in results]
    for beta, row, steps in zip(betas, weights, n_iter):
        alone = rda(differences, triplet_pairs, [0, len(triplets)], beta=beta,
                    max_iter=4000, eval_every=100, random_state=5)
        assert steps == alone.n_iter
        # Two code paths over 4,000 averaged steps: weights near the
        # soft-threshold lose digits to cancellation, so the tolerance is
        # relative to the largest weight (a chain of BLAS calls, not bits).
        np.testing.assert_allclose(row, alone.weights[0], rtol=1e-6,
                                   atol=1e-9 * np.abs(row).max())
    assert len(set(n_iter)) > 1
    assert np.count_nonzero(weights[0]) < np.count_nonzero(weights[-1])


def test_rda_is_invariant_to_the_scale_of_the_data():
    # data scaled by s with beta * s^2 is the same problem, solved by w / s^2
    X, basis, triplets = make_problem()
    pairs, triplet_pairs = pair_index(triplets)
    results = []
    for scale in [1.0, 100.0]:
        differences = SquaredDifferences(scale * X @ basis.T, pairs)
        results.append(rda(differences, triplet_pairs, [0, len(triplets)],
                           beta=1e-3 * scale ** 2, max_iter=1000,
                           random_state=0))
    assert results[0].objective == pytest.approx(results[1].objective,
                                                 rel=1e-3)
    np.testing.assert_allclose(results[0].weights,
                               results[1].weights * 100.0 ** 2, rtol=1e-2,
                               atol=1e-6)


def test_components_from_weights():
    rng = np.random.RandomState(0)
    basis = rng.randn(10, 4)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    for n_active in [0, 2, 10]:
        w = np.zeros(10)
        w[:n_active] = rng.uniform(0.5, 2, n_active)
        L = components_from_weights(w, basis)
        M = (basis.T * w) @ basis
        np.testing.assert_allclose(L.T @ L, M, atol=1e-10)
        assert L.shape == (max(1, min(n_active, 4)), 4)


def test_objective_sample_estimates_the_objective_of_every_task():
    # Two tasks of different sizes: the sample keeps each task's share and
    # its pair grouping, and its objective is the full one up to sampling
    # error (exact when the sample is everything).
    rng = np.random.RandomState(0)
    X, y = rng.randn(400, 4), rng.randint(0, 3, 400)
    first = triplets_from_labels(X[:300], y[:300])
    second = 300 + triplets_from_labels(X[300:], y[300:])
    triplets = np.concatenate([first, second])
    offsets = [0, len(first), len(triplets)]
    pairs, triplet_pairs, pair_offsets = pair_index(triplets, offsets)
    differences = SquaredDifferences(X @ rng.randn(10, 4).T, pairs,
                                     pair_offsets=pair_offsets)
    weights = np.abs(rng.randn(2, 10)) * 0.1
    problem = HingeProblem(differences, triplet_pairs, offsets)
    full = problem.objective(weights, 1e-3)
    everything = problem.sample(len(triplets), rng)
    assert everything.objective(weights, 1e-3) == pytest.approx(full,
                                                                rel=1e-6)
    sample = problem.sample(3000, rng)
    shares = sample.task_sizes
    assert shares.sum() == 3000 and abs(shares[0] / shares[1]
                                        - len(first) / len(second)) < 0.01
    assert abs(sample.objective(weights, 1e-3) - full) < 0.05 * full


def test_factored_projections_give_the_same_differences():
    # Beyond PROJECTION_BYTES, P = X B^T is kept as its factors: rows,
    # tables, distances and column subsets must agree with the dense P.
    from metric_learn_scml._problem import FactoredProjections
    rng = np.random.RandomState(0)
    X, basis = rng.randn(50, 4), rng.randn(9, 4)
    pairs = rng.randint(0, 50, size=(70, 2))
    dense = SquaredDifferences(X @ basis.T, pairs, max_bytes=0)
    factored = SquaredDifferences(FactoredProjections(X, basis), pairs,
                                  max_bytes=0)
    tabled = SquaredDifferences(FactoredProjections(X, basis), pairs)
    ids = rng.randint(0, 70, size=(3, 5))
    np.testing.assert_allclose(factored.rows(ids), dense.rows(ids),
                               rtol=1e-7, atol=1e-12 * np.abs(dense.rows(ids)).max())
    np.testing.assert_allclose(tabled.rows(ids), dense.rows(ids), rtol=1e-6)
    weights = np.abs(rng.randn(2, 9)) * (rng.rand(2, 9) > 0.6)
    np.testing.assert_allclose(factored.distances(weights),
                               dense.distances(weights), rtol=1e-7)
    columns = FactoredProjections(X, basis)[:, [1, 4]]
    np.testing.assert_allclose(columns[np.arange(50)], (X @ basis.T)[:, [1, 4]])


def test_large_data_are_never_projected(monkeypatch):
    import metric_learn_scml._problem as problem_module
    from metric_learn_scml._problem import FactoredProjections

    # A test of the private switch itself: the real one is at 1 GiB of
    # projections, beyond a unit test's data.
    monkeypatch.setattr(problem_module, "PROJECTION_BYTES", 1000)
    rng = np.random.RandomState(0)
    X = rng.randn(200, 3)
    differences, unit = problem_module.scaled_differences(
        X, rng.randn(8, 3), rng.randint(0, 200, size=(30, 2)))
    assert isinstance(differences.projections, FactoredProjections)


def test_every_solver_caps_its_batch_at_the_triplets():
    # Draws are with replacement: a batch beyond the triplets only repeats
    # them, at its full cost per step. Each solver caps it itself, so that
    # no caller (a fit, the selection's path, scml_path) can forget.
    X, basis, triplets = make_problem(n=20)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs)
    n_triplets = len(triplets)
    common = dict(max_iter=4, eval_every=2, random_state=0)
    rda_runs = [rda(differences, triplet_pairs, [0, n_triplets], beta=1e-3,
                    batch_size=b, **common) for b in (n_triplets, 10 ** 5)]
    np.testing.assert_array_equal(rda_runs[1].weights, rda_runs[0].weights)
    assert rda_runs[1].history == rda_runs[0].history
    path_runs = [[result.weights for result in rda(
        differences, triplet_pairs, [0, n_triplets], [1e-2, 1e-4],
        batch_size=b, **common)] for b in (n_triplets, 10 ** 5)]
    np.testing.assert_array_equal(path_runs[1], path_runs[0])
    embedding = np.column_stack([np.random.RandomState(0).randn(len(X), 3),
                                 np.ones(len(X))])
    start = np.zeros((4, basis.shape[0]))
    start[-1] = np.sqrt(rda_runs[0].weights[0])
    local_runs = [forward_backward(differences, triplet_pairs, triplets[:, 0],
                                   embedding, start, beta=1e-3, batch_size=b,
                                   **common)
                  for b in (n_triplets, 10 ** 5)]
    np.testing.assert_array_equal(local_runs[1].weights, local_runs[0].weights)


def test_a_batch_covering_the_triplets_is_one_exact_pass_per_step():
    # batch_size >= the triplets: each step is the batch's expectation, the
    # subgradient of every triplet once (b / N_t times their sum), so the
    # run draws nothing (at a given scale, any random_state gives the same
    # weights) and a step matches the hand-computed full subgradient.
    X, basis, triplets = make_problem(n=20)
    pairs, triplet_pairs = pair_index(triplets)
    differences = SquaredDifferences(X @ basis.T, pairs, max_bytes=0)
    n = len(triplets)
    runs = [rda(differences, triplet_pairs, [0, n], beta=1e-3,
                batch_size=10 ** 5, max_iter=50, eval_every=10, scale=1.0,
                random_state=seed) for seed in (0, 1)]
    np.testing.assert_array_equal(runs[0].weights, runs[1].weights)
    # one step by hand: RDA's closed form from W = 0 (module docstring)
    one = rda(differences, triplet_pairs, [0, n], beta=1e-3,
              batch_size=10 ** 5, max_iter=1, eval_every=1, scale=1.0,
              keep_best=False)
    problem = HingeProblem(differences, triplet_pairs)
    g = problem.rows(np.arange(n))
    mean_gradient = g.sum(axis=0) / n          # every margin is 1 at W = 0
    np.testing.assert_allclose(one.state.mean_gradient[0], mean_gradient,
                               rtol=1e-6, atol=1e-12)
    assert runs[0].objective < one.objective


def test_each_penalty_is_its_own_proximal_minimiser():
    # prox(v, tau) minimises 1/2 ||w - v||^2 + tau * penalty(w) on w >= 0:
    # no point of a grid around it does better (a sign error in the
    # threshold, v + tau, fails at once).
    rng = np.random.RandomState(0)
    for n_tasks, kind in ((1, NonNegativeL1), (3, NonNegativeGroupL21)):
        penalty = penalty_for(n_tasks)
        assert isinstance(penalty, kind)
        values, tau = rng.randn(n_tasks, 6), 0.4
        best = penalty.prox(values, tau)
        assert np.all(best >= 0)

        def cost(w):
            return (0.5 * np.sum((w - values) ** 2)
                    + tau * HingeProblem.penalty(w))
        for _ in range(200):
            other = np.maximum(best + 0.05 * rng.randn(*best.shape), 0.0)
            assert cost(best) <= cost(other) + 1e-12
    # at one task the group norm is the l1 norm: the same operator
    values = rng.randn(1, 50)
    np.testing.assert_allclose(NonNegativeL1.prox(values, 0.3),
                               NonNegativeGroupL21.prox(values, 0.3))
