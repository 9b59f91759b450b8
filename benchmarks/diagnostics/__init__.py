"""Diagnostics: one-off measurements behind sections of ``results/NOTES.md``.

Each is a command of ``python -m benchmarks`` (listed under "diagnostics" in
its ``--help``): ``exact``, the exact optimum of a fit's problem against
the fit, and the path against independent fits (:mod:`.exact`; the
multi-task comparison needs the ``diagnostics`` extra, for cvxpy), and
``fit-time``, the default fit time of this checkout against another
(:mod:`.fit_time`).
"""
