"""The package's layering: maths below the estimator base below the estimators."""

import ast
from pathlib import Path

import metric_learn_scml

PACKAGE = Path(metric_learn_scml.__file__).parent
MATHS = {"_arrays", "_progress", "_triplets", "_basis", "_embedding", "_solvers", "_exact",
         "_exact_group", "_selection", "_memory"}
BASE = {"_validation", "_docs", "_base"}


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
