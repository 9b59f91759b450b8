"""Both shrinkages in the label basis: does the dictionary serve both kinds of region? (diagnostic)

Issue 26 item 4. The default basis (``_basis.lda_basis``) shrinks each
region's within-class scatter by Ledoit-Wolf, which erases the
small-variance discriminative directions of well-sampled, collinear regions
(Vehicle); less shrinkage cost small high-dimensional sets (sonar). The
variant measured here keeps ``n_basis`` but takes half as many regions, and
gives every region's top Fisher directions both with the Ledoit-Wolf
shrinkage and with only the ``RIDGE`` of the within scatter; the sparse
weights choose between them. It is switched on by
``_basis.BOTH_SHRINKAGES``, which only this script sets.

Two commands::

    # a benchmark command with the variant on (its arguments as for
    # python -m benchmarks); the 'ours' rows it writes are the variant's
    python -m benchmarks.diagnostics.both_shrinkages run breadth \\
        --datasets vehicle --methods ours --out DIR

    # per dataset, the variant's 'ours' (AFTER) minus the current 'ours'
    # (BEFORE) on the common splits: mean difference in points, its
    # Nadeau-Bengio corrected standard error, Holm p over the datasets
    # given, and the mean active elements of each
    python -m benchmarks.diagnostics.both_shrinkages compare BEFORE.csv AFTER.csv \\
        --datasets vehicle sonar marketing
"""

import argparse
import sys

import numpy as np

from metric_learn_scml import _basis

from ..breadth import significance
from ..results import read_records


def compare(before, after, datasets, method="ours"):
    """Lines of a markdown table: variant minus current per dataset."""
    records, active = [], {}
    for name, path in (("current", before), ("variant", after)):
        for record in read_records(path):
            if record["method"] == method and record["dataset"] in datasets:
                record = dict(record, method=name)
                records.append(record)
                if "n_active" in record:
                    active.setdefault((record["dataset"], name), []).append(
                        record["n_active"])
    tests = significance(records, "variant", "current")
    lines = ["| dataset | variant - current (points) | Holm p | active, current | "
             "active, variant |", "|---|---|---|---|---|"]
    for dataset in datasets:
        if dataset not in tests:
            continue
        test = tests[dataset]
        lines.append("| %s | %+.2f ± %.2f | %.2g | %.1f | %.1f |" % (
            dataset, test["mean"], test["se"], test["p_holm"],
            np.mean(active.get((dataset, "current"), [np.nan])),
            np.mean(active.get((dataset, "variant"), [np.nan]))))
    means = [tests[dataset]["mean"] for dataset in datasets if dataset in tests]
    lines.append("| mean over %d | %+.2f | | | |" % (len(means), np.mean(means)))
    return lines


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:
        from ..cli import main as benchmarks_main
        _basis.BOTH_SHRINKAGES = True
        return benchmarks_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["compare"])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--datasets", nargs="+", required=True)
    args = parser.parse_args(argv)
    print("\n".join(compare(args.before, args.after, args.datasets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
