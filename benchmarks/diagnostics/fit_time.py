"""Default fit time of ``SCML_Supervised()`` against another version of the package.

``python -m benchmarks fit-time --baseline DIR`` times ``SCML_Supervised()``
at its defaults on the training parts of the global table's splits (the
first ``--splits``, 3 by default, two seeds each) with this checkout's
package and with the ``metric_learn_scml`` package found in ``DIR`` (for
instance ``git worktree add /tmp/base <commit>``), and prints the median
fit time of each and their ratio per dataset. The issues' fit-time targets
("at most 2x today's") are read from this table.

Each version runs in a process of its own on one thread (so the two never
share a process or a thread pool), after one warm-up fit; the two
alternate ``ROUNDS`` times so that a slow spell of the machine falls on
both.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .. import global_table

ROUNDS = 2
SEEDS = (0, 1)
COLUMNS = ("dataset", "n_train", "n_features", "current_seconds", "baseline_seconds",
           "ratio")

# Run with the package under test first on sys.path; it imports nothing from
# benchmarks, whose layout differs between versions.
_CHILD = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from metric_learn_scml import SCML_Supervised
data = np.load(sys.argv[1])
keys = json.loads(sys.argv[2])
seeds = json.loads(sys.argv[3])
SCML_Supervised(random_state=0).fit(data[keys[0] + "_X"], data[keys[0] + "_y"])
times = {}
for key in keys:
    X, y = data[key + "_X"], data[key + "_y"]
    for seed in seeds:
        start = time.perf_counter()
        SCML_Supervised(random_state=seed).fit(X, y)
        times.setdefault(key, []).append(time.perf_counter() - start)
print(json.dumps(times))
"""


def _time(package_dir, data_path, keys):
    """``{key: [seconds per seed]}`` of one process importing ``package_dir``'s package."""
    env = dict(os.environ, PYTHONPATH=str(package_dir), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(data_path), json.dumps(keys),
         json.dumps(list(SEEDS))], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if done.returncode != 0:
        raise RuntimeError("timing %s failed:\n%s" % (package_dir, done.stderr[-2000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_baseline(baseline):
    """``baseline`` as a folder holding a ``metric_learn_scml`` package, or a clear error."""
    baseline = Path(baseline).resolve()
    if not (baseline / "metric_learn_scml" / "__init__.py").is_file():
        raise SystemExit("--baseline must be a folder holding a metric_learn_scml package "
                         "(e.g. git worktree add /tmp/base <commit>), got %s" % baseline)
    return baseline


def run(baseline, datasets=None, n_splits=3, progress=None):
    """One row of :data:`COLUMNS` per dataset: median fit times and their ratio."""
    baseline = check_baseline(baseline)
    current = Path(__file__).resolve().parents[2]
    datasets = list(datasets or global_table.DATASETS)
    arrays, keys, shapes = {}, {}, {}
    for name in datasets:
        for split, part in enumerate(global_table.splits(name, n_splits)):
            key = "%s_%d" % (name, split)
            arrays[key + "_X"], arrays[key + "_y"] = part.X_train, part.y_train
            keys.setdefault(name, []).append(key)
            shapes[name] = part.X_train.shape
    times = {"current": {}, "baseline": {}}
    with tempfile.TemporaryDirectory() as folder:
        data_path = Path(folder) / "splits.npz"
        np.savez(data_path, **arrays)
        all_keys = [key for name in datasets for key in keys[name]]
        for _ in range(ROUNDS):
            for label, package in (("current", current), ("baseline", baseline)):
                for key, seconds in _time(package, data_path, all_keys).items():
                    times[label].setdefault(key, []).extend(seconds)
                if progress:
                    progress("%s timed" % label)
    rows = []
    for name in datasets:
        medians = {label: float(np.median([t for key in keys[name] for t in times[label][key]]))
                   for label in times}
        rows.append(dict(dataset=name, n_train=shapes[name][0], n_features=shapes[name][1],
                         current_seconds=round(medians["current"], 4),
                         baseline_seconds=round(medians["baseline"], 4),
                         ratio=round(medians["current"] / medians["baseline"], 2)))
    return rows


def baseline_commit(baseline):
    """The commit checked out in ``baseline``, or ``'unknown'``."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=baseline, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
