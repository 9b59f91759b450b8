"""The package's shape, as the redesign issue measures it.

- **Code lines**: lines that hold code, counted from the tokens and the
  syntax tree: no blank line, comment or docstring (a docstring is the
  first string of a module, class or function).
- **Modules** of the package, the largest in code and in physical lines.
- **Import chain**: the longest chain of package modules, each importing
  the next (relative imports, anywhere in a module).
- **The default path**: what ``SCML_Supervised(random_state=0).fit(X, y)``
  runs on ``load_wine`` after a ``StandardScaler``, traced line by line:
  the package functions called, the modules they live in, and the decision
  points executed (``if`` statements, conditional expressions and
  ``while`` loops whose line ran).
"""

import ast
import io
import sys
import tokenize
from pathlib import Path

import metric_learn_scml

PACKAGE = Path(metric_learn_scml.__file__).parent
DECISIONS = (ast.If, ast.IfExp, ast.While)
# The redesign issue's size rule for a module, in physical lines.
MAX_LINES = 600


def code_lines(source):
    """The lines of ``source`` that hold code (no blank, comment or
    docstring line)."""
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                              ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            docstrings.update(range(body[0].lineno, body[0].end_lineno + 1))
    lines = set()
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
               tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def imports(package=PACKAGE):
    """Each module of the package and the package modules it imports."""
    modules = {path.stem: path for path in package.glob("*.py")}
    graph = {}
    for stem, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found.update([node.module.split(".")[0]] if node.module
                             else [alias.name for alias in node.names])
        graph[stem] = found & set(modules)
    return graph


def longest_chain(graph):
    """The longest chain of modules, each importing the next."""
    chains = {}

    def chain(module):
        if module not in chains:
            chains[module] = [module] + max(
                (chain(other) for other in graph[module]), key=len, default=[])
        return chains[module]
    return max((chain(module) for module in graph), key=len)


def default_path():
    """Functions, modules and decision points of the default fit on wine."""
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    root = str(PACKAGE)
    executed, functions = {}, set()

    def trace(frame, event, arg):
        code = frame.f_code
        if not code.co_filename.startswith(root):
            return None
        functions.add((code.co_filename, code.co_firstlineno))

        def lines(frame, event, arg):
            if event == "line":
                executed.setdefault(frame.f_code.co_filename, set()).add(
                    frame.f_lineno)
            return lines
        return lines

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        metric_learn_scml.SCML_Supervised(random_state=0).fit(X, y)
    finally:
        sys.settrace(previous)
    decisions = []
    for name, lines in sorted(executed.items()):
        source = Path(name).read_text()
        tree = ast.parse(source)
        spans = [(node.lineno, node.end_lineno, node.name)
                 for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in sorted((node for node in ast.walk(tree)
                            if isinstance(node, DECISIONS)
                            and node.lineno in lines),
                           key=lambda node: node.lineno):
            # The innermost function holding the decision.
            function = min((span for span in spans
                            if span[0] <= node.lineno <= span[1]),
                           key=lambda span: span[1] - span[0],
                           default=(0, 0, "<module>"))[2]
            decisions.append((Path(name).name, node.lineno, function,
                              source.splitlines()[node.lineno - 1].strip()))
    return {"functions": len(functions),
            "modules": len({name for name, _ in functions}),
            "decisions": decisions}


def run(progress=None):
    """The measures, as ``(measure, value)`` rows, and the decision points
    of the default fit as ``(file, line, function, source)``."""
    sources = {path.stem: path.read_text()
               for path in sorted(PACKAGE.glob("*.py"))}
    counted = {stem: code_lines(text) for stem, text in sources.items()}
    physical = {stem: len(text.splitlines()) for stem, text in sources.items()}
    over = sorted((stem for stem in physical if physical[stem] > MAX_LINES),
                  key=physical.get, reverse=True)
    largest = max(counted, key=counted.get)
    longest = max(physical, key=physical.get)
    chain = longest_chain(imports())
    if progress is not None:
        progress("tracing the default fit on wine ...")
    path = default_path()
    return [
        ("package code lines (no blank, comment or docstring line)",
         "{:,}".format(sum(counted.values()))),
        ("modules", str(len(sources))),
        ("largest module in code lines", "%s.py, %d" % (largest,
                                                        counted[largest])),
        ("largest module in physical lines", "%s.py, %d" % (
            longest, physical[longest])),
        ("modules over %d physical lines" % MAX_LINES, "%d%s" % (
            len(over), "".join(
                (": " if i == 0 else ", ") + "%s.py %d" % (stem, physical[stem])
                for i, stem in enumerate(over)))),
        ("longest import chain (arrows)", "%d: %s" % (
            len(chain) - 1, " -> ".join(chain))),
        ("default fit on wine: package functions run", str(path["functions"])),
        ("default fit on wine: modules they live in", str(path["modules"])),
        ("default fit on wine: decision points executed (if, while, "
         "conditional expressions)", str(len(path["decisions"]))),
    ], path["decisions"]


def table(rows):
    """The rows as a labelled markdown table."""
    lines = ["| measure of the package | value |", "|---|---|"]
    lines += ["| %s | %s |" % row for row in rows]
    return "\n".join(lines)


def decision_table(decisions):
    """The default fit's decision points, one row each, in module order."""
    lines = ["| # | module:line | function | source line |", "|---|---|---|---|"]
    lines += ["| %d | %s:%d | %s | `%s` |" % ((number,) + decision[:3] + (
        decision[3].replace("|", "\\|"),))
        for number, decision in enumerate(decisions, 1)]
    return "\n".join(lines)
