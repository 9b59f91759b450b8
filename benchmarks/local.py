"""SCML-Local against SCML-Global on real data (the paper's local table).

Protocol of Shi, Bellet and Sha (AAAI 2014, sections "Experiments" and
"Local Metric Learning"), that of :mod:`benchmarks.global_table`: the same
splits and preprocessing (min-max scaling with training statistics; see
``benchmarks/results/README.md``), hyper-parameters chosen on the
validation split by 3-NN error, 3-NN test error
(``MetricKNeighborsClassifier``), mean and standard error over splits.

- ``SCML-Global``: :class:`SCML_Supervised`, ``beta`` from
  :data:`GLOBAL_BETA_GRID`;
- ``SCML-Local``: :class:`LocalSCML_Supervised`, ``beta`` from
  :data:`LOCAL_BETA_GRID` and the embedding dimension :math:`D'` from
  :func:`embedding_dims` (the paper's 40, or 100 on Letters, and half of
  it); one ``beta`` for both stages, as the paper tunes it
  (``global_beta=None``).

``fit_seconds`` is the fit at the chosen values (the local one includes its
global stage and kernel PCA). The default datasets are the paper's four UCI
sets; :data:`EXTRA_DATASET_KEYS` (the digit and text stand-ins) run on
request. :func:`timing` measures the local model's cost on its own.
"""

import time

import numpy as np

from metric_learn_scml import (LocalSCML_Supervised, MetricKNeighborsClassifier,
                               SCML_Supervised)

from .data import DEFAULT_PREPROCESSING
from .global_table import Method, quiet_fit, run_job, splits, tuned
from .protocol import RANDOM_STATE, lookup
from .results import markdown_table, paper_value

DATASET_KEYS = ("vehicle", "vowel", "segment", "letters")
# Run on request (``--datasets``): the stand-ins for USPS (the paper's D'
# was 100) and BBC (40), where the global table has LMNN to compare with.
EXTRA_DATASET_KEYS = ("mfeat_pix", "mnist5k", "newsgroups")
GLOBAL_BETA_GRID = (1e-6, 1e-5, 1e-4, 1e-3)
LOCAL_BETA_GRID = (1e-6, 1e-5, 1e-4)
# The paper's D' per dataset; the grid adds half of it.
PAPER_EMBEDDING_DIM = {"vehicle": 40, "vowel": 40, "segment": 40, "letters": 100,
                       "mfeat_pix": 100, "mnist5k": 100, "newsgroups": 40}
QUICK_SPLITS = 2
FULL_SPLITS = 20


def embedding_dims(dataset):
    """:math:`D'` values tried on ``dataset``: half the paper's, and the paper's."""
    return (PAPER_EMBEDDING_DIM[dataset] // 2, PAPER_EMBEDDING_DIM[dataset])


def _knn(learner):
    return MetricKNeighborsClassifier(learner, n_neighbors=3)


def _methods(dataset):
    """SCML-Global and SCML-Local, each tuned on validation, for ``dataset``."""
    grid = [(beta, dim) for beta in LOCAL_BETA_GRID for dim in embedding_dims(dataset)]
    return {"global": Method("global", "SCML-Global", lambda split, seed: tuned(
        split, lambda beta: quiet_fit(_knn(SCML_Supervised(
            beta=beta, random_state=seed)), split), GLOBAL_BETA_GRID)),
        "local": Method("local", "SCML-Local", lambda split, seed: tuned(
            split, lambda value: quiet_fit(_knn(LocalSCML_Supervised(
                beta=value[0], global_beta=None, embedding_dim=value[1],
                random_state=seed)), split), grid))}


def run(quick=False, n_splits=None, datasets=None, progress=None):
    """Records of SCML-Global and SCML-Local on every split of each dataset.

    ``datasets`` are keys of :data:`DATASET_KEYS` (the default) and
    :data:`EXTRA_DATASET_KEYS`; ``n_splits`` defaults to 20, or 2 when
    ``quick``. Records are those of :func:`benchmarks.global_table.run`.
    """
    n_splits = n_splits or (QUICK_SPLITS if quick else FULL_SPLITS)
    keys = lookup(datasets or DATASET_KEYS, dict.fromkeys(DATASET_KEYS + EXTRA_DATASET_KEYS),
                  "dataset")
    return [record for key in keys for record in run_job(
        key, dict.fromkeys(("global", "local"), n_splits), DEFAULT_PREPROCESSING,
        progress, _methods(key))]


def table(rows):
    """Markdown lines: errors (ours and the paper's), fit times and ratios."""
    seconds = {(row["dataset"], row["method"]): row["fit_seconds_median"] for row in rows}
    lines = []
    for row in rows:
        paper = paper_value(row["method"], row["dataset"])
        lines.append([
            row["dataset"], row["method"],
            "%.1f +- %.1f" % (row["error_mean"], row["error_se"]),
            "-" if paper is None else "%.1f" % paper,
            "%.2f" % row["fit_seconds_median"], "%.1fx" % (
                row["fit_seconds_median"] / seconds.get((row["dataset"], "SCML-Global"), np.nan)),
            "%.0f" % row["n_active_mean"], row["n_splits"], row["chosen"]])
    return markdown_table(
        ["dataset", "method", "3-NN error % (ours)", "paper", "fit s (median)",
         "fit / global", "active basis", "splits", "chosen (beta,D')"], lines)


def timing(datasets=DATASET_KEYS, repeats=3):
    """Markdown lines: the local model's fit time and query cost on their own.

    On the first split of each dataset, ``SCML_Supervised()`` and
    ``LocalSCML_Supervised(embedding_dim=<paper's D'>)`` (the same
    ``beta``) are fitted alternately ``repeats`` times, so that both see the
    same load of the machine: the median fit times and their ratio. Then
    the best of ``repeats`` times of ``pairwise_distances`` of the 1,000
    Letters test points against the 3,000 training points, under a model
    fitted on them (embedding, weights and distances).
    """
    lines = []
    for key in datasets:
        split = next(splits(key, 1))
        times = {"global": [], "local": []}
        for _ in range(repeats):
            for name, learner in (
                    ("global", SCML_Supervised(random_state=RANDOM_STATE)),
                    ("local", LocalSCML_Supervised(embedding_dim=PAPER_EMBEDDING_DIM[key],
                                                   random_state=RANDOM_STATE))):
                times[name].append(quiet_fit(learner, split)[1])
        global_seconds, local_seconds = np.median(times["global"]), np.median(times["local"])
        lines.append([key, "%.2f" % global_seconds, "%.2f" % local_seconds,
                      "%.1fx" % (local_seconds / global_seconds)])
    split = next(splits("letters", 1))
    model = quiet_fit(LocalSCML_Supervised(embedding_dim=PAPER_EMBEDDING_DIM["letters"],
                                           random_state=RANDOM_STATE), split)[0]
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        model.pairwise_distances(split.X_test, split.X_train)
        best = min(best, time.perf_counter() - start)
    return markdown_table(["dataset", "global fit (s)", "local fit (s)", "ratio"], lines) + [
        "", "pairwise_distances, 1,000 Letters queries x 3,000 training points "
        "(%d active elements): %.3f s" % (model.n_active_basis_, best)]
