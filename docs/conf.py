"""Sphinx configuration of the metric-learn-scml documentation.

Build (from the repository root, with ``pip install ".[docs]"``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The API reference is generated from the numpydoc docstrings of the names in
``metric_learn_scml.__all__``; the example gallery runs ``examples/plot_*.py``
(sphinx-gallery) and the benchmark page includes
``benchmarks/results/README.md`` (MyST) when a run has been committed.
"""

import os
import re
from pathlib import Path

import metric_learn_scml
from metric_learn_scml import _defaults
from metric_learn_scml._defaults import fill

# The defaults' user-facing numbers, read from their registry: a page writes
# |MAX_ANCHORS| where it means that constant, so no number is typed twice.
rst_epilog = "\n".join(
    ".. |%s| replace:: %s" % (name, fill("{{%s}}" % name))
    for name in dir(_defaults)
    if name.isupper() and isinstance(getattr(_defaults, name), (int, float)))

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
RESULTS = ROOT / "benchmarks" / "results"

# Examples and doctests share two cores with everything else in CI.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

project = "metric-learn-scml"
author = "metric-learn-scml developers"
copyright = "2024-2025, " + author
release = version = metric_learn_scml.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints",
                    "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip"]
templates_path = ["_templates"]
default_role = "literal"

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "write_computation_times": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "abort_on_example_error": True,
    "doc_module": ("metric_learn_scml",),
    "backreferences_dir": "gen_modules/backreferences",
}

html_theme = "pydata_sphinx_theme"
html_title = "metric-learn-scml %s" % release
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_show_sourcelink = False


# --- the API page lists every public name ----------------------------------

def _check_api_page(app, docname, source):
    """Fail the build if a name of ``__all__`` is missing from api.rst."""
    if docname != "api":
        return
    listed = set(re.findall(r"^\s{3}(\w+)\s*$", source[0], flags=re.M))
    missing = sorted(set(metric_learn_scml.__all__) - listed)
    if missing:
        from sphinx.util import logging
        logging.getLogger(__name__).warning(
            "docs/api.rst does not list the public name(s) %s of "
            "metric_learn_scml.__all__: add them to an autosummary block.",
            ", ".join(missing))


# --- the benchmark results page -------------------------------------------

_NO_RESULTS = """\
No benchmark run has been committed yet: ``benchmarks/results/README.md``
does not exist in this checkout. Run ``python -m benchmarks all`` (see
:doc:`benchmarks`) to produce it.
"""


def _benchmark_results(app, docname, source):
    """Include the committed results page, or say that there is none."""
    if docname != "benchmark_results":
        return
    if (RESULTS / "README.md").exists():
        return
    source[0] = "# Benchmark results\n\n```{eval-rst}\n%s```\n" % _NO_RESULTS


# --- only this package's members in the API pages ---------------------------

def _skip_foreign_members(app, what, name, obj, skip, options):
    """Skip members inherited from scikit-learn and metric-learn.

    Their docstrings cross-reference those projects' own documentation
    (labels that do not exist here); the user guide describes the
    metric-learn interface (``pair_distance``, ``get_metric``, ...).
    """
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and not module.startswith("metric_learn_scml"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("source-read", _check_api_page)
    app.connect("source-read", _benchmark_results)
