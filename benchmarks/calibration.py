"""The Euclidean calibration: which preprocessing reproduces the paper's Euclidean column.

The paper says only that the data were "normalised as in PLML". Its tables'
Euclidean column decides: the 3-NN test error of every dataset of the
global table (and of the Reuters R8 stand-in) under each preprocessing of
:data:`benchmarks.data.PREPROCESSINGS`, applied after the reduction of the
digit and text stand-ins, on the global table's splits; and the mean over
tasks of the per-task error (the paper's st-Euc) of the multi-task
benchmarks, on the multi-task table's splits.
"""

from .data import DATASETS, PREPROCESSINGS
from .global_table import DATASETS as GLOBAL_DATASETS
from .multitask import TaskSplit
from .multitask import DATASET_KEYS as TASK_DATASETS
from .protocol import RANDOM_STATE, knn_error, paper_splits


def run(n_splits=5):
    """Records (``dataset``, ``split``, ``method`` the preprocessing, ``error``)."""
    records = []
    for key in [*GLOBAL_DATASETS, "reuters_r8"]:
        dataset = DATASETS[key]
        X, y = dataset.load()
        for split, (train, _, test) in enumerate(paper_splits(y, n_splits, RANDOM_STATE,
                                                              dataset.sizes)):
            X_train, X_test = dataset.reduced(X[train], X[test])
            for name, scale in PREPROCESSINGS.items():
                scaled_train, scaled_test = scale(X_train, X_test)
                records.append(dict(dataset=key, split=split, method=name, fit_seconds=0.0,
                                    error=knn_error(scaled_train, y[train], scaled_test,
                                                    y[test])))
    for key in TASK_DATASETS:
        for split in range(n_splits):
            raw = DATASETS[key].tasks(random_state=split)
            for name, scale in PREPROCESSINGS.items():
                data = dict(raw, **dict(zip(("X_train", "X_test"),
                                            scale(raw["X_train"], raw["X_test"]))))
                records.append(dict(
                    dataset=key + " tasks", split=split, method=name, fit_seconds=0.0,
                    error=TaskSplit(data).task_errors(lambda X, task: X, "test")))
    return records
