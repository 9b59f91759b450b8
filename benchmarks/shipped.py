"""Defaults on the datasets scikit-learn ships: no download, one minute.

For each of iris, wine, breast cancer and digits: the breadth table's
protocol (:mod:`benchmarks.breadth`: stratified 70/30 splits, features
standardised on the training part, 3-NN test error) for the Euclidean
metric, :class:`~metric_learn_scml.SCML_Supervised` and
:class:`~metric_learn_scml.LocalSCML_Supervised` at their default
parameters. It shows what a user gets without tuning; warnings raised
during the fits are counted.
"""

from . import breadth
from .data import SHIPPED
from .results import format_error, format_seconds, markdown_table

METHODS = ("euclidean", "ours", "local")


def run(n_splits=5, names=SHIPPED, progress=None):
    """Summary rows (errors in percent) with the number of warnings, ``n_warnings``."""
    records = breadth.run(names, METHODS, n_splits, progress=progress)
    rows = breadth.summary_rows(records)
    for row in rows:
        row["n_warnings"] = sum(record.get("n_warnings", 0) for record in records
                                if (record["dataset"], record["method"])
                                == (row["dataset"], row["method"]))
    return rows


def table(rows):
    return markdown_table(
        ["dataset", "method", "3-NN test error (%)", "fit time (s, median)", "warnings",
         "splits"],
        [[row["dataset"], row["method"], format_error(row),
          format_seconds(row["fit_seconds_median"]), row["n_warnings"], row["n_splits"]]
         for row in rows])
