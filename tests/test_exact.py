
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from metric_learn_scml import SCML_Supervised
from metric_learn_scml._exact import ScipyLP, beta_max, exact_weights
from metric_learn_scml._problem import (HingeProblem, SquaredDifferences,
                                        pair_index)
from metric_learn_scml._triplets import triplets_from_labels


def small_problem(seed, n=40, n_features=4, n_basis=12):
    """A generated problem: points, triplets from labels, a random basis."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_features)
    y = (X[:, 0] + 0.5 * rng.randn(n) > 0).astype(int) + (X[:, 1] > 1)
    basis = rng.randn(n_basis, n_features)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    return (X, basis) + problem_and_rows(X, basis, triplets_from_labels(X, y))


def problem_and_rows(X, basis, triplets):
    """The problem of ``triplets`` on ``basis``, and its rows ``G``."""
    pairs, triplet_pairs = pair_index(triplets)
    # no float32 table: the rows are computed in float64, as G below
    problem = HingeProblem(SquaredDifferences(X @ basis.T, pairs,
                                              max_bytes=0), triplet_pairs)
    P = X @ basis.T
    G = (np.square(P[triplets[:, 0]] - P[triplets[:, 1]])
         - np.square(P[triplets[:, 0]] - P[triplets[:, 2]]))
    return problem, G


def objective(G, w, beta):
    return np.maximum(1 + G @ w, 0).mean() + beta * w.sum()


def lp_optimum(G, beta):
    """The whole LP, solved by HiGHS (the reference)."""
    n, k = G.shape
    cost = np.concatenate([np.full(k, beta), np.full(n, 1.0 / n)])
    A = sp.hstack([sp.csr_matrix(G), -sp.eye(n)]).tocsr()
    result = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=(0, None),
                     method="highs")
    return result.fun


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("relative_beta", [1e-4, 1e-2, 0.3])
def test_working_set_lp_matches_the_whole_lp(seed, relative_beta):
    # with and without sparsity (small and large beta)
    _, _, problem, G = small_problem(seed)
    beta = relative_beta * beta_max(problem)
    weights, _, gap, _, _ = exact_weights(problem, beta, np.zeros(G.shape[1]),
                                       )
    weights = weights[0]
    expected = lp_optimum(G, beta)
    assert objective(G, weights, beta) == pytest.approx(expected, rel=1e-6)
    assert 0 <= gap <= 1e-6 * max(expected, 1e-12)
    assert np.all(weights >= 0)


@pytest.mark.parametrize("seed", range(3))
def test_kkt_conditions_at_the_solution(seed):
    _, _, problem, G = small_problem(seed)
    beta = 1e-2 * beta_max(problem)
    weights, _, _, full_alpha, _ = exact_weights(
        problem, beta, np.zeros(G.shape[1]))
    weights = weights[0]
    n = G.shape[0]
    margins = 1 + G @ weights
    # alpha is the hinge subgradient: 1/N past the margin, 0 inside it
    np.testing.assert_allclose(full_alpha[margins > 1e-7], 1.0 / n,
                               rtol=1e-6)
    assert np.all(full_alpha[margins < -1e-7] == 0)
    assert np.all((full_alpha >= 0) & (full_alpha <= 1.0 / n + 1e-15))
    gradient = G.T @ full_alpha
    tol = 1e-7 * beta + 1e-12
    # w_k = 0 => gradient_k >= -beta; w_k > 0 => gradient_k = -beta
    assert np.all(gradient[weights == 0] >= -beta - tol)
    np.testing.assert_allclose(gradient[weights > 0], -beta, atol=tol)
    # a sign error in g would break the conditions: the flipped problem's
    # optimum is not this one
    assert objective(-G, weights, beta) > objective(G, weights, beta)


@pytest.mark.parametrize("seed", range(3))
def test_folded_rows_enter_as_the_hinge_of_their_sum(seed):
    # Every triplet folded (as at W = 0, where all are past the margin) and
    # some explicit: the restricted LP minimises the explicit hinges, plus
    # the hinge of the folded ones' sum, plus beta |w|. Its value equals
    # its dual (the sum of the alpha it returns), is at least 0 (the sum
    # alone, with no hinge, is unbounded below) and at most the optimum
    # of the whole problem (it is a relaxation).
    _, _, problem, G = small_problem(seed)
    n, k = G.shape
    beta = 1e-2 * beta_max(problem)
    lp = ScipyLP(problem)
    lp.atoms.add(np.arange(k), np.ones((1, k)))
    explicit = np.zeros(n, dtype=bool)
    explicit[::5] = True
    lp.rows = in_lp = explicit
    folded = ~in_lp
    weights, row_ids, alpha = lp.solve(folded, beta)
    w = weights[0]
    margins = 1 + G @ w
    value = (np.maximum(margins[in_lp], 0).sum() / n
             + max(margins[folded].sum() / n, 0) + beta * w.sum())
    assert value == pytest.approx(alpha.sum(), rel=1e-6, abs=1e-9)
    assert 0 <= value <= lp_optimum(G, beta) * (1 + 1e-6)
    assert np.all((alpha >= 0) & (alpha <= 1.0 / n + 1e-15))
    # the folded triplets share one alpha
    assert np.ptp(alpha[folded]) <= 1e-15
    # alpha is dual-feasible on the LP's columns
    assert np.all(beta + G.T @ alpha >= -1e-7 * beta - 1e-12)


def test_start_with_every_triplet_inside_the_margin():
    # A start that orders every triplet by more than the margin band
    # leaves the first LP without a row (nothing explicit, nothing folded):
    # its optimum is W = 0, and the next rounds find the optimum.
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3)
    candidates = rng.randint(30, size=(400, 3))
    near = np.abs(X[candidates[:, 0], 0] - X[candidates[:, 1], 0])
    far = np.abs(X[candidates[:, 0], 0] - X[candidates[:, 2], 0])
    triplets = candidates[far > near + 0.5]   # ordered by feature 0
    basis = np.vstack([np.eye(3), rng.randn(5, 3)])
    problem, G = problem_and_rows(X, basis, triplets)
    start = np.zeros(basis.shape[0])
    start[0] = 10.0 / -G[:, 0].max()
    assert np.all(1 + G @ start < -0.1)
    beta = 1e-2 * beta_max(problem)
    weights, _, gap, _, _ = exact_weights(problem, beta, start,
                                       )
    expected = lp_optimum(G, beta)
    assert objective(G, weights[0], beta) == pytest.approx(expected,
                                                           rel=1e-6)
    assert gap <= 1e-6 * expected


def test_duality_gap_bounds_the_distance_to_the_optimum():
    _, _, problem, G = small_problem(0)
    beta = 1e-2 * beta_max(problem)
    optimum = lp_optimum(G, beta)
    rng = np.random.RandomState(0)
    for _ in range(5):
        w = np.maximum(rng.randn(G.shape[1]), 0) * 0.1
        gap = problem.duality_gap(w, beta)[0]
        assert objective(G, w, beta) - optimum <= gap + 1e-12


def test_beta_max_is_where_the_model_empties():
    _, _, problem, G = small_problem(1)
    largest = beta_max(problem)
    above = exact_weights(problem, largest * 1.01, np.ones(G.shape[1]))[0]
    below = exact_weights(problem, largest * 0.9, np.zeros(G.shape[1]))[0]
    assert not above.any() and below.any()


def test_estimator_reaches_the_lp_optimum_of_its_problem():
    _, _, problem, _ = small_problem(3)
    rng = np.random.RandomState(3)
    X = rng.randn(60, 5)
    y = rng.randint(0, 3, 60)
    X[:, 0] += y
    model = SCML_Supervised(beta=1e-3, n_basis=20, random_state=0).fit(X, y)
    triplets = triplets_from_labels(X, y)
    P = X @ model.basis_.T
    G = (np.square(P[triplets[:, 0]] - P[triplets[:, 1]])
         - np.square(P[triplets[:, 0]] - P[triplets[:, 2]]))
    assert model.objective_ == pytest.approx(lp_optimum(G, 1e-3), rel=1e-5)
    assert model.dual_gap_ <= 1e-6 * model.objective_


def scaled_triplets(scale):
    """Triplets of generated points ordered by two of their three features
    (the SCML docstring's data), the points multiplied by ``scale``."""
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3) * [1.0, 1.0, 5.0]
    idx = rng.randint(0, 60, size=(300, 3))
    near = ((X[idx[:, [0]]] - X[idx[:, 1:]])[..., :2] ** 2).sum(-1)
    swap = near[:, 0] > near[:, 1]
    idx[swap, 1:] = idx[swap, 1:][:, ::-1]
    return X[idx] * scale


def test_exact_phase_warns_when_its_certificate_is_loose():
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    from metric_learn_scml import SCML
    # Standardised scale, the default beta: certified, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = SCML(solver="exact", random_state=0).fit(scaled_triplets(1.0))
    assert model.dual_gap_ <= 1e-3 * model.objective_
    # Fewer triplets (200 of 40 points): 1.4e-4, which a 1e-4 threshold
    # flagged on a default fit.
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3) * [1, 1, 5]
    idx = rng.randint(0, 40, (200, 3))
    near = ((X[idx[:, [0]]] - X[idx[:, 1:]])[..., :2] ** 2).sum(-1)
    swap = near[:, 0] > near[:, 1]
    idx[swap, 1:] = idx[swap, 1:][:, ::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        SCML(random_state=0).fit(X[idx])
    # The same beta on data thirty times larger is 900 times smaller in
    # the problem's units: the gap is no longer a certificate, and the user
    # is told, as the multi-task learners tell it. (Ten times larger, the
    # best dual point of the rounds still certifies it: 9.5e-5.)
    with pytest.warns(ConvergenceWarning, match="relative duality gap"):
        model = SCML(solver="exact", random_state=0).fit(scaled_triplets(30.0))
    assert model.dual_gap_ > 1e-3 * model.objective_


def test_auto_solver_skips_the_lp_at_beta_zero():
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    from metric_learn_scml import SCML
    triplets = scaled_triplets(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = SCML(beta=0.0, random_state=0).fit(triplets)
    assert np.isnan(model.dual_gap_)
    # Asked for, the LP runs; its answer is certified or flagged (the
    # persistent HiGHS model of the highs extra stopped at a 12 % gap here,
    # scipy's linprog afresh certifies 1.7e-8).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SCML(beta=0.0, solver="exact", random_state=0).fit(triplets)
    flagged = any("relative duality gap" in str(warning.message)
                  for warning in caught)
    assert flagged == (model.dual_gap_ > 1e-3 * model.objective_)


def test_a_start_that_satisfies_every_triplet_by_far_is_scaled_to_the_margin():
    # On well-separated blobs RDA's iterate puts every triplet far inside
    # the margin: the band was empty, the phase's first LP returned W = 0,
    # and it gave up with RDA's point (objective 7x the optimum's). Scaled
    # so that its closest triplet is on the margin, the start keeps a zero
    # loss at a lower penalty; with no budget left that point is returned.
    from sklearn.datasets import make_blobs
    X, y = make_blobs(200, 5, centers=3, cluster_std=0.5, random_state=0)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rda_fit = SCML_Supervised(beta=1e-5, solver="rda", random_state=0).fit(X, y)
    triplets = triplets_from_labels(X, y, 3, 10, random_state=0)
    pairs, triplet_pairs = pair_index(triplets)
    problem = HingeProblem(SquaredDifferences(X @ rda_fit.basis_.T, pairs),
                           triplet_pairs)
    start = rda_fit.weights_[None]
    margins = problem.margins(start)
    assert margins.max() < -1.0
    beta = 1e-5
    weights, n_rounds, gap, _, out_of_budget = exact_weights(
        problem, beta, start, budget=0.0)
    assert out_of_budget and n_rounds == 0
    np.testing.assert_allclose(weights, start / (1.0 - margins.max()))
    # (to the float32 table's 7 digits of margins of order 10)
    assert problem.margins(weights).max() == pytest.approx(0.0, abs=1e-5)
    assert (problem.objective(weights, beta)
            < problem.objective(start, beta) / 2)
    # without a budget, the optimum, sparse and certified
    weights, _, gap, _, _ = exact_weights(problem, beta, start)
    # (HiGHS' tolerances are 1e-7 of the LP's order-one numbers)
    assert gap <= 1e-5 * problem.objective(weights, beta)
    assert np.count_nonzero(weights) < 0.1 * start.shape[1]
