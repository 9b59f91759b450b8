r"""Every constant of the default path, in one place.

Each value the defaults depend on is here, with why it is what it is
(its comment) and where the evidence is (``Evidence:``, a section of
``benchmarks/results/NOTES.md``, a docs page or a commit; "speed only",
"memory only" or "numerical" where no value changes a result beyond
rounding). The modules import them from here, and the docs read the
user-facing ones from here (``docs/conf.py``'s substitutions and
``_docs.fill``), so that no number is typed twice. A constant that a
measurement shows to buy nothing is deleted, not moved.
"""


# --- Choosing beta (beta='auto'; _selection) ---------------------------------

# beta='auto': the share of the training points held out to choose beta,
# and the most points its path is fitted on (the loss is a mean over
# triplets, so beta carries over to more points).
# Evidence: NOTES.md, "Fit time and the selection on small data".
VALIDATION_FRACTION = 0.2
MAX_SELECTION_POINTS = 1000

# ... but at least this many per class: a stratified 1,000 of 1,000 classes
# left one point per class, which gives no triplet (and more classes than
# points could not be drawn at all).
MIN_SELECTION_POINTS_PER_CLASS = 5

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

# Neighbours of the held-out score (the paper evaluates with 3-NN).
# Evidence: the paper's protocol.
SCORE_NEIGHBOURS = 3

# Betas whose held-out 3-NN error is within this many paired standard
# errors of the least one count as equally good, and the densest of them
# is kept (see best_beta). On the small-data group (100 and 300 training
# points) this and MIN_SCORED_POINTS gained 0.64 points over the former
# rule (half a binomial SE, the least triplet error, then the sparsest).
# Evidence: NOTES.md, "Small data: a choice of beta that uses every point".
ERROR_BAND = 1.0

# beta='auto' scores held-out points until this many are scored: the next
# fold of a stratified 5-fold is held out in turn, so that below 500
# points every point is scored once, and below 2,500 at least 500 are (at
# 300 points a single cut scored 60, whose 3-NN error has a standard
# error of 4 to 6 points).
# Evidence: NOTES.md, "Small data: a choice of beta that uses every point".
MIN_SCORED_POINTS = 500

# The Euclidean metric replaces the learned one where its held-out error is
# lower than the best beta's by more than this many standard errors. The
# best of seven betas' errors is biased low, so one standard error is
# already a margin: at two, KEEL marketing kept a metric 1.1 points worse
# than Euclidean (breadth, 4 seeds per split); at one the breadth table
# loses no dataset by more than a point and its mean gain is unchanged
# (+2.41 against +2.39; +2.34 at zero).
# Evidence: NOTES.md, "The Euclidean check at one standard error".
EUCLIDEAN_MARGIN = 1.0

# Two points are one under a map when their images agree to this many
# significant digits of the images' largest coordinate (the data's, for the
# Euclidean count).
# Evidence: numerical (rounding only; merges_points).
MERGE_DIGITS = 9


# --- The solvers (_solvers, _exact, _newton, _lp) ----------------------------

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
# work at the same beta, and EXACT_MIN_WORK at least; out of budget, it
# returns its best point with the duality gap. Work is counted in
# triplet-element entries: RDA's batches, and each LP's simplex iterations
# times its block (_solvers.rda_work, _exact.exact_weights), so that a fit
# is the same on any machine and under any load. On this project's
# machine both cost 1.4 to 6 ns an entry, so the ratio is about one of
# times; between 1,000 and 5,000 points the unbudgeted phase took 2 to 300
# times RDA's time. The floor (about half a second there) lets the phase
# of a small problem run to its end.
# Evidence: NOTES.md, "A budget for the exact phase", and its sequel "in
# work, not seconds".
EXACT_WORK_RATIO = 1.0
EXACT_MIN_WORK = 2e8

# The largest duality gap, relative to the objective, that the learners
# accept without a warning from either exact phase. The certificate scales
# the dual point by beta over its worst reduced cost, so it loses about
# HiGHS' feasibility tolerance divided by beta: 2.3e-6 on standardised iris
# at beta=1e-5, 1.4e-4 on 200 generated triplets at the default beta, 7e-3
# on the class docstring's triplets scaled by 10 (beta a hundred times
# smaller in the LP's units). Tighter HiGHS tolerances (1e-10) make it fail
# outright on wine and breast cancer at small beta.
# Evidence: NOTES.md, "Exactness of the global model's defaults".
EXACT_GAP_TOL = 1e-3

# With several tasks the exact phase stops at this duality gap, relative
# to the objective: its atoms approach the group norm's cones only in the
# limit (one task ends finitely, at the LP's optimum). Every Vowel problem
# of the multi-task benchmark reached it, within 1.5 s median.
# Evidence: the _newton module notes.
GROUP_GAP_TOL = 1e-6

# Triplets whose margin 1 + g.w is within MARGIN_BAND of 0 at the start are
# the LP's rows (the others are folded in or left out, and checked after
# it); on breast cancer, 0.1 at the RDA iterate gave LPs of 900 rows and the
# same optimum as 0.5 in a third of the time.
# Evidence: speed only (any value gives the same certified optimum).
MARGIN_BAND = 0.1

# The first atoms are the start's elements whose weight (norm over the
# tasks) exceeds START_ATOMS times the largest; the RDA iterate keeps many
# small weights that the optimum drops (mt-SCML on satimage in 3 tasks:
# 840 at the start, 176 at the optimum), and each atom is an LP row over
# every explicit triplet. 0.2 against every start element: exact phase
# 0.89x at the defaults (13 breadth datasets), 0.53x on satimage's tasks;
# 0.05 and 0.4 did less. NOTES.md, "The exact phase's folded rows".
# Evidence: speed only (any value gives the same certified optimum).
START_ATOMS = 0.2

# Columns added per round at most (the most negative reduced costs first),
# so that one round cannot turn a small LP into the whole problem.
# Evidence: speed only (any value gives the same certified optimum).
MAX_NEW_COLUMNS = 50

# Newton's system has (support + margin triplets) unknowns and is solved
# densely (about a second at 1,500 on one core); past this size the
# refinement is skipped and column generation alone goes on. Vowel's
# problems have 150 to 300.
# Evidence: speed only (the _newton module notes).
MAX_NEWTON_SIZE = 1500

# Relative zero of the weights HiGHS returns (its feasibility tolerance is
# 1e-7): smaller basic values are rounding, not elements of the model.
# Evidence: numerical (HiGHS' rounding).
ZERO_WEIGHT = 1e-9

# An LP dual value a in [0, 1] this close to a bound is on it.
# Evidence: numerical (HiGHS' rounding).
ON_BOUND = 1e-9

# Two atoms of a column whose directions agree to this (cosine) are one.
# Evidence: numerical (rounding only).
SAME_DIRECTION = 1.0 - 1e-12

# Above OBJECTIVE_SAMPLE_ABOVE triplets (about 33,000 points at 30 triplets
# a point), RDA's evaluations use a fixed sample of OBJECTIVE_SAMPLE of
# them: an evaluation then costs the same at any n, and the sample's mean
# hinge differs from the full one by about its standard error, 1e-3 or
# less, the size of tol.
# Evidence: NOTES.md, "Scale (issue 14)".
OBJECTIVE_SAMPLE_ABOVE = 1_000_000
OBJECTIVE_SAMPLE = 200_000

# Triplets behind triplet_scale's estimate: from one sample to the next it
# moves by about 1 % (on the digit and newsgroup stand-ins), and it only
# sets the solvers' units.
# Evidence: units only (results do not depend on it beyond rounding).
SCALE_SAMPLE = 2000

# Below this gamma, RDA's first steps overshoot so far that a zero model can
# come from gamma rather than from beta (1e-5 zeroed 60 points in 3 dimensions
# that gamma=1e-4 fitted); the zero-weights warning then names it too.
# Evidence: a warning's wording only.
SMALL_GAMMA = 1e-3


# --- The basis (_basis) ------------------------------------------------------

# Smallest relative ridge of the within-region scatter (where Ledoit-Wolf
# shrinks less): it keeps every solve finite and well conditioned.
# Evidence: the _basis module notes; NOTES.md, "Issue 26 item 4, measured
# and not adopted".
RIDGE = 1e-3

# Directions kept per region by the triplet basis, which has no class count
# to set it (the label basis keeps n_classes - 1).
TRIPLET_DIRECTIONS = 4

# Triplets per region at each scale of the triplet basis: about the number a
# 10- or 20-point neighbourhood yields under 3 targets x 10 impostors.
TRIPLET_SCALES = (60, 200)

# Task bases a default (n_basis=None) union holds in full; more tasks share
# that budget (see task_basis_size).
# Evidence: NOTES.md, "Scale (issue 14)".
MAX_DEFAULT_TASKS = 4

# Two unit rows are one basis element when |b . c| exceeds this: then
# b b^T = c c^T up to rounding. Regions whose neighbourhoods coincide (every
# region of a scale at least as large as every class takes the whole class)
# give identical FDA directions.
# Evidence: numerical (rounding only).
DUPLICATE_COSINE = 1.0 - 1e-9

# region_centres uses mini-batch k-means from this many points on (the
# reason is in its docstring).
# Evidence: NOTES.md, "Scale (issue 14)".
MINIBATCH_MIN_SAMPLES = 20_000

# Float64 elements of the per-region arrays built at once (32 MiB): a
# block of regions holds its points and the solve's square matrices.
# Evidence: memory only (results identical for any value).
REGION_BLOCK_ELEMENTS = 1 << 22


# --- Triplets, neighbours and data (_triplets, _arrays, _validation) ---------

# The most anchors the triplets are mined from (module notes).
# Evidence: NOTES.md, "Scale (issue 14)"; docs/scaling.rst.
MAX_ANCHORS = 50_000

# The most triplets the pairs of one anchor give (the k_genuine * k_impostor
# of the triplets mined from labels at their defaults): an anchor in many
# pairs would give the product of its similar and dissimilar partners.
# Evidence: the k_genuine x k_impostor default.
MAX_PAIR_TRIPLETS = 30

# Pairs that share no point (form no triplet) are each compared with this
# many pairs of the other kind, as quadruplets (beyond the paper): the
# k_impostor default, so a similar pair meets as many dissimilar ones as a
# point meets impostors in the triplets mined from labels, and the number
# of quadruplets stays at most this many times the number of pairs.
# Evidence: on the tasks of benchmarks/pairs.py (10 splits), 3, 10 and 30
# gave held-out pair accuracies of 97.4 / 97.1 / 97.3 % (generated), 82.0 /
# 82.1 / 81.8 % (digits) and 81.4 / 82.5 / 82.0 % (digits_shared), standard
# errors 0.1 to 0.6: 10 is as good as any, at a third of 30's quadruplets.
PAIR_QUADRUPLETS = 10

# Points whose mean lies farther from the origin than this many times their
# largest standard deviation are centred before distances are computed from
# them: an expansion |a|^2 - 2 a.b + |b|^2 (scikit-learn's neighbours and
# kernels) loses twice as many digits as the offset has over the spread
# (data at 1e7 and 1e8 plus unit noise gave metrics 0.1 % and 17 % off, and
# another beta='auto'). Below this ratio at most 6 of float64's 16 digits
# go, and the data are used bit for bit as given (as after a StandardScaler).
# Evidence: NOTES.md, "Probing rounds four and five, data far from the
# origin".
OFFSET_RATIO = 1e3

# The range of feature magnitudes accepted. The solvers run on the data
# brought to unit scale (see unit_scale), so their float32 tables neither
# overflow nor underflow. The basis is built from squares at the user's
# scale, which overflow beyond 1e154 and underflow below 1e-154, and the
# learned metric scales as 1 / scale**2: within 1e-100 to 1e100 its
# entries stay within 1e200 of those learned on standardised data.
# Evidence: numerical (float64's range).
MAX_ABS_VALUE = 1e100
MIN_ABS_VALUE = 1e-100

# Features whose standard deviations differ by more than this factor get a
# warning: the local Fisher directions, the default beta and the Euclidean
# neighbours the triplets come from all assume comparable scales (iris with
# its features scaled by 1e6, 1, 1e-3 and 1: 3-NN accuracy 0.68 under the
# learned metric against 0.75 under the Euclidean one).
# Evidence: a warning only.
SCALE_SPREAD_WARNING = 1e4


# --- SCML-Local's embedding (_embedding) -------------------------------------

# method='auto' uses the Nyström approximation from this many points on.
# The exact kernel is n x n in single precision (1.6 GB at 20,000 points,
# several times that at the fit's peak); below the threshold, which is
# above the largest committed SCML-Local fit (18,000 Letters points), the
# exact embedding keeps earlier results unchanged.
# Evidence: NOTES.md, "Scale (issue 14)".
NYSTROEM_MIN_SAMPLES = 20_000

# Landmarks of the Nyström approximation by default. The leading components
# are captured first: 1,000 landmarks hold 99 % of the variance of the
# exact top 10 components and over 90 % of the top 40 on 10-class data
# (the figures are in the commit that set it); the cost grows as n m^2.
# Evidence: the commit that set it.
N_LANDMARKS = 1000

# Eigenvalues below this fraction of the largest are treated as zero: their
# directions carry no real variance of the training data.
# Evidence: numerical (rounding only).
RELATIVE_EIGENVALUE_FLOOR = 1e-6

# Above this many points, the top eigenpairs come from ARPACK instead of a
# full eigendecomposition (3,000 points: 1.2 s instead of 9 s, one thread).
# Evidence: speed only (both give the same eigenpairs).
DENSE_EIGEN_POINTS = 600


# --- partial_fit (_memory, _base) --------------------------------------------

# The default bound of the memory: the most anchors fit itself mines
# triplets from (beyond them it samples anchors).
# Evidence: NOTES.md, "partial_fit at scale".
DEFAULT_MEMORY = MAX_ANCHORS

# A new basis is drawn once the points it would come from are this many
# times those of the current one: a basis of J points per class grows
# more local with the density of its points, so doubling them redraws it
# log2(memory / first batch) times in all (NOTES, "partial_fit at scale").
# Evidence: NOTES.md, "partial_fit at scale".
BASIS_GROWTH = 2

# partial_fit warns when a batch's largest value is this many times larger
# or smaller than the first batch's (a metric learned in the first batch's
# units; the largest value of batches of one distribution moves far less).
# Evidence: a warning only.
BATCH_SCALE_RATIO = 100.0


# --- Memory and cache (results identical for any value) ----------------------

# Bytes of squared differences computed at once (table building and
# on-the-fly distances): blocks that stay in cache, so temporaries stay
# small whatever the basis size.
CHUNK_BYTES = 1 << 20

# Memory allowed for the table of squared differences of every distinct pair
# (see SquaredDifferences). Letters with 3,000 points x 13 pairs and 1,000
# basis elements needs 156 MB in float32.
PAIR_TABLE_BYTES = 512 * 2 ** 20

# The most bytes the projections P = X B^T may take (n x K float64); beyond
# (a million points on 1,000 elements would take 8 GB), P is never formed
# and the differences of pairs are projected instead (FactoredProjections,
# chosen by scaled_differences).
PROJECTION_BYTES = 1 << 30

# Query rows handled at once by the local model (bounds the memory of the
# distance block to this many rows times the training size).
QUERY_BLOCK = 1024

# Entries of the float64 block of distances computed at a time (16 MiB).
DISTANCE_BLOCK_ELEMENTS = 1 << 21
