"""The one command line of the benchmarks: ``python -m benchmarks COMMAND [options]``.

``python -m benchmarks --help`` lists the commands, one line each
(:data:`TABLES`). ``scale`` takes options of its own
(``python -m benchmarks scale --help``). The one-off investigations
behind ``results/NOTES.md`` ran at the commits its sections cite.

Progress goes to stderr, one line per fit; tables go to stdout as markdown.
Errors are in percent. A run writes ``<table>.csv`` (one row per dataset
and method), for some tables ``<table>_splits.csv`` (one row per fit), and
``<table>_run.json`` (commit, wall time, command) to ``--out``
(``benchmarks/results`` by default); ``--quick`` writes only when ``--out``
is given. ``compare`` runs on the user's own data (``--data FILE``) and
writes ``compare_<data>.csv`` (one row per fit) and ``.png`` to ``--out``,
by default the current folder. Nothing imports this module: it is the top
of the benchmarks.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

from . import (basis_size, breadth, budget, compare, fingerprint, global_table, local, memory,
               multitask, neighbours, pairs, report, scale, shape, shipped)
from .data import DEFAULT_PREPROCESSING, PREPROCESSINGS, SHIPPED
from .protocol import UnknownNameError
from .results import (RESULTS_DIR, SUMMARY_COLUMNS, keep_summaries, merge_records,
                      read_records, results_table, summarise, write_csv)


class Progress:
    """One line per fit on stderr: dataset, split, method, time, error."""

    def __init__(self, stream=None):
        # None means the current sys.stderr, which keeps the object picklable
        # for worker processes (the monotonic clock is shared with them).
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, record):
        if record.get("failed"):
            outcome = "FAILED %s" % record["failed"][:120]
        else:
            outcome = "fit %7.2fs  error %5.1f%%" % (record["fit_seconds"],
                                                   100 * record["error"])
            if record.get("chosen"):
                outcome += "  chose %s" % record["chosen"]
        print("[%6.0fs] %-11s split %2d  %-34s %s" % (
            time.perf_counter() - self.start, record["dataset"], record["split"],
            record["method"], outcome), file=self.stream or sys.stderr, flush=True)


def git_commit():
    """The commit of the working tree, with ``+dirty`` if tracked files changed."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def run_metadata(args, seconds, preprocessing=None):
    """What a results file needs to be reproduced: command, commit, versions.

    The commit is the one checked out when the run started (``args.commit``).
    """
    import metric_learn
    import sklearn

    import metric_learn_scml
    return dict(command="python -m benchmarks " + " ".join(args.argv),
                wall_seconds=round(seconds, 1), commit=args.commit,
                package=str(Path(metric_learn_scml.__file__).parent),
                finished=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                python=platform.python_version(), scikit_learn=sklearn.__version__,
                metric_learn=metric_learn.__version__,
                preprocessing=preprocessing or args.preprocessing, quick=args.quick,
                machine="%d CPUs, %s" % (os.cpu_count(), platform.machine()))


def save(args, name, rows, columns, start=None, records=None, split_columns=None,
         extra=True, preprocessing=None):
    """Write ``<name>.csv``, and ``<name>_splits.csv`` and ``<name>_run.json`` if given."""
    if args.out is None:
        return
    write_csv(args.out / ("%s.csv" % name), rows, columns, extra)
    if records is not None:
        write_csv(args.out / ("%s_splits.csv" % name), records, split_columns)
    if start is not None:
        with open(args.out / ("%s_run.json" % name), "w") as stream:
            json.dump(run_metadata(args, time.perf_counter() - start, preprocessing),
                      stream, indent=1)


def show(title, *tables):
    """Print a heading and markdown tables (lists of lines) on stdout."""
    print("\n## %s\n" % title)
    print("\n\n".join("\n".join(lines) for lines in tables if lines))


def run_global(args, progress):
    start = time.perf_counter()
    records = global_table.run(
        quick=args.quick, n_splits=args.splits, datasets=args.datasets, methods=args.methods,
        preprocessing=args.preprocessing, progress=progress, n_jobs=args.jobs,
        uncapped=args.uncapped)
    rows = summarise(records)
    if args.merge and args.out is not None:
        rerun = {(record["dataset"], record["method"]) for record in records}
        records = merge_records(args.out / "global_splits.csv", records,
                                global_table.DATASETS,
                                [method.name for method in global_table.METHODS.values()])
        rows = keep_summaries(args.out / "global.csv", summarise(records), rerun)
    show("global (3-NN test error in %, mean ± standard error over splits)",
         results_table(rows), global_table.target_table(rows))
    not_run = global_table.skipped(global_table.plan(
        args.quick, args.splits, args.datasets, args.methods, args.uncapped)[2])
    if not_run:
        print("\nnot run (split budget 0): " + ", ".join(
            "%s on %s" % (method, dataset) for dataset, method in not_run))
    print("\nglobal wall time: %.0f s" % (time.perf_counter() - start))
    save(args, "global", rows, SUMMARY_COLUMNS, start, records, global_table.SPLIT_COLUMNS)


def run_local(args, progress):
    if args.timing:
        show("local: fit time at the default parameters (median of 3, alternated)",
             local.timing(args.datasets or local.DATASET_KEYS))
        return
    start = time.perf_counter()
    rows = summarise(local.run(args.quick, args.splits, args.datasets, progress))
    show("local (3-NN test error in %, mean ± standard error over splits)",
         results_table(rows), local.table(rows))
    save(args, "local", rows, SUMMARY_COLUMNS, start)


def run_multitask(args, progress):
    datasets = args.datasets or multitask.DATASET_KEYS
    if not args.timing:
        start = time.perf_counter()
        records, path = multitask.run(args.quick, args.splits, datasets, args.lmnn_on,
                                      args.betas, progress)
        rows, path_rows = summarise(records), multitask.path_rows(path)
        print("\n".join(multitask.targets(records)))
        show("multitask (3-NN test error in %, mean over tasks, then over splits)",
             results_table(rows))
        show("multitask: every beta of the grid (tuned rows above pick one)",
             multitask.path_table(path_rows))
        save(args, "multitask", rows, SUMMARY_COLUMNS, start, extra=False,
             preprocessing="zscore_unit_norm (Vowel); TF-IDF (20 Newsgroups)")
        save(args, "multitask_path", path_rows, SUMMARY_COLUMNS + ("beta", "fit_ratio_to_st"),
             extra=False)
    if args.timing or not args.no_timing:
        n_splits = 1 if args.quick else args.splits if args.timing and args.splits else None
        rows = multitask.timing(datasets, n_splits or multitask.TIMING_SPLITS,
                                1 if args.quick else multitask.TIMING_REPEATS)
        show("multitask: fit time, mt-SCML over st-SCML on all tasks (minimum of repeated "
             "fits; target: at most 2)", multitask.timing_table(rows))
        save(args, "multitask_timing", rows, multitask.TIMING_COLUMNS)


def run_memory(args, progress=None):
    rows = memory.run(quick=args.quick)
    show("Peak memory", memory.table(rows))
    save(args, "memory", rows, memory.COLUMNS)


def run_basis_size(args, progress):
    rows = summarise(basis_size.run(args.quick, args.splits, args.preprocessing, progress),
                     by=("dataset", "method", "n_basis"))
    show("Basis size on Segment", basis_size.table(rows))
    save(args, "basis_size", rows, basis_size.COLUMNS)


def run_all(args, progress):
    start = time.perf_counter()
    for command in (run_global, run_local, run_multitask, run_basis_size):
        command(args, progress)
    if not args.quick:
        run_memory(args)
    if args.out is not None:
        with open(args.out / "all_run.json", "w") as stream:
            json.dump(run_metadata(args, time.perf_counter() - start), stream, indent=1)
        print("\nresults page: %s" % report.write_page(args.out))


def run_breadth(args, progress):
    start = time.perf_counter()
    earlier = read_records(args.out / "breadth_splits.csv") if args.out is not None else ()
    records = breadth.run(args.datasets or (breadth.QUICK_DATASETS if args.quick else None),
                          args.methods or (breadth.QUICK_METHODS if args.quick else None),
                          args.splits or (1 if args.quick else breadth.N_SPLITS),
                          args.max_samples, progress, earlier)
    for record in records:
        record["commit"] = args.commit
    if args.out is not None:
        records = merge_records(args.out / "breadth_splits.csv", records,
                                methods=[method.name for method in breadth.METHODS.values()])
    show("breadth", breadth.report(records))
    finish_breadth(args, "breadth", records, start, "StandardScaler")


def run_small_tasks(args, progress):
    start = time.perf_counter()
    records = breadth.small_tasks(args.splits or (1 if args.quick else breadth.N_SPLITS),
                                  progress)
    show("small_tasks", breadth.small_tasks_table(breadth.summary_rows(records), records))
    finish_breadth(args, "small_tasks", records, start, "zscore_unit_norm")


def run_medium_tasks(args, progress):
    start = time.perf_counter()
    records = breadth.medium_tasks(args.splits or (1 if args.quick else breadth.N_SPLITS),
                                   progress, args.datasets)
    show("medium_tasks", breadth.medium_tasks_table(breadth.summary_rows(records), records))
    finish_breadth(args, "medium_tasks", records, start,
                   "StandardScaler (newsgroups: TF-IDF as built)")


def finish_breadth(args, name, records, start, preprocessing):
    print("\n%s wall time: %.0f s" % (name, time.perf_counter() - start))
    save(args, name, breadth.summary_rows(records), breadth.SUMMARY_COLUMNS, start, records,
         breadth.SPLIT_COLUMNS, preprocessing=preprocessing)
    if args.out is not None:
        print("\npage: %s" % report.write_breadth_page(args.out))


def run_report(args, progress):
    out = args.out or RESULTS_DIR
    if not Path(out).is_dir():
        sys.exit("python -m benchmarks: error: --out %s is not a folder of results "
                 "(the CSV files of earlier runs)" % out)
    print(report.write_page(out))
    print("\n".join(report.check(out)))


def run_shipped(args, progress):
    show("shipped", shipped.table(shipped.run(args.splits or 5, args.datasets or SHIPPED,
                                              progress)))


def run_pairs(args, progress):
    """SCML as a pair classifier against metric-learn's ITML and MMC (benchmarks/pairs.py)."""
    start = time.perf_counter()
    records = pairs.run(args.datasets or pairs.TASKS,
                        args.methods or pairs.METHODS,
                        args.splits or (2 if args.quick else pairs.N_SPLITS),
                        progress=lambda line: print(line, file=sys.stderr, flush=True))
    rows = pairs.summary(records)
    show("pairs (held-out pair accuracy in %, mean ± standard error over splits; "
         "differences are the learner's minus ours, paired over splits)",
         pairs.table(rows))
    print("\npairs wall time: %.0f s" % (time.perf_counter() - start))
    save(args, "pairs", rows, pairs.COLUMNS, start, records, pairs.SPLIT_COLUMNS,
         preprocessing="StandardScaler")


def run_small_data(args, progress):
    start = time.perf_counter()
    earlier = (read_records(args.out / "small_data_splits.csv")
               if args.out is not None and (args.out / "small_data_splits.csv").exists() else ())
    records = breadth.run(args.datasets or (breadth.QUICK_DATASETS if args.quick else None),
                          args.methods or breadth.SMALL_METHODS_DEFAULT,
                          args.splits or (1 if args.quick else breadth.SMALL_DRAWS),
                          args.max_samples, progress, earlier, sizes=breadth.SMALL_SIZES)
    for record in records:
        record.setdefault("commit", args.commit)
    if args.out is not None:
        records = merge_records(args.out / "small_data_splits.csv", records,
                                methods=[method.name for method in breadth.METHODS.values()])
    show("small data", breadth.report(records))
    print("\nsmall data wall time: %.0f s" % (time.perf_counter() - start))
    save(args, "small_data", breadth.summary_rows(records), breadth.SUMMARY_COLUMNS, start,
         records, breadth.SPLIT_COLUMNS, preprocessing="StandardScaler")


def run_budget(args, progress):
    start = time.perf_counter()
    names = args.datasets or (budget.QUICK if args.quick else
                              budget.GLOBAL + budget.GENERATED + budget.SWEEP)
    rows = budget.run(names, progress=lambda line: print(line, file=sys.stderr, flush=True))
    show("budget", budget.table(rows).splitlines())
    save(args, "budget", rows, budget.COLUMNS, start)


def run_neighbours(args, progress):
    start = time.perf_counter()
    rows = neighbours.run(neighbours.QUICK_SIZES if args.quick else neighbours.SIZES,
                          progress=lambda line: print(line, file=sys.stderr, flush=True))
    show("neighbours", neighbours.table(rows).splitlines())
    save(args, "neighbours", rows, neighbours.COLUMNS, start)


def run_fingerprint(args, progress):
    rows = fingerprint.run(progress=lambda line: print(line, file=sys.stderr, flush=True))
    show("fingerprint", fingerprint.table(rows).splitlines())


def run_shape(args, progress):
    rows, decisions = shape.run(
        progress=lambda line: print(line, file=sys.stderr, flush=True))
    show("shape", shape.table(rows).splitlines())
    show("decision points the default fit on wine executes",
         shape.decision_table(decisions).splitlines())


def run_compare(args, progress):
    """The user's own data: the table on stdout, the records and the plot in ``--out``."""
    names = args.learners or list(compare.DEFAULT_LEARNERS)
    # Names and data are checked before the first fit, so a typo costs nothing.
    learners = {name: compare.learner(name) for name in names}
    try:
        X, y, _ = compare.load_table(args.data, args.target)
    except (OSError, ValueError) as error:
        sys.exit("python -m benchmarks: error: %s" % error)
    records = compare.compare(X, y, learners, args.splits or compare.N_SPLITS,
                              progress=progress, name=args.data.name)
    show("compare", compare.report(records))
    # Not benchmarks/results: that folder holds the committed tables.
    out = Path.cwd() if args.out is None else args.out
    stem = "compare_%s" % args.data.stem
    write_csv(out / ("%s.csv" % stem), records, compare.COLUMNS)
    print("\nrecords (one row per split and learner): %s" % (out / ("%s.csv" % stem)))
    drawn = compare.plot(records, out / ("%s.png" % stem))
    if drawn is not None:
        print("plot: %s" % drawn)


# Options that only some commands read; the others refuse them rather than
# run (and record) a configuration they did not use.
TAKEN_BY = {"--methods": ("global", "all", "breadth", "small-data", "pairs"),
            "--preprocessing": ("global", "all", "basis-size"),
            "--max-samples": ("breadth", "small-data"), "--merge": ("global", "all", "breadth"),
            "--data": ("compare",), "--target": ("compare",), "--learners": ("compare",)}


def parse_args(argv=None):
    """The options; each command reads those that apply to it (see the README)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Real-data benchmarks of metric-learn-scml against "
                    "metric-learn and SVMs (Shi, Bellet and Sha, AAAI 2014).",
        epilog="\n".join(
            ["tables:"] + ["  %-12s %s" % (name, line) for name, (_, line) in TABLES.items()]
            + ["  %-12s %s" % ("scale", SCALE_HELP)]))
    parser.add_argument("command", choices=[*TABLES, "scale"],
                        metavar="command", help="one of those listed below")
    option = parser.add_argument
    option("--quick", action="store_true",
           help="small configuration (a few minutes at most; global: Vehicle, 2 splits, "
                "fast methods; breadth: scikit-learn's datasets, 1 split)")
    option("--splits", type=_positive_int,
           help="random splits per dataset (default: global, local, multitask 20, 2 with "
                "--quick, slow methods fewer; breadth, small-tasks, compare, pairs 10; shipped 5)")
    option("--datasets", nargs="+", help="dataset names (default: all, or the quick "
                                         "subset)")
    option("--methods", nargs="+", help="method keys or names, e.g. ours ml_scml lmnn")
    option("--out", type=Path, help="folder for the CSV files (default benchmarks/results; "
                                    "with --quick nothing is written unless given; compare: "
                                    "the current folder, compare_<data>.csv and .png)")
    option("--merge", action="store_true",
           help="global: keep the earlier fits in --out's global_splits.csv of the "
                "datasets and methods this run does not measure, and summarise all "
                "(breadth always does)")
    option("--uncapped", action="store_true",
           help="global: run --splits for every method, without the per-method split "
                "budgets (e.g. ITML on Letters, which a full run leaves out)")
    option("--jobs", type=_positive_int, default=1,
           help="global: worker processes (slow methods get their own; default 1)")
    option("--max-samples", type=_positive_int, default=breadth.MAX_SAMPLES,
           help="breadth: larger datasets are cut to this many points, stratified "
                "(default %(default)s)")
    option("--preprocessing", choices=sorted(PREPROCESSINGS), default=DEFAULT_PREPROCESSING,
           help="feature scaling fitted on the training split (default %(default)s)")
    option("--timing", action="store_true",
           help="local, multitask: only the fit-time measurement")
    option("--no-timing", action="store_true",
           help="multitask: no fit-time measurement after the table")
    option("--betas", type=float, nargs="+",
           help="multitask: the beta grid (default %s)"
                % " ".join("%g" % beta for beta in multitask.BETA_GRID))
    option("--lmnn-on", nargs="*", default=["vowel"],
           help="multitask: datasets with st/u-LMNN (none: no LMNN)")
    option("--data", type=Path, metavar="FILE",
           help="compare: your data, a .csv with a header row (numeric features, one "
                "label column) or a .npz with arrays X and y")
    option("--target", metavar="COLUMN",
           help="compare: the label column of the CSV (default: the last column)")
    option("--learners", nargs="+", metavar="NAME",
           help="compare: %s (the default), local, SCML_Supervised (= ours), or any "
                "metric-learn learner fitted on labels by its class name, e.g. LFDA "
                "ITML_Supervised metric_learn.NCA" % " ".join(compare.DEFAULT_LEARNERS))
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    for flag, commands in TAKEN_BY.items():
        given = any(word == flag or word.startswith(flag + "=") for word in args.argv)
        if given and args.command not in commands:
            parser.error("%s applies to %s only: %s would ignore it" % (
                flag, ", ".join(commands), args.command))
    if args.command == "compare" and args.data is None:
        parser.error("compare needs --data FILE (a .csv or .npz file of your data)")
    if args.out is None and not args.quick and args.command != "compare":
        args.out = RESULTS_DIR
    return args


def _integer_at_least(low, what):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError("must be a %s integer, got %r" % (what, text))
        return value
    return parse


_positive_int = _integer_at_least(1, "positive")


# Each command: what runs it, and its line of --help.
TABLES = {
    "global": (run_global, "the global table: ours against metric-learn, LMNN, ITML, NCA, "
                           "SVMs on 7 datasets"),
    "local": (run_local, "the SCML-Local table (--timing: its fit times only)"),
    "multitask": (run_multitask, "the multi-task table and its beta grid, then fit times"),
    "all": (run_all, "global, local, multitask, basis-size, memory, then the results page"),
    "breadth": (run_breadth, "every estimator at its defaults on 60 datasets (breadth.md)"),
    "small-tasks": (run_small_tasks, "movement_libras as three small tasks (breadth.md)"),
    "medium-tasks": (run_medium_tasks, "six sets cut into tasks of 100 to 1,600 training "
                                       "points (medium_tasks.csv)"),
    "small-data": (run_small_data, "the breadth datasets drawn down to 100 and 300 "
                                   "training points (small_data.csv)"),
    "budget": (run_budget, "the default fit's stages, the exact phase against its budget, "
                           "and metric-learn's fit time (budget.csv)"),
    "neighbours": (run_neighbours, "mining time by number of features: the package's neighbour "
                                   "search against scikit-learn's choice (neighbours.csv)"),
    "shipped": (run_shipped, "the defaults on scikit-learn's own datasets (no download)"),
    "pairs": (run_pairs, "SCML as a pair classifier against ITML and MMC on independent "
                         "pairs (generated, digits)"),
    "compare": (run_compare, "ours against metric-learn's learners on your own .csv / .npz "
                             "(--data FILE)"),
    "fingerprint": (run_fingerprint, "a hash of 16 fits' weights on wine: compare two commits "
                                     "on one machine (behaviour-neutral changes)"),
    "shape": (run_shape, "the package's code lines, modules, import depth and the default "
                         "fit's functions and decision points (no fit to compare)"),
    "memory": (run_memory, "peak memory of our fits on Letters (run after a full global)"),
    "basis-size": (run_basis_size, "error and active elements against n_basis on Segment"),
    "report": (run_report, "rebuild the results page from --out's CSV files, and check them"),
}
SCALE_HELP = "fit time and memory from 10,000 to 1,000,000 points (own options)"
RUNS = {name: run for name, (run, _) in TABLES.items()}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["scale"]:
        # Its fits run in processes of their own, with options of its own.
        return scale.main(argv[1:])
    args = parse_args(argv)
    if args.command == "scale":
        # Options before it: scale parses options of its own.
        sys.exit("python -m benchmarks: error: give scale first, then its own options "
                 "(python -m benchmarks scale --help)")
    args.commit = git_commit()
    # Two threads on a busy 2-core machine make k-means and neighbour searches
    # many times slower (DESIGN.md section 5): every method is timed on one.
    try:
        with threadpool_limits(limits=1):
            RUNS[args.command](args, Progress())
            if args.command == "global" and not args.quick:
                run_memory(args)
    except UnknownNameError as error:
        sys.exit("python -m benchmarks: error: %s" % error)
    return 0
