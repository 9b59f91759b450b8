"""The exact phase's budget: what the default fit spends, stage by stage (issue 39).

Under ``solver='auto'`` the exact phase may do as much work as RDA did
before it (``EXACT_WORK_RATIO``; below ``EXACT_FLOOR_TRIPLETS`` triplets,
``EXACT_MIN_WORK`` at least, about half a second), counted in
triplet-element entries so that a fit is the same on any machine; out of
budget it keeps its best point and reports the
duality gap. The table shows the budget in millions of entries, the
seconds per entry of work that RDA and the phase spent (whole stages:
set-up included), and checks the phase's seconds against RDA's. This table shows, for each problem, the default
fit of :class:`metric_learn_scml.SCML_Supervised` (``random_state=0``, one
thread, wall seconds of ``fit_stages_`` and of the whole fit): the RDA
stage, the exact phase and its budget, whether it certified the optimum
(else its relative duality gap), and, where asked, metric-learn's
``SCML_Supervised`` fitted on the same points, with both 3-NN test errors.

Problems:

- the global table's datasets, split 0 (:func:`benchmarks.global_table.splits`:
  the paper's split sizes and reductions; the test part is the split's
  test part);
- ``gen_N``: ``make_classification(n_samples=N, n_features=40,
  n_informative=15, n_classes=5, random_state=0)``, stratified 70/30
  (``random_state=0``), ``StandardScaler``: the problem of issue 39 at
  2,000 and 4,700 points, and :data:`SWEEP` sizes for the cliff check.
"""

import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from metric_learn_scml import SCML_Supervised
from metric_learn import SCML_Supervised as MetricLearnSCML

from .protocol import knn_error

GLOBAL = ("vehicle", "vowel", "segment", "letters", "mfeat_pix", "mnist5k", "newsgroups")
GENERATED = ("gen_2000", "gen_4700")
SWEEP = tuple("gen_%d" % n for n in (1000, 1500, 3000, 4000, 5000, 7000, 10000, 20000))
QUICK = ("vehicle", "gen_2000")
COLUMNS = ("problem", "n_train", "rda_s", "exact_s", "budget_mwork", "rda_ns_per_entry",
           "exact_ns_per_entry", "certified", "relative_gap", "fit_s", "active", "error",
           "ml_fit_s", "ml_error", "speedup")


def generated(n_samples):
    """The issue's generated problem at ``n_samples`` points, split and scaled."""
    X, y = make_classification(n_samples=n_samples, n_features=40, n_informative=15,
                               n_classes=5, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                        random_state=0)
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), y_train, scaler.transform(X_test), y_test


def problem(name):
    """``X_train, y_train, X_test, y_test`` of a problem name."""
    if name.startswith("gen_"):
        return generated(int(name[4:]))
    from .global_table import splits
    split = next(splits(name, 1))
    return split.X_train, split.y_train, split.X_test, split.y_test


def _timed(estimator, X, y):
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        estimator.fit(X, y)
    return time.perf_counter() - start


def measure(name, metric_learn=True):
    """One row of :data:`COLUMNS` for problem ``name``."""
    X_train, y_train, X_test, y_test = problem(name)
    ours = SCML_Supervised(random_state=0)
    seconds = _timed(ours, X_train, y_train)
    stages = {stage["stage"].split(" at ")[0]: stage for stage in ours.fit_stages_}
    exact = stages.get("exact phase", {})
    components = ours.components_
    rda = stages.get("RDA", {})
    row = dict(problem=name, n_train=X_train.shape[0],
               rda_s=rda.get("seconds", np.nan),
               rda_ns_per_entry=1e9 * rda.get("seconds", np.nan) / rda.get("work", np.nan),
               # (No LP started: no work to divide by.)
               exact_ns_per_entry=(1e9 * exact.get("seconds", np.nan)
                                   / exact["work"] if exact.get("work") else np.nan),
               exact_s=exact.get("seconds", np.nan),
               budget_mwork=exact.get("budget", np.nan) / 1e6,
               certified=exact.get("certified", "skipped" if not exact else "-"),
               relative_gap=exact.get("relative_duality_gap", np.nan),
               fit_s=seconds, active=ours.n_active_basis_,
               error=100 * knn_error(X_train @ components.T, y_train,
                                     X_test @ components.T, y_test))
    if metric_learn:
        theirs = MetricLearnSCML(random_state=0)
        row["ml_fit_s"] = _timed(theirs, X_train, y_train)
        row["ml_error"] = 100 * knn_error(theirs.transform(X_train), y_train,
                                          theirs.transform(X_test), y_test)
        row["speedup"] = row["ml_fit_s"] / seconds
    return row


def run(names, metric_learn=True, progress=None):
    """:func:`measure` each problem; ``progress`` hears of each row."""
    rows = []
    for name in names:
        rows.append(measure(name, metric_learn and name not in SWEEP))
        if progress is not None:
            progress("%s: fit %.2f s" % (name, rows[-1]["fit_s"]))
    return rows


def table(rows):
    """The rows as a labelled text table, then the targets' summary."""
    header = ("problem", "training points", "RDA (s)", "exact phase (s)",
              "budget (million entries)", "RDA ns / entry", "exact phase ns / entry",
              "certified", "relative gap", "whole fit (s)", "active elements",
              "3-NN error (%)", "metric-learn fit (s)", "metric-learn error (%)",
              "metric-learn / ours")

    def cell(value, digits=2):
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if isinstance(value, str):
            return value
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "-"
        return "%d" % value if isinstance(value, (int, np.integer)) else "%.*f" % (digits, value)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(
            [row["problem"], cell(row["n_train"]), cell(row["rda_s"]), cell(row["exact_s"]),
             cell(row["budget_mwork"], 0), cell(row["rda_ns_per_entry"], 1),
             cell(row["exact_ns_per_entry"], 1), cell(row["certified"]),
             cell(row["relative_gap"], 3), cell(row["fit_s"]), cell(row["active"]),
             cell(row["error"], 1), cell(row.get("ml_fit_s")), cell(row.get("ml_error"), 1),
             cell(row.get("speedup"), 1)]) + " |")
    ran = [row for row in rows if not np.isnan(row["exact_s"])]
    if ran:
        over = [row["problem"] for row in ran if row["exact_s"] > row["rda_s"] * 1.1]
        lines.append("")
        lines.append("exact phase within RDA's time (+10 %%): %d of %d problems%s"
                     % (len(ran) - len(over), len(ran),
                        "" if not over else " (over: %s)" % ", ".join(over)))
        certified = [row for row in ran if row["certified"] is True]
        gaps = [row["relative_gap"] for row in ran if row["certified"] is not True]
        lines.append("certified within the budget: %d of %d; largest relative gap returned: %s"
                     % (len(certified), len(ran), "%.3g" % max(gaps) if gaps else "-"))
    speed = [row["speedup"] for row in rows if row.get("speedup") is not None
             and row["n_train"] >= 1000]
    if speed:
        lines.append("speed-up over metric-learn's SCML_Supervised on the problems of 1,000 "
                     "training points or more: median %.1fx, least %.1fx" % (
                         float(np.median(speed)), min(speed)))
    return "\n".join(lines)
