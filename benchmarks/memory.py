"""Peak memory of our SCML_Supervised fit on Letters (3,000 points, K = 1,000).

Issue 2's target: under 1 GiB. Each measurement runs in a fresh Python
process (``python -m benchmarks.memory N_BASIS``), which reports its maximum
resident set size after
loading the data and again after the fit (Linux's ``VmHWM``, else
``resource.getrusage(RUSAGE_SELF).ru_maxrss``): the first is the
interpreter, numpy, scikit-learn and the data; the difference is what the
fit added.
"""

import json
import resource
import subprocess
import sys
import time

COLUMNS = ("dataset", "method", "n_basis", "n_train", "rss_before_fit_mib",
           "peak_rss_mib", "fit_increase_mib", "fit_seconds", "n_active")
QUICK_N_BASIS = (1000,)
N_BASIS = (1000,)
GIB = 1024.0


def _max_rss_mib():
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


def measure_here(n_basis, n_train=3000):
    """Fit ours on a Letters training split in this process; report memory."""
    from threadpoolctl import threadpool_limits

    from metric_learn_scml import SCML_Supervised

    from .compare_global import DATASETS, DEFAULT_PREPROCESSING, PREPROCESSINGS
    from .datasets import paper_splits

    X, y = DATASETS["letters"].load()
    train, _, _ = next(paper_splits(y, 1, 0, (n_train, 1000, 1000)))
    (X_train,) = PREPROCESSINGS[DEFAULT_PREPROCESSING](X[train])
    before = _max_rss_mib()
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        model = SCML_Supervised(n_basis=n_basis, random_state=0).fit(X_train, y[train])
    seconds = time.perf_counter() - start
    peak = _max_rss_mib()
    return dict(dataset="letters", method="SCML_Supervised (ours)", n_basis=n_basis,
                n_train=n_train, rss_before_fit_mib=before, peak_rss_mib=peak,
                fit_increase_mib=peak - before, fit_seconds=seconds,
                n_active=model.n_active_basis_)


def run(quick=False):
    """Measure each basis size of :data:`N_BASIS` in its own process."""
    rows = []
    for n_basis in (QUICK_N_BASIS if quick else N_BASIS):
        completed = subprocess.run(
            [sys.executable, "-m", "benchmarks.memory", str(n_basis)],
            capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError("memory measurement failed:\n" + completed.stderr[-2000:])
        rows.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return rows


def table(rows):
    """Markdown table of :func:`run` rows against the 1 GiB target."""
    from .cli import markdown_table
    lines = [[row["dataset"], row["method"], row["n_basis"], row["n_train"],
              "%.0f" % row["rss_before_fit_mib"], "%.0f" % row["peak_rss_mib"],
              "%.0f" % row["fit_increase_mib"], "%.1f" % row["fit_seconds"],
              "met" if row["peak_rss_mib"] < GIB else "MISSED"]
             for row in rows]
    return markdown_table(["dataset", "method", "n_basis", "train points",
                           "RSS before fit (MiB)", "peak RSS (MiB)",
                           "added by the fit (MiB)", "fit (s)",
                           "peak < 1 GiB"], lines)


if __name__ == "__main__":
    print(json.dumps(measure_here(int(sys.argv[1]))))
