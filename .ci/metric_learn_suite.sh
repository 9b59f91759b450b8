#!/usr/bin/env bash
# metric-learn 0.7.0's own test suite, restricted to its SCML learners, run
# twice: as shipped (metric-learn's SCML and SCML_Supervised) and with ours
# (metric_learn_scml.SCML / SCML_Supervised) swapped in. Exits non-zero if
# ours fails a test that metric-learn's own SCML passes (or skips), listing
# those tests; the tests both fail are listed and allowed.
#
# Usage: bash .ci/metric_learn_suite.sh PYTHON
#   PYTHON: an interpreter (a venv's) with this package and its test extra
#   installed. Only pip's registry is used (the sdist of metric-learn 0.7.0,
#   which holds its test/ folder).
#
# How the two runs are set up, in the unpacked sdist:
# - test/__init__.py (empty, both runs): metric-learn's tests import
#   `test.test_utils`; without it `test` is the standard library's package.
# - test/conftest.py (both runs) imports metric_learn_scml first. That applies
#   its compatibility patches to metric-learn (metric_learn_scml/_compat.py:
#   scikit-learn's renamed force_all_finite, removed stable_cumsum and
#   cov_init), without which every metric-learn 0.7.0 estimator fails on
#   scikit-learn >= 1.8 and `import metric_learn` fails on >= 1.10; the
#   baseline would fail everything and compare nothing. metric-learn's SCML
#   code itself is untouched by them. It also restores pytest.warns(None)
#   (record every warning; removed in pytest 8), which one SCML test uses to
#   check that get_metric's metric warns nothing: without it that test fails
#   at its first line in both runs and checks nothing (both runs).
#   For the "ours" run it then replaces
#   SCML and SCML_Supervised in metric_learn and metric_learn.scml, before
#   any test module imports them, and checks at collection that every test
#   module's SCML / SCML_Supervised is the expected class (ours or theirs).
# - The tests run from the unpacked root, so `metric_learn` is the sdist's
#   own source (the 0.7.0 code these tests were written for).
# - `-k SCML` selects the tests (pytest's -k is case-insensitive: the
#   parametrized ids are the class names, SCML and SCML_Supervised, plus
#   test_scml and the tests of test_triplets_classifiers.py that build an
#   SCML themselves), and
#   --continue-on-collection-errors turns a module that fails to import into
#   a failure of that module in the comparison rather than an abort.
#   No module is ignored: all of test/ imports on the supported scikit-learn
#   (1.7 and newer) with the compatibility patches above.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 PYTHON" >&2
    exit 2
fi
# An absolute path: the runs below change directory.
py=$("$1" -c 'import sys; print(sys.executable)')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$py" -m pip download --quiet --no-deps --no-binary :all: metric-learn==0.7.0 -d "$work"
tar -xzf "$work/metric-learn-0.7.0.tar.gz" -C "$work"
src="$work/metric-learn-0.7.0"
[ -f "$src/test/test_utils.py" ] || { echo "no test/test_utils.py in metric-learn's sdist" >&2; exit 1; }
[ ! -e "$src/test/__init__.py" ] && [ ! -e "$src/test/conftest.py" ] \
    || { echo "metric-learn's test/ already has __init__.py or conftest.py: review this script" >&2; exit 1; }
: > "$src/test/__init__.py"

cat > "$src/test/conftest.py" <<'EOF'
# Written by metric-learn-scml's .ci/metric_learn_suite.sh (see there).
import contextlib
import os
import warnings

import pytest

# First: the compatibility patches that let metric-learn 0.7.0 run on
# scikit-learn >= 1.8 (both runs).
import metric_learn_scml
import metric_learn
import metric_learn.scml

RUN = os.environ["ML_SUITE_RUN"]
OUT = os.environ["ML_SUITE_OUT"]
if RUN == "ours":
    for _module in (metric_learn, metric_learn.scml):
        _module.SCML = metric_learn_scml.SCML
        _module.SCML_Supervised = metric_learn_scml.SCML_Supervised
    EXPECTED = {"SCML": metric_learn_scml.SCML,
                "SCML_Supervised": metric_learn_scml.SCML_Supervised}
else:
    EXPECTED = {"SCML": metric_learn.scml.SCML,
                "SCML_Supervised": metric_learn.scml.SCML_Supervised}

# pytest 8 removed pytest.warns(None) (record every warning), which
# test_get_metric_works_does_not_raise uses to check that a learner's metric
# warns nothing: without this the test fails at its first line in both runs
# and checks nothing. As pytest 7 did (both runs).
_pytest_warns = pytest.warns


@contextlib.contextmanager
def _record_every_warning():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        yield record


def _warns(expected_warning=Warning, *args, **kwargs):
    if expected_warning is None:
        return _record_every_warning()
    return _pytest_warns(expected_warning, *args, **kwargs)


pytest.warns = _warns

# test_utils builds the parametrized learners (SCML(n_basis=320), ...) at
# import: they must be the expected classes.
from test import test_utils  # noqa: E402

_built = {type(learner) for learner, _ in test_utils.metric_learners
          if type(learner).__name__ in EXPECTED}
assert _built == set(EXPECTED.values()), (RUN, _built)

with open(OUT + ".header", "w") as _f:
    _f.write("SCML under test: %s; metric_learn from %s\n" % (
        ", ".join(sorted(c.__module__ + "." + c.__qualname__ for c in _built)),
        os.path.dirname(metric_learn.__file__)))


def pytest_collection_modifyitems(session, config, items):
    # Every collected module's own SCML / SCML_Supervised names too.
    for item in items:
        module = getattr(item, "module", None)
        for name, cls in EXPECTED.items():
            if module is not None and hasattr(module, name):
                assert getattr(module, name) is cls, (RUN, module.__name__, name)


def _record(outcome, nodeid, message=""):
    with open(OUT, "a") as f:
        f.write("%s\t%s\t%s\n" % (outcome, nodeid, message))


def _message(report):
    # The failure's one-line reason (the first line of pytest's).
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:300] if lines else ""


def pytest_runtest_logreport(report):
    if report.failed:
        _record("failed", report.nodeid, _message(report))
    elif report.skipped:
        _record("skipped", report.nodeid)
    elif report.when == "call":
        _record("passed", report.nodeid)


def pytest_collectreport(report):
    if report.failed:
        _record("failed", report.nodeid, _message(report))
EOF

# run NAME: metric-learn's SCML tests, each phase's outcome (and a failure's
# one-line reason) written by the conftest to $work/NAME.tsv.
run() {
    local name=$1 rc=0
    echo "--- $name ---"
    : > "$work/$name.tsv"
    (cd "$src" && ML_SUITE_RUN=$name ML_SUITE_OUT="$work/$name.tsv" \
        "$py" -m pytest -p no:cacheprovider -q --tb=short -W ignore::pytest.PytestUnknownMarkWarning \
        --continue-on-collection-errors test/ -k SCML) || rc=$?
    # 0: all passed; 1: some failed. Anything else (no test selected, an
    # interrupted or internal error, a usage error) is this script's failure.
    if [ "$rc" -gt 1 ]; then
        echo "pytest exited with $rc on the $name run" >&2
        exit 1
    fi
    cat "$work/$name.tsv.header"
}

# The two runs at once (one core each), each into a log of its own.
start=$SECONDS
run theirs > "$work/theirs.log" 2>&1 &
theirs=$!
run ours > "$work/ours.log" 2>&1 &
ours=$!
status=0
wait "$theirs" || status=1
wait "$ours" || status=1
cat "$work/theirs.log" "$work/ours.log"
[ "$status" -eq 0 ] || exit 1

echo "=== metric-learn's suite: SCML tests ($((SECONDS - start)) s) ==="
# The comparison: a test's outcome is its worst phase's (failed > skipped >
# passed); exit 1 if ours fails a test theirs does not, or if the two runs
# did not run the same tests.
"$py" - "$work/theirs.tsv" "$work/ours.tsv" <<'EOF'
import sys

RANK = {"passed": 0, "skipped": 1, "failed": 2}


def outcomes(path):
    result = {}
    for line in open(path):
        outcome, nodeid, message = line.rstrip("\n").split("\t", 2)
        if nodeid not in result or RANK[outcome] > RANK[result[nodeid][0]]:
            result[nodeid] = (outcome, message)
    return result


def summary(result):
    return ", ".join("%d %s" % (sum(o == r for o, _ in result.values()), r)
                     for r in ("passed", "failed", "skipped"))


def failed(result):
    return {n for n, (o, _) in result.items() if o == "failed"}


theirs, ours = outcomes(sys.argv[1]), outcomes(sys.argv[2])
print("metric-learn's SCML: " + summary(theirs))
print("ours: " + summary(ours))
status = 0
if set(theirs) != set(ours):
    print("the two runs did not run the same tests:")
    for nodeid in sorted(set(theirs) ^ set(ours)):
        print("  %s (%s only)" % (nodeid, "theirs" if nodeid in theirs else "ours"))
    status = 1
both = sorted(failed(theirs) & failed(ours))
print("failed by both (allowed): %d" % len(both))
for nodeid in both:
    print("  " + nodeid)
    print("      theirs: " + theirs[nodeid][1])
    print("      ours:   " + ours[nodeid][1])
only_ours = sorted(failed(ours) - failed(theirs))
if only_ours:
    print("FAILED by ours only (metric-learn's SCML passes or skips them): %d"
          % len(only_ours))
    for nodeid in only_ours:
        print("  " + nodeid)
        print("      ours:   " + ours[nodeid][1])
    status = 1
sys.exit(status)
EOF
