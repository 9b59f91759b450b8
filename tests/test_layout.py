"""The package's layering: maths below the estimator base below the estimators."""

import ast
from pathlib import Path

import pytest

import metric_learn_scml

PACKAGE = Path(metric_learn_scml.__file__).parent
MATHS = {"_arrays", "_progress", "_triplets", "_basis", "_embedding", "_problem",
         "_solvers", "_local", "_lp", "_exact",
         "_newton", "_selection", "_memory", "_defaults"}
BASE = {"_constraints", "_validation", "_docs", "_base", "_pipelines"}


def imports():
    """Each module of the package and the package modules it imports."""
    graph = {}
    for path in PACKAGE.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
        graph[path.stem] = found
    return graph


def test_no_import_cycle():
    graph = imports()
    state = {}

    def visit(module, trail):
        if state.get(module) == "open":
            raise AssertionError("import cycle: %s" % " -> ".join(
                trail + [module]))
        if state.get(module) == "done":
            return
        state[module] = "open"
        for dependency in graph.get(module, ()):
            visit(dependency, trail + [module])
        state[module] = "done"

    for module in graph:
        visit(module, [])


def test_layers_import_only_downwards():
    graph = imports()
    assert MATHS | BASE <= set(graph)
    for module in MATHS:
        assert graph[module] <= MATHS, (module, graph[module] - MATHS)
    for module in BASE:
        assert graph[module] <= MATHS | BASE, (module, graph[module])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_maths_layer_takes_and_calls_no_estimator_at_run_time():
    # The import rule above holds at import time; this one follows the
    # calls of real fits. No function of the maths layer receives one of
    # the package's estimators, and none calls into the layers above
    # (a callback defined there, a method of an estimator).
    import sys

    import numpy as np
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    from metric_learn_scml import (SCML, LocalSCML_Supervised,
                                   MultiTaskSCML_Supervised, SCML_Supervised,
                                   SCML_SupervisedCV, triplets_from_labels)
    from metric_learn_scml._base import _SCMLEstimator

    def layer(code):
        path = Path(code.co_filename)
        if path.parent != PACKAGE:
            return None
        return "maths" if path.stem in MATHS else "above"

    problems = set()

    def watch(frame, event, arg):
        if event != "call" or layer(frame.f_code) is None:
            return
        caller = frame.f_back
        where = "%s.%s" % (Path(frame.f_code.co_filename).stem,
                           frame.f_code.co_name)
        if layer(frame.f_code) == "maths":
            for name in frame.f_code.co_varnames[:frame.f_code.co_argcount]:
                if isinstance(frame.f_locals.get(name), _SCMLEstimator):
                    problems.add("%s takes an estimator (%s)" % (where, name))
        elif caller is not None and layer(caller.f_code) == "maths":
            problems.add("%s.%s calls %s" % (
                Path(caller.f_code.co_filename).stem, caller.f_code.co_name,
                where))

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    tasks = np.arange(len(y)) % 2
    fast = dict(max_iter=500, random_state=0)
    sys.setprofile(watch)
    try:
        SCML_Supervised(**fast).fit(X, y)
        SCML_SupervisedCV(cv=2, **fast).fit(X, y)
        SCML(**fast).fit(X[triplets_from_labels(X, y, 2, 2)])
        MultiTaskSCML_Supervised(**fast).fit(X, y, tasks=tasks)
        LocalSCML_Supervised(**fast).fit(X, y)
    finally:
        sys.setprofile(None)
    assert not problems, sorted(problems)


def test_every_constant_of_the_defaults_is_in_the_registry():
    # A number the defaults depend on lives in _defaults, with its reason
    # and evidence; no other module defines one at its top level (tables of
    # names, as the docstring fragments and parameter constraints, are not
    # numbers).
    found = []
    for path in PACKAGE.glob("*.py"):
        if path.stem == "_defaults":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Name) and target.id.isupper()
                    and not target.id.endswith("CONSTRAINTS")
                    for target in node.targets):
                numbers = [leaf for leaf in ast.walk(node.value)
                           if isinstance(leaf, ast.Constant)
                           and isinstance(leaf.value, (int, float))
                           and not isinstance(leaf.value, bool)]
                if numbers:
                    found.append("%s:%d" % (path.name, node.lineno))
    assert not found, found
    # and every one of them has a reason: a comment above it, or above the
    # run of constants it shares one with
    from metric_learn_scml import _defaults
    lines = Path(_defaults.__file__).read_text().splitlines()

    def constant(line):
        return line[:1].isupper() and " = " in line

    for number, line in enumerate(lines):
        if constant(line):
            above = number - 1
            while constant(lines[above]):
                above -= 1
            assert lines[above].startswith("#"), line
