"""Peak memory of our SCML_Supervised fit on Letters (3,000 points, K = 1,000).

Issue 2's target: under 1 GiB. A full run also measures how SCML-Local
grows with the training set (:data:`LOCAL_N_TRAIN` Letters points, default
parameters): its kernel PCA holds an ``n x n`` kernel, so its memory is
quadratic in ``n`` (no target; the user guide quotes these figures).
Each measurement runs in a fresh Python process (:func:`measure_here`),
which reports its maximum resident set size after loading the data and
again after the fit (Linux's ``VmHWM``, else
``resource.getrusage(RUSAGE_SELF).ru_maxrss``): the first is the
interpreter, numpy, scikit-learn and the data; the difference is what the
fit added. This module imports little, so that the first stays small.
"""

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

COLUMNS = ("dataset", "method", "n_basis", "n_train", "rss_before_fit_mib",
           "peak_rss_mib", "fit_increase_mib", "fit_seconds", "n_active")
QUICK_N_BASIS = (1000,)
N_BASIS = (1000,)
# Training sizes of the SCML-Local measurement (Letters has 20,000 points;
# 2,000 stay out for the split's validation and test parts).
LOCAL_N_TRAIN = (3000, 10000, 18000)
GIB = 1024.0
GLOBAL_METHOD = "SCML_Supervised (ours)"
LOCAL_METHOD = "LocalSCML_Supervised (ours)"
# What the fresh process runs, from the root of the repository.
PROBE = ("import json; from benchmarks.memory import measure_here; "
         "print(json.dumps(measure_here(%r, %r, %r)))")


def max_rss_mib():
    """Peak resident set size of this process so far, in MiB.

    Linux's ``VmHWM`` belongs to the running program; ``ru_maxrss`` would
    also count the parent's pages at the fork that started this process.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    # Kilobytes on Linux, bytes on macOS; only reached off Linux.
    scale = 1024.0 if sys.platform.startswith("linux") else 1024.0 ** 2
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale


def measure_here(n_basis, n_train=3000, local=False):
    """Fit ours on a Letters training split in this process; report memory.

    ``local``: fit :class:`LocalSCML_Supervised` (``n_basis=None`` for its
    default) instead of :class:`SCML_Supervised`.
    """
    from threadpoolctl import threadpool_limits

    from metric_learn_scml import LocalSCML_Supervised, SCML_Supervised

    from .data import DATASETS, DEFAULT_PREPROCESSING, PREPROCESSINGS
    from .protocol import paper_splits

    X, y = DATASETS["letters"].load()
    train, _, _ = next(paper_splits(y, 1, 0, (n_train, 1000, 1000)))
    (X_train,) = PREPROCESSINGS[DEFAULT_PREPROCESSING](X[train])
    before = max_rss_mib()
    start = time.perf_counter()
    learner = LocalSCML_Supervised if local else SCML_Supervised
    with threadpool_limits(limits=1):
        model = learner(n_basis=n_basis, random_state=0).fit(X_train, y[train])
    seconds = time.perf_counter() - start
    peak = max_rss_mib()
    return dict(dataset="letters", method=LOCAL_METHOD if local else GLOBAL_METHOD,
                n_basis=model.basis_.shape[0], n_train=n_train, rss_before_fit_mib=before,
                peak_rss_mib=peak, fit_increase_mib=peak - before, fit_seconds=seconds,
                n_active=model.n_active_basis_)


def run(quick=False):
    """Each basis size of :data:`N_BASIS` (and, unless ``quick``, each
    SCML-Local training size of :data:`LOCAL_N_TRAIN`) in its own process."""
    jobs = [(n_basis, 3000, False) for n_basis in (QUICK_N_BASIS if quick else N_BASIS)]
    if not quick:
        jobs += [(None, n_train, True) for n_train in LOCAL_N_TRAIN]
    rows = []
    for job in jobs:
        completed = subprocess.run([sys.executable, "-c", PROBE % job], capture_output=True,
                                   text=True, cwd=Path(__file__).resolve().parents[1])
        if completed.returncode != 0:
            raise RuntimeError("memory measurement failed:\n" + completed.stderr[-2000:])
        rows.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return rows


def table(rows):
    """Markdown table of :func:`run` rows against the 1 GiB target."""
    from .results import markdown_table
    return markdown_table(
        ["dataset", "method", "n_basis", "train points", "RSS before fit (MiB)",
         "peak RSS (MiB)", "added by the fit (MiB)", "fit (s)", "peak < 1 GiB"],
        [[row["dataset"], row["method"], row["n_basis"], row["n_train"],
          "%.0f" % row["rss_before_fit_mib"], "%.0f" % row["peak_rss_mib"],
          "%.0f" % row["fit_increase_mib"], "%.1f" % row["fit_seconds"],
          ("met" if row["peak_rss_mib"] < GIB else "MISSED")
          if row["method"] == GLOBAL_METHOD else "-"] for row in rows])
