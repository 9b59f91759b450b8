"""Error and active basis elements against the basis size, on Segment.

The paper's figure: 3-NN test error and number of selected elements as the
basis set grows. Ours global (:class:`metric_learn_scml.SCML_Supervised`)
and local (:class:`metric_learn_scml.LocalSCML_Supervised`, tested by the
package's :class:`~metric_learn_scml.MetricKNeighborsClassifier`, where each
training point's own metric ranks the test points), at default parameters
apart from ``n_basis``, on the global table's Segment splits.
"""

import warnings

from metric_learn_scml import (LocalSCML_Supervised, MetricKNeighborsClassifier,
                               SCML_Supervised)

from .data import DEFAULT_PREPROCESSING
from .global_table import splits
from .protocol import RANDOM_STATE, metric_error, n_active
from .results import format_error, format_number, format_seconds, markdown_table

COLUMNS = ("dataset", "method", "n_basis", "error_mean", "error_se",
           "n_active_mean", "fit_seconds_median", "n_splits")
N_BASIS = (25, 50, 100, 200, 400, 800, 1600)
QUICK_N_BASIS = (50, 200, 800)
FULL_SPLITS = 3
QUICK_SPLITS = 1
MODELS = {
    "SCML_Supervised (ours)": SCML_Supervised,
    "LocalSCML_Supervised (ours)": lambda **params: MetricKNeighborsClassifier(
        LocalSCML_Supervised(**params), n_neighbors=3),
}


def run(quick=False, n_splits=None, preprocessing=DEFAULT_PREPROCESSING, progress=None):
    """Records of every model at every basis size on Segment splits.

    Fields: ``dataset, split, method, n_basis, error, fit_seconds,
    n_active``, or ``failed``; summarise them by ``("dataset", "method",
    "n_basis")``.
    """
    n_splits = n_splits or (QUICK_SPLITS if quick else FULL_SPLITS)
    records = []
    for split, data in enumerate(splits("segment", n_splits, preprocessing)):
        for name, make in MODELS.items():
            for n_basis in (QUICK_N_BASIS if quick else N_BASIS):
                record = dict(dataset="segment", split=split, method=name, n_basis=n_basis)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        error, seconds, model = metric_error(
                            make(n_basis=n_basis, random_state=RANDOM_STATE + split),
                            data.X_train, data.y_train, data.X_test, data.y_test)
                    record.update(error=error, fit_seconds=seconds, n_active=n_active(model))
                except Exception as exception:  # reported, not fatal
                    record["failed"] = "%s: %s" % (type(exception).__name__, exception)
                records.append(record)
                if progress is not None:
                    progress(dict(record, method="%s K=%d" % (name, n_basis)))
    return records


def table(rows):
    return markdown_table(
        ["method", "n_basis", "3-NN test error (%)", "active basis", "fit time (s)", "splits"],
        [[row["method"], row["n_basis"], format_error(row),
          format_number(row["n_active_mean"], 0), format_seconds(row["fit_seconds_median"]),
          row["n_splits"]] for row in rows])
