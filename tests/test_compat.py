"""Tests for ``metric_learn_scml._compat``: metric-learn on scikit-learn."""

import inspect
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import sklearn.covariance
import sklearn.utils.extmath
import sklearn.utils.validation

# Importing the package applies the patches before metric_learn is used.
import metric_learn_scml  # noqa: F401
import metric_learn
import metric_learn._util
import metric_learn.base_metric
import metric_learn.sdml
from metric_learn_scml import _compat


@pytest.fixture(scope="module")
def iris_pairs(iris):
    X, y = iris
    idx = np.random.RandomState(0).choice(len(X), size=(80, 2))
    idx = idx[idx[:, 0] != idx[:, 1]]
    return X[idx], np.where(y[idx[:, 0]] == y[idx[:, 1]], 1, -1)


def _future_warnings(caught, text):
    return [w for w in caught
            if issubclass(w.category, FutureWarning)
            and text in str(w.message)]


# Every metric-learn learner, with a tiny fit on iris. SDML is given the
# small balance_param that iris needs: with metric-learn's default (0.5) its
# graphical lasso input is not positive definite on iris, on any scikit-learn.
SUPERVISED_LEARNERS = [
    metric_learn.LMNN(n_neighbors=3, max_iter=10),
    metric_learn.NCA(max_iter=10),
    metric_learn.LFDA(k=2),
    metric_learn.MLKR(max_iter=10),
    metric_learn.ITML_Supervised(max_iter=10, random_state=0),
    metric_learn.SDML_Supervised(prior="covariance", balance_param=1e-5,
                                 random_state=0),
    metric_learn.LSML_Supervised(max_iter=10, random_state=0),
    metric_learn.MMC_Supervised(max_iter=10, random_state=0),
    metric_learn.RCA_Supervised(n_chunks=20, random_state=0),
    metric_learn.SCML_Supervised(n_basis=20, max_iter=100, output_iter=50,
                                 random_state=0),
]


def _check_fitted_metric(learner, caught):
    M = learner.get_mahalanobis_matrix()
    assert M.shape == (4, 4) and np.isfinite(M).all()
    assert np.linalg.eigvalsh(M).min() >= -1e-8 * np.abs(M).max()
    # scikit-learn 1.6 and 1.7 warn about the old keyword; 1.8+ raise.
    assert not _future_warnings(caught, "force_all_finite")


@pytest.mark.parametrize("learner", SUPERVISED_LEARNERS,
                         ids=lambda learner: type(learner).__name__)
def test_supervised_learners_fit_transform(iris, learner):
    X, y = iris
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X_t = learner.fit(X, y).transform(X)
    assert X_t.shape[0] == X.shape[0]
    _check_fitted_metric(learner, caught)


@pytest.mark.parametrize("name", ["ITML", "SDML", "MMC", "LSML", "SCML",
                                  "RCA"])
def test_weakly_supervised_learners_fit(iris, iris_pairs, name):
    X, y = iris
    pairs, pair_labels = iris_pairs
    triplets = X[metric_learn.Constraints(y).generate_knntriplets(X, 2, 2)]
    # Each (similar, dissimilar) couple of pairs as a quadruplet.
    quadruplets = np.concatenate([pairs[pair_labels == 1][:20],
                                  pairs[pair_labels == -1][:20]], axis=1)
    chunks = np.repeat(np.arange(50), 3)[np.argsort(y, kind="stable")]
    learner, data = {
        "ITML": (metric_learn.ITML(max_iter=10), (pairs, pair_labels)),
        "SDML": (metric_learn.SDML(prior="covariance", balance_param=1e-5),
                 (pairs, pair_labels)),
        "MMC": (metric_learn.MMC(max_iter=10), (pairs, pair_labels)),
        "LSML": (metric_learn.LSML(max_iter=10), (quadruplets,)),
        "SCML": (metric_learn.SCML(n_basis=20, max_iter=100, output_iter=50,
                                   random_state=0), (triplets,)),
        "RCA": (metric_learn.RCA(), (X, chunks)),
    }[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learner.fit(*data)
    _check_fitted_metric(learner, caught)


def test_sdml_metric_is_scikit_learn_graphical_lasso_precision(iris_pairs):
    # SDML's metric is the precision that graphical_lasso finds for
    # prior^-1 + balance_param * sum_i y_i d_i d_i^T (metric-learn's sdml.py).
    pairs, y = iris_pairs
    balance, sparsity = 1e-3, 0.01
    sdml = metric_learn.SDML(prior="identity", balance_param=balance,
                             sparsity_param=sparsity).fit(pairs, y)
    diff = pairs[:, 0] - pairs[:, 1]
    emp_cov = np.eye(4) + balance * (diff.T * y) @ diff
    _, precision = sklearn.covariance.graphical_lasso(emp_cov, alpha=sparsity)
    np.testing.assert_allclose(sdml.get_mahalanobis_matrix(), precision,
                               rtol=1e-6, atol=1e-9)


def test_pairs_learner_calibrate_threshold_and_predict(iris_pairs):
    pairs, y = iris_pairs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learner = metric_learn.ITML(max_iter=10).fit(pairs, y)
        learner.calibrate_threshold(pairs, y)
        predicted = learner.predict(pairs)
    assert set(np.unique(predicted)) <= {-1, 1}
    assert not _future_warnings(caught, "force_all_finite")
    # scikit-learn 1.8 and 1.9 deprecate stable_cumsum, which it calls.
    assert not _future_warnings(caught, "stable_cumsum")


def _patched_names():
    return (metric_learn._util.check_array, metric_learn._util.check_X_y,
            metric_learn.base_metric.stable_cumsum,
            sklearn.utils.extmath.stable_cumsum,
            metric_learn.sdml.graphical_lasso)


def test_apply_is_idempotent():
    patched = _patched_names()
    _compat.apply()
    _compat.apply()
    assert patched == _patched_names()
    # One wrapper around scikit-learn's own function, not a wrapper of one.
    assert (metric_learn._util.check_array.__wrapped__
            is sklearn.utils.validation.check_array)
    assert (metric_learn._util.check_X_y.__wrapped__
            is sklearn.utils.validation.check_X_y)
    if "cov_init" not in inspect.signature(
            sklearn.covariance.graphical_lasso).parameters:
        assert (metric_learn.sdml.graphical_lasso.__wrapped__
                is sklearn.covariance.graphical_lasso)


def test_scikit_learn_functions_are_not_patched():
    assert sklearn.utils.check_array is sklearn.utils.validation.check_array
    assert not hasattr(sklearn.utils.validation.check_array, "__wrapped__")


def test_wrapper_keeps_force_all_finite_semantics():
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    checked = metric_learn._util.check_array(X, force_all_finite="allow-nan")
    assert np.isnan(checked[0, 1])
    with pytest.raises(ValueError, match="NaN"):
        metric_learn._util.check_array(X, force_all_finite=True)


def test_nan_input_raises_value_error(iris):
    X, y = iris
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        metric_learn.LMNN(n_neighbors=3, max_iter=10).fit(X, y)


def test_stable_cumsum_is_available():
    assert callable(sklearn.utils.extmath.stable_cumsum)
    assert metric_learn.base_metric.stable_cumsum is _compat.stable_cumsum


def test_stable_cumsum_matches_numpy_and_warns_when_unstable():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for axis in (None, 0, 1):
        out = _compat.stable_cumsum(a, axis=axis)
        assert out.dtype == np.float64
        expected = np.cumsum(a, axis=axis, dtype=np.float64)
        np.testing.assert_array_equal(out, expected)
    r = np.random.RandomState(0).rand(100_000)
    with pytest.warns(RuntimeWarning, match="cumsum was found to be unstable"):
        _compat.stable_cumsum(r, rtol=0, atol=0)


def test_package_import_works_without_sklearn_stable_cumsum():
    # scikit-learn 1.10 removes stable_cumsum, which metric-learn imports at
    # module level: importing metric_learn_scml first must still let
    # metric_learn import and a pairs learner fit, with the keyword patched.
    # scikit-learn < 1.10 uses stable_cumsum itself, so the scikit-learn
    # modules metric-learn needs are imported before it is deleted.
    code = textwrap.dedent("""
        import sklearn.cluster, sklearn.covariance, sklearn.datasets
        import sklearn.decomposition, sklearn.discriminant_analysis
        import sklearn.metrics, sklearn.neighbors, sklearn.preprocessing
        import sklearn.utils.extmath
        del sklearn.utils.extmath.stable_cumsum
        import metric_learn_scml
        import metric_learn
        import numpy as np
        pairs = np.array([[[0., 0.], [0., 1.]], [[0., 0.], [5., 5.]],
                          [[1., 1.], [1., 2.]], [[1., 1.], [6., 6.]]])
        metric_learn.ITML(max_iter=5).fit(pairs, [1, -1, 1, -1]).predict(pairs)
        assert hasattr(metric_learn._util.check_array, "__wrapped__")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, "-c", code], env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
