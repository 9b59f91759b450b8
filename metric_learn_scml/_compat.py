"""Patches that let metric-learn 0.7.0 run on scikit-learn >= 1.7.

metric-learn 0.7.0, its newest release, relies on three scikit-learn APIs
that scikit-learn has since renamed, deprecated or removed (the keyword fix
is merged upstream but unreleased). This module patches names inside
metric-learn's modules once, when :mod:`metric_learn_scml` is imported;
scikit-learn's own functions are never replaced, and the only addition to
scikit-learn is ``stable_cumsum`` where it no longer exists. It must be
imported before anything else imports :mod:`metric_learn` (on scikit-learn
>= 1.10, ``import metric_learn`` fails otherwise).

Patches
-------
1. ``force_all_finite`` keyword (scikit-learn >= 1.6).
   ``metric_learn._util`` passes ``force_all_finite`` to
   :func:`sklearn.utils.check_array` and
   :func:`sklearn.utils.validation.check_X_y`. scikit-learn 1.6 renamed it
   to ``ensure_all_finite`` (1.6 and 1.7 accept the old name with a
   ``FutureWarning``) and 1.8 removed it, so every metric-learn estimator
   raises ``TypeError`` on scikit-learn >= 1.8. Where the installed
   ``check_array``/``check_X_y`` has ``ensure_all_finite`` (found from their
   signatures, not from version strings) the names ``check_array`` and
   ``check_X_y`` inside ``metric_learn._util`` are replaced with thin wrappers
   that rename the keyword. This fixes 1.8+ and silences the
   ``FutureWarning`` on 1.6 and 1.7, with unchanged semantics.

2. ``sklearn.utils.extmath.stable_cumsum`` (deprecated in 1.8, removed in
   1.10). ``metric_learn.base_metric`` imports it at module level, so on
   scikit-learn >= 1.10 ``import metric_learn`` fails: when it is missing,
   :func:`stable_cumsum` (a copy of scikit-learn's) is added to
   ``sklearn.utils.extmath`` before metric-learn is imported. On 1.8 and 1.9
   calling scikit-learn's version emits a ``FutureWarning``, which would
   reach users on every fit of a metric-learn pairs learner (its
   ``calibrate_threshold``), so ``metric_learn.base_metric`` is pointed at
   the copy on every version (on 1.7 the two are the same code).

3. ``cov_init`` keyword of :func:`sklearn.covariance.graphical_lasso`
   (deprecated in 1.3 as having no effect, removed in 1.5). SDML and
   SDML_Supervised pass it, so they raise ``TypeError`` (wrapped in a
   ``RuntimeError``) on every supported scikit-learn. Where the installed
   ``graphical_lasso`` has no ``cov_init``, the name inside
   ``metric_learn.sdml`` is replaced with a wrapper that drops it. The
   result is unchanged: metric-learn's start ``sigma0`` is ``emp_cov`` with
   a constant added to its diagonal, and scikit-learn before 1.3, which
   still read ``cov_init``, replaced its diagonal by ``emp_cov``'s.

Remove this module, and its import in ``metric_learn_scml/__init__.py``, once
metric-learn releases these fixes and the package requires that release.
"""

import functools
import inspect
import warnings

import numpy as np
import sklearn.utils.extmath

__all__ = ["apply", "stable_cumsum"]

# Marks our wrappers so that ``apply`` never wraps a wrapper.
_WRAPPER_MARK = "_metric_learn_scml_compat_wrapper"


def stable_cumsum(arr, axis=None, rtol=1e-05, atol=1e-08):
    """Cumulative sum in float64 that warns if its last value is not the sum.

    Same code as scikit-learn's ``sklearn.utils.extmath.stable_cumsum``
    (1.7), which scikit-learn deprecated in 1.8 and removes in 1.10.

    Parameters
    ----------
    arr : array-like
        Values to sum cumulatively.
    axis : int, default=None
        Axis along which the cumulative sum is computed. None sums over the
        flattened array.
    rtol : float, default=1e-05
        Relative tolerance, see :func:`numpy.allclose`.
    atol : float, default=1e-08
        Absolute tolerance, see :func:`numpy.allclose`.

    Returns
    -------
    out : ndarray of float64
        The cumulative sums along ``axis``.

    Warns
    -----
    RuntimeWarning
        If the last cumulative sum differs from ``np.sum`` beyond the
        tolerances.
    """
    out = np.cumsum(arr, axis=axis, dtype=np.float64)
    expected = np.sum(arr, axis=axis, dtype=np.float64)
    if not np.allclose(
        out.take(-1, axis=axis), expected, rtol=rtol, atol=atol, equal_nan=True
    ):
        warnings.warn(
            "cumsum was found to be unstable: "
            "its last element does not correspond to sum",
            RuntimeWarning,
        )
    return out


def _translate_force_all_finite(check):
    """Wrap ``check`` to pass ``force_all_finite`` as ``ensure_all_finite``.

    Parameters
    ----------
    check : callable
        scikit-learn's ``check_array`` or ``check_X_y``.

    Returns
    -------
    wrapper : callable
        ``check`` taking ``force_all_finite`` under its new name.
    """

    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        # Both names together are the caller's error: let ``check`` report it.
        if "force_all_finite" in kwargs and "ensure_all_finite" not in kwargs:
            kwargs["ensure_all_finite"] = kwargs.pop("force_all_finite")
        return check(*args, **kwargs)

    setattr(wrapper, _WRAPPER_MARK, True)
    return wrapper


def _drop_cov_init(graphical_lasso):
    """Wrap ``graphical_lasso`` to accept and ignore ``cov_init``.

    Parameters
    ----------
    graphical_lasso : callable
        scikit-learn's :func:`sklearn.covariance.graphical_lasso`.

    Returns
    -------
    wrapper : callable
        ``graphical_lasso`` taking the removed ``cov_init`` keyword.
    """

    @functools.wraps(graphical_lasso)
    def wrapper(*args, cov_init=None, **kwargs):
        return graphical_lasso(*args, **kwargs)

    setattr(wrapper, _WRAPPER_MARK, True)
    return wrapper


def _wrap_once(module, name, wrap, needed):
    """Replace ``module.name`` by ``wrap(module.name)`` unless already done.

    Only where ``needed(parameters)`` is true of the installed function's
    parameter names: the patch follows the signature, not version strings.
    """
    function = getattr(module, name)
    if getattr(function, _WRAPPER_MARK, False):
        return
    if needed(inspect.signature(function).parameters):
        setattr(module, name, wrap(function))


def apply():
    """Apply the patches described in the module docstring; safe to repeat.

    Imports :mod:`metric_learn` (after providing ``stable_cumsum``, which it
    needs at import). Called when this module is imported.
    """
    if not hasattr(sklearn.utils.extmath, "stable_cumsum"):
        sklearn.utils.extmath.stable_cumsum = stable_cumsum

    import metric_learn._util
    import metric_learn.base_metric
    import metric_learn.sdml

    metric_learn.base_metric.stable_cumsum = stable_cumsum

    for name in ("check_array", "check_X_y"):
        _wrap_once(metric_learn._util, name, _translate_force_all_finite,
                   lambda parameters: "ensure_all_finite" in parameters)
    _wrap_once(metric_learn.sdml, "graphical_lasso", _drop_cov_init,
               lambda parameters: "cov_init" not in parameters)


apply()
