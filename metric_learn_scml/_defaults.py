r"""The constants that two modules share, or the docs pages show.

A constant lives beside the code that uses it, with why it is what it is
(its comment) and where the evidence is (``Evidence:``, a section of
``benchmarks/results/NOTES.md``, a docs page or a commit; "speed only",
"memory only" or "numerical" where no value changes a result beyond
rounding). Only those that two modules use, or that the docs read
(``docs/conf.py``'s substitutions and the estimators' docstrings, through
:func:`fill`, so that no number is typed twice), are here, each with the run of constants it shares its
reason with; ``tests/test_layout.py`` checks both. A constant that a
measurement shows to buy nothing is deleted, not moved.
"""

import re

# --- Choosing beta (beta='auto'; _driver) ------------------------------------

# beta='auto': the share of the training points held out to choose beta
# (NOTES.md, "Fit time and the selection on small data"). Its path is
# fitted on SELECTION_SHARE of the points, at least MIN_SELECTION_POINTS
# and at most MAX_SELECTION_POINTS: the best multiple of beta_max grows
# with the points a model is fitted on, so a part of a fixed 1,000 points
# chose too dense a model for 100,000 points and more.
# Evidence: NOTES.md, "The choice of beta on a fifth of the points".
VALIDATION_FRACTION = 0.2
SELECTION_SHARE = 0.2
MIN_SELECTION_POINTS = 1000
MAX_SELECTION_POINTS = 20_000


# The beta used where no point can be held out (too few per class).
# Evidence: the paper's beta on its low-dimensional sets.
FALLBACK_BETA = 1e-5

# The most held-out points scored (beyond 25,000 training points): the
# 3-NN error of 5,000 points has a standard error under 0.7 point, and
# scoring more only costs time.
MAX_VALIDATION_POINTS = 5000

# The grid: N_BETAS values from BETA_RATIO_HIGH to BETA_RATIO_LOW times
# beta_max, evenly in log scale (0.75 decade apart).
# Evidence: NOTES.md, "Fit time and the selection on small data" (the grid
# variants).
BETA_RATIO_HIGH = 10 ** -0.5
BETA_RATIO_LOW = 1e-5
N_BETAS = 7


# Betas whose held-out 3-NN error is within this many paired standard
# errors of the least one count as equally good, and the densest of them
# is kept (see best_beta). On the small-data group (100 and 300 training
# points) this and MIN_SCORED_POINTS gained 0.64 points over the former
# rule (half a binomial SE, the least triplet error, then the sparsest).
# Evidence: NOTES.md, "Small data: a choice of beta that uses every point".
ERROR_BAND = 1.0

# From this many points the choice keeps the sparsest beta within the band
# instead (the one-standard-error rule of CART and glmnet): its part is
# then a fifth of the points or fewer, the best multiple of beta_max grows
# with the points a model is fitted on, and the part's held-out errors are
# often flat where the full data's are not. Below it the rule is unchanged, and
# so is the decision protocol (2,000 training points at most).
# Evidence: NOTES.md, "The sparsest beta within the band from 5,000 points".
SPARSE_CHOICE_MIN_POINTS = 5000

# beta='auto' scores held-out points until this many are scored: the next
# fold of a stratified 5-fold is held out in turn, so that below 500
# points every point is scored once, and below 2,500 at least 500 are (at
# 300 points a single cut scored 60, whose 3-NN error has a standard
# error of 4 to 6 points).
# Evidence: NOTES.md, "Small data: a choice of beta that uses every point".
MIN_SCORED_POINTS = 500


# --- The solvers (_solvers, _exact) ------------------------------------------

# solver='auto' runs the exact phase up to this many triplets (about 3,300
# points at 3 x 10 per point, so every dataset of the paper's global table
# and scikit-learn's digits): its LPs grow with the triplets near the
# margin, and nothing bounds their cost beyond. At 3,000 points the phase
# took 0.5 to 5.5 s (satimage, optdigits, letter) and kept 0.5x to 1x
# RDA's elements.
# Evidence: NOTES.md, "Deciding the defaults with paired significance"
# (decision 1), and the commit that set 100,000.
EXACT_MAX_TRIPLETS = 100_000

# Under solver='auto' the exact phase gets EXACT_WORK_RATIO times RDA's
# work at the same beta, and below EXACT_FLOOR_TRIPLETS triplets (1,000
# points at 3 x 10 a point) EXACT_MIN_WORK at least; out of budget, it
# returns its best point with the duality gap. Work is counted in
# triplet-element entries: RDA's batches, and each LP's simplex iterations
# times its block (_solvers.rda_work, _exact.exact_weights), so that a fit
# is the same on any machine and under any load. On this project's
# machine both cost 1.4 to 6 ns an entry, so the ratio is about one of
# times; between 1,000 and 5,000 points the unbudgeted phase took 2 to 300
# times RDA's time. The floor (about half a second) lets the phase of a
# small problem run to its optimum; from 1,000 points it cost a median 2.8
# times RDA's time (up to 10) and seldom certified, at the same 3-NN errors.
# Evidence: NOTES.md, "A budget for the exact phase", its sequel "in work,
# not seconds", and "The floor of the exact phase's budget below 1,000
# points".
EXACT_WORK_RATIO = 1.0
EXACT_MIN_WORK = 2e8
EXACT_FLOOR_TRIPLETS = 30_000

# The largest duality gap, relative to the objective, that the learners
# accept without a warning from either exact phase. The certificate scales
# the dual point by beta over its worst reduced cost, so it loses about
# HiGHS' feasibility tolerance divided by beta: 2.3e-6 on standardised iris
# at beta=1e-5, 1.4e-4 on 200 generated triplets at the default beta, 7e-3
# on the class docstring's triplets scaled by 10 (beta a hundred times
# smaller in the LP's units). Tighter HiGHS tolerances (1e-10) make it fail
# outright on wine and breast cancer at small beta. An objective near zero
# (separable triplets) is compared as if it were EXACT_GAP_TOL times its
# value at W = 0 (SolverResult.certified): five separable triplets gave an
# absolute gap of 8.6e-8, HiGHS' tolerance, at an objective of 1.3e-5.
# Evidence: NOTES.md, "Exactness of the global model's defaults".
EXACT_GAP_TOL = 1e-3


# --- The basis (_triplets) ---------------------------------------------------


# region_centres uses mini-batch k-means from this many points on (the
# reason is in its docstring).
# Evidence: NOTES.md, "Scale (issue 14)".
MINIBATCH_MIN_SAMPLES = 20_000


# --- Triplets, neighbours and data (_triplets, _arrays, _validation) ---------

# The most anchors the triplets are mined from (module notes): 600,000
# triplets, more than RDA draws before it stops at any size measured. On
# 16 generated problems of 100,000 to 500,000 points, 20,000 anchors erred
# as 50,000 did (+0.06 +- 0.28 points) and fitted 1.4 to 2.0x faster.
# Evidence: NOTES.md, "20,000 anchors"; docs/scaling.rst.
MAX_ANCHORS = 20_000


# --- SCML-Local's embedding (_local) -----------------------------------------

# method='auto' uses the Nyström approximation from this many points on:
# five times its default landmarks, where both embeddings cost the same
# fit time and erred alike on real data; the exact kernel's cost grows
# as n squared beyond (3x the Nyström fit's at 14,000 points).
# Evidence: NOTES.md, "SCML-Local's Nyström embedding from 5,000 points".
NYSTROEM_MIN_SAMPLES = 5_000


# --- partial_fit (_pipelines, _base) -----------------------------------------

# The default bound of the memory: the most earlier points that a later
# batch's triplets are mined against.
# Evidence: NOTES.md, "partial_fit at scale".
DEFAULT_MEMORY = 50_000


def fill(text):
    """``text`` with each ``{{NAME}}`` (``{{NAME:d}}``: as a plain integer)
    replaced by that constant of this module, written as the docs write
    numbers (``100,000``, ``1e-3``, ``2e8``); None (docstrings under
    ``python -OO``) stays None."""
    def value(match):
        number = globals()[match.group(1)]
        if match.group(2) == ":d" or isinstance(number, bool):
            return str(number)
        if isinstance(number, int):
            return "{:,}".format(number)
        if number != 0 and not 0.01 <= abs(number) < 1e5:
            mantissa, exponent = ("%.0e" % number).split("e")
            return "%se%d" % (mantissa, int(exponent))
        return "%g" % number
    if text is None:
        return None
    return re.sub(r"\{\{([A-Z_0-9]+)(:d)?\}\}", value, text)
