"""The package's layering: maths below the estimator base below the estimators."""

import ast
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import metric_learn_scml
from benchmarks.shape import imports, longest_chain

PACKAGE = Path(metric_learn_scml.__file__).parent
MATHS = {"_arrays", "_triplets", "_problem", "_driver", "_solvers", "_local",
         "_exact", "_defaults"}
BASE = {"_validation", "_base", "_pipelines"}


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


def test_the_default_path_is_at_most_seven_imports_deep():
    # The package is read from the top (__init__, an estimator) down to the
    # maths; a newcomer follows at most seven imports to reach the bottom.
    assert longest_chain({"a": {"b"}, "b": {"c"}, "c": set()}) == [
        "a", "b", "c"]
    chain = longest_chain(imports())
    assert len(chain) - 1 <= 7, " -> ".join(chain)


def test_layers_import_only_downwards():
    graph = imports()
    assert MATHS | BASE <= set(graph)
    for module in MATHS:
        assert graph[module] <= MATHS, (module, graph[module] - MATHS)
    for module in BASE:
        assert graph[module] <= MATHS | BASE, (module, graph[module])


# Where the data meets the estimator: scikit-learn's validate_data takes
# the estimator too (its name in messages, n_features_in_).
BOUNDARY = {"_validation", "_base"}


def test_no_builder_or_check_below_the_estimators_takes_an_estimator():
    # The problem builders and the parameter checks take values (data,
    # settings, a constraints table and a mapping of parameters); the
    # estimator assigns what they return.
    taking = []
    for module in (MATHS | BASE) - BOUNDARY:
        tree = ast.parse((PACKAGE / (module + ".py")).read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args + node.args.kwonlyargs]
                if {"estimator", "model", "learner"} & set(names):
                    taking.append("%s.%s" % (module, node.name))
    assert not taking, taking


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


def _numeric_constants(path):
    """The top-level upper-case names of ``path`` bound to numbers, with
    their line numbers (tables of names, as the docstring fragments and
    parameter constraints, are not numbers)."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(leaf, ast.Constant)
                and isinstance(leaf.value, (int, float))
                and not isinstance(leaf.value, bool)
                for leaf in ast.walk(node.value)):
            for target in node.targets:
                if (isinstance(target, ast.Name) and target.id.isupper()
                        and not target.id.endswith("CONSTRAINTS")):
                    found[target.id] = node.lineno
    return found


def test_every_constant_lives_beside_its_users_with_its_reason():
    # A constant lives beside the code that uses it, with its reason (a
    # comment above it, or above the run of constants it shares one with);
    # _defaults keeps only what two modules use, or the docs pages show
    # (with the run it shares its reason with).
    modules = {path.stem: path for path in PACKAGE.glob("*.py")}
    texts = {stem: path.read_text() for stem, path in modules.items()}
    pages = "".join(page.read_text()
                    for page in (PACKAGE.parent / "docs").glob("*.rst"))
    misplaced, unexplained, runs = [], [], {}
    for stem, path in modules.items():
        lines = texts[stem].splitlines()
        for name, line in _numeric_constants(path).items():
            above = line - 2
            while lines[above][:1].isupper() and " = " in lines[above]:
                above -= 1
            if not lines[above].startswith("#"):
                unexplained.append("%s.%s" % (stem, name))
            users = {other for other, text in texts.items() if other != stem
                     and re.search(r"\b%s\b" % name, text)}
            shared = len(users) >= 2 or "|%s|" % name in pages
            if stem == "_defaults":
                runs.setdefault(above, []).append((name, users, shared))
            elif users:
                misplaced.append("%s.%s: also used by %s" % (stem, name,
                                                            users))
    for run in runs.values():
        if not any(shared for _, _, shared in run):
            misplaced.extend("%s: only %s uses it" % (name, users)
                             for name, users, _ in run)
    assert not unexplained, unexplained
    assert not misplaced, misplaced


def _documented(cls, section="Parameters"):
    """``{name: text}`` of the numpydoc entries of a section of ``cls``'s
    docstring, in order; an entry that documents several names at once
    (``a, b : int``) is one of each."""
    lines = cls.__doc__.split("\n")
    start = lines.index("    " + section) + 2
    end = next((i - 1 for i in range(start, len(lines))
                if set(lines[i].strip()) == {"-"}), len(lines))
    entries, names = {}, []
    for line in lines[start:end]:
        if line.startswith("    ") and not line.startswith("     "):
            names = [name.strip() for name in line.split(" : ")[0].split(",")]
            for name in names:
                entries[name] = [line]
        else:
            for name in names:
                entries[name].append(line)
    return {name: "\n".join(text).rstrip() for name, text in entries.items()}


ESTIMATORS = [getattr(metric_learn_scml, name) for name in metric_learn_scml.__all__
              if isinstance(getattr(metric_learn_scml, name), type)
              and hasattr(getattr(metric_learn_scml, name), "get_params")]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_parameter_is_documented_where_its_class_is_defined(cls):
    import inspect
    names = [name for name in inspect.signature(cls.__init__).parameters
             if name != "self"]
    documented = list(_documented(cls))
    assert documented == names
    # every {{NAME}} of a constant was filled in from _defaults
    assert "{{" not in cls.__doc__


@pytest.mark.parametrize("section", ["Parameters", "Attributes"])
def test_an_entry_that_refers_to_another_class_finds_each_name_there(section):
    # "a, b : As in :class:`X`." sends the reader to X, which must document
    # each of a and b in full there, not send them on again.
    import re
    referred = 0
    for cls in ESTIMATORS:
        for name, text in _documented(cls, section).items():
            target = re.search(r"As in :class:`~?([\w.]+)`", text)
            if not target or text.split("\n")[1].strip() != target.group(0) + ".":
                continue
            other = getattr(metric_learn_scml, target.group(1).split(".")[-1])
            there = _documented(other, section)
            assert name in there, (cls.__name__, name, other.__name__)
            assert "As in :class:" not in there[name], (cls.__name__, name)
            referred += 1
    assert referred >= 20


# Parameters whose meaning differs between learners (a group penalty, a
# per-task budget, beta='auto', the basis a learner builds, ...); every
# other one reads the same in every docstring that documents it alone.
VARIANTS = {"basis", "batch_size", "beta", "global_beta", "k_genuine",
            "k_impostor", "n_basis", "n_components", "solver", "tol"}


def test_a_shared_parameter_reads_the_same_in_every_docstring():
    texts = {}
    for cls in ESTIMATORS:
        for name, text in _documented(cls).items():
            alone = "," not in text.split("\n")[0].split(" : ")[0]
            if alone and name not in VARIANTS:
                texts.setdefault(name, {}).setdefault(text, []).append(cls.__name__)
    differing = {name: list(by_text.values()) for name, by_text in texts.items()
                 if len(by_text) > 1}
    assert not differing
    assert {"gamma", "max_iter", "verbose", "random_state"} <= set(texts)


def _fitted(cls):
    """``cls`` fitted on standardised iris (triplets of it, two tasks of
    it, or a global learner of it), quickly."""
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    from metric_learn_scml import SCML_Supervised, triplets_from_labels
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    tasks = np.arange(y.shape[0]) % 2
    triplets = X[triplets_from_labels(X, y, 2, 3)]
    fast = {"random_state": 0}
    if cls.__name__ == "MetricKNeighborsClassifier":
        return cls(SCML_Supervised(**fast)).fit(X, y)
    if cls.__name__.startswith("Local"):
        fast["max_iter"] = 1000
    if cls.__name__ == "SCML_SupervisedCV":
        fast["cv"] = 3
    if cls.__name__.startswith("MultiTask"):
        data = ((X, y, tasks) if cls.__name__.endswith("Supervised")
                else (triplets, np.arange(triplets.shape[0]) % 2))
    else:
        data = (X, y) if "Supervised" in cls.__name__ else (triplets,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**fast).fit(*data)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_fitted_attribute_is_documented_where_its_class_is(cls):
    # (A user reads the Attributes section; SCML_SupervisedCV's lacked
    # fit_stages_, and mt-SCML set an undocumented euclidean_fallback_.)
    model = _fitted(cls)
    documented = _documented(cls, "Attributes")
    fitted = [name for name in vars(model)
              if name.endswith("_") and not name.startswith("_")
              # metric-learn's own, documented by none of its learners
              and name != "preprocessor_"]
    assert fitted
    assert [name for name in fitted if name not in documented] == []
