r"""Numpydoc fragments of the estimators' parameters and attributes.

One entry per parameter (and per variant, as ``"beta:auto"``), so a class
docstring lists the names it takes (:func:`parameters`) and each text is
written once. Values of :mod:`._defaults` appear as ``{{NAME}}`` and are
filled in from there (:func:`fill`), so that no number is typed twice.
"""

import re

from . import _defaults


PARAMETERS = {
    'solver:group': r"""    solver : {'rda', 'exact', 'auto'}, default='rda'
        ``'rda'`` is the paper's regularized dual averaging. ``'exact'``
        then takes its result to the exact optimum of the same problem
        (column generation over the directions of the group norm, each
        round a linear program, certified by the duality gap
        ``dual_gap_``; beyond the paper): on the paper's multi-task Vowel
        data it halves the active elements (159 -> 84 at the tuned beta,
        3-NN error 8.0 -> 7.4 %) for 0.3 to 0.7 s more per fit, and on
        satimage cut into 3 tasks it keeps a quarter of them (557 -> 147)
        at 4 to 12 times RDA's fit time; but its linear programs are dense
        in tasks x triplets, and on four 800-point text tasks a fit took 2
        to over 10 minutes against RDA's 3 to 10 s (and, with its gap
        tolerance loosened to 1e-3, 5 minutes for 375 active elements
        against RDA's 341); on hard data (overlapping classes) even 20,000
        to 45,000 triplets in 3 to 5 tasks took from 13 s to over 5
        minutes, where RDA takes 1 to 3 s, and the optimum was not always
        sparser; hence not the default. ``'auto'`` runs the exact phase up to {{EXACT_MAX_TRIPLETS}}
        triplets in all, within a budget of {{EXACT_WORK_RATIO}} times RDA's work (counted
        in entries of triplets x elements, so that a fit is the same on any
        machine; out of budget it keeps its best point and reports the
        duality gap), and is ``'rda'`` beyond (and at ``beta=0``). A duality
        gap above ``{{EXACT_GAP_TOL}}`` times the objective after the phase has ended is
        not a certificate: the fit then warns (``ConvergenceWarning``).""",
    'embedding_method': r"""    embedding_method : {'auto', 'exact', 'nystroem'}, default='auto'
        The kernel PCA of :math:`z_x`: ``'exact'`` on the
        ``n_samples x n_samples`` kernel; ``'nystroem'`` through a Nyström
        approximation on ``n_landmarks`` points (scikit-learn's
        ``Nystroem``, then PCA), whose memory grows as ``n_samples``;
        ``'auto'`` is exact below {{NYSTROEM_MIN_SAMPLES}} points. Beyond the paper.""",
    'n_landmarks': r"""    n_landmarks : int, default=1000
        Landmark points of the Nyström approximation.""",
    'beta': r"""    beta : float, default=1e-5
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. The hinge loss has a unit
        margin, so the useful range depends on the scale of the data: the
        default suits standardised features, and data scaled by ``s`` give
        the same metric with ``beta * s**2``.""",
    'n_basis': r"""    n_basis : int, default=None
        Number of basis elements to generate (ignored for an array
        ``basis``). ``None`` uses ``clip(20 * n_features, 400, 1000)``, the
        paper's sizes. Fewer are produced when the data cannot give that
        many distinct regions or regions repeat an element (each element
        is kept once).""",
    'gamma': r"""    gamma : float, default=1.0
        RDA step parameter :math:`\gamma` (> 0): the iterate is
        :math:`w_{t+1} = \max(0, -(\sqrt{t}/\gamma)(\bar g_t + \beta))`,
        taken in units where the triplet vectors :math:`g` have mean
        absolute entry one, so the default suits data of any scale. Larger
        is slower and steadier; much smaller overshoots and gives noisy,
        less sparse iterates. (The paper's 5e-3 was in the units of its
        unit-norm data, about 1 to 10 in these.)""",
    'max_iter': r"""    max_iter : int, default=20000
        Maximum number of stochastic iterations.""",
    'output_iter': r"""    output_iter : int, default=250
        Iterations between two evaluations of the full objective (for the
        stopping rule, the best iterate and the ``verbose`` table).""",
    'batch_size': r"""    batch_size : int, default=32
        Triplets per iteration. A batch of every triplet or more is one
        pass over all of them per iteration (full-batch dual averaging,
        with no draws).""",
    'tol': r"""    tol : float, default=1e-3
        Improvement of the best objective below which an evaluation counts
        as no progress (absolute: the objective is 1 at ``w = 0``).""",
    'n_iter_no_change': r"""    n_iter_no_change : int, default=4
        Evaluations in a row without progress that stop the solver.""",
    'verbose': r"""    verbose : bool, default=False
        Print what the fit does, stage by stage, with each stage's time:
        the choice of beta (each held-out cut, the values tried, their
        held-out errors and the chosen one), the triplets, the basis, the
        solvers' progress tables (iteration, objective, active elements,
        time), the exact phase and its duality gap, and a fallback to the
        Euclidean metric with its reason. ``fit_stages_`` keeps the same
        record.""",
    'preprocessor': r"""    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Turns indices into points, as in metric-learn.""",
    'random_state': r"""    random_state : int, RandomState instance or None, default=None
        Seeds the regions of the basis and the sampling of triplets.""",
    'solver': r"""    solver : {'auto', 'exact', 'rda'}, default='auto'
        ``'rda'`` is the paper's regularized dual averaging. ``'exact'``
        then takes its result to the exact optimum of the same problem (a
        linear program, solved on a working set of triplets and elements
        and certified by the duality gap ``dual_gap_``; beyond the paper).
        ``'auto'`` runs the exact phase up to {{EXACT_MAX_TRIPLETS}} triplets (a thirtieth as
        many points at 3 x 10 triplets per point), at a given beta or one chosen
        by ``beta='auto'``, within a budget of {{EXACT_WORK_RATIO}} times RDA's work
        (in entries of triplets x elements: about its time, the same on any
        machine and under any load): out of budget, it keeps its best point
        (RDA's, or a better round's) and reports the duality gap in
        ``dual_gap_`` and ``fit_stages_``. It is ``'rda'`` beyond that size and
        at ``beta=0`` (no bound on the weights then keeps the linear program
        well scaled). ``'exact'`` has no budget: the certified optimum,
        whatever it costs. A duality gap above ``{{EXACT_GAP_TOL}}`` times the
        objective after the phase has ended is not a certificate: the fit then
        warns (``ConvergenceWarning``).""",
    'n_components': r"""    n_components : int, default=None
        Width of the embedding ``transform`` gives. ``None`` keeps the
        learned metric whole: one row of ``components_`` per active element
        when fewer than ``n_features`` are active (so the width depends on
        the data, as in metric-learn's SCML), ``n_features`` otherwise. An
        int ``k`` (at most ``n_features``) keeps the top ``k``
        eigen-directions of :math:`M`, each scaled by the square root of
        its eigenvalue, as scikit-learn's ``NeighborhoodComponentsAnalysis``
        and metric-learn's ``components_from_metric``: ``transform`` then
        has exactly ``k`` columns, the last ones zero where :math:`M` has
        rank below ``k``, and ``get_mahalanobis_matrix()`` is
        :math:`L^T L`, the rank-``k`` truncation of :math:`M`, which every
        distance then uses. The weights, ``beta`` and the Euclidean
        fallback are those of the whole metric (the fallback, with equal
        eigenvalues, keeps ``k`` coordinate axes). Beyond the paper.""",
    'n_components:per_task': r"""    n_components : int, default=None
        Width of each task's embedding (``transform(X, task=...)`` and
        ``for_task(task)``): ``None`` keeps each task metric whole, an int
        ``k`` (at most ``n_features``) its top ``k`` eigen-directions, as
        ``n_components`` of :class:`~metric_learn_scml.SCML_Supervised`
        does; ``get_mahalanobis_matrix(task)`` is then the rank-``k``
        truncation of :math:`M_t`. Beyond the paper.""",
    'partial_fit_memory': r"""    partial_fit_memory : int, default={{DEFAULT_MEMORY:d}}
        The most points ``partial_fit`` remembers: a uniform random sample
        of the points seen so far (reservoir sampling), kept with their
        labels and tasks, ``8 * partial_fit_memory * (n_features + 2)``
        bytes at most (20 MB for 50,000 points of 50 features). Each batch's
        points are the anchors of its triplets, their targets and
        impostors the nearest among the batch and the memory (within
        their task), as ``fit`` finds them among all its points; and when
        the batch and the memory hold twice the points the basis was
        drawn from, a generated basis is drawn anew from them, its
        elements of zero weight replaced by new ones (those in use are
        kept, with their solver state). The default is the most anchors
        ``fit`` mines. 0 remembers nothing: each batch mines its own
        triplets and the first batch's basis is kept. ``fit`` ignores it.
        Beyond the paper.""",
    'beta:auto': r"""    beta : 'auto' or float, default='auto'
        Strength of the sparsity penalty :math:`\beta \|w\|_1` (>= 0).
        Larger values keep fewer basis elements. ``'auto'`` chooses it on a
        stratified fifth of the training points held out ({{MAX_VALIDATION_POINTS}} points at
        most are scored): the rest ({{MAX_SELECTION_POINTS}} points at most) is fitted for
        {{N_BETAS}} values from :math:`10^{-0.5}`
        to :math:`10^{-5}` times the smallest beta that keeps no element,
        and each is scored by the 3-NN error of the held-out points; the
        next fifth is held out in turn (a stratified 5-fold) until
        {{MIN_SCORED_POINTS}} points are scored, so that small data are scored on every
        point. Among the values whose error is within {{ERROR_BAND}} paired
        standard error of the least, the smallest (the densest model) wins:
        a sparser model within the noise is a choice made on noise. The
        model is then fitted on
        every point at that value (see :class:`SCML_SupervisedCV` for
        k-fold cross-validation). Where the Euclidean metric beats every
        value on the held-out points by more than a standard error, the
        chosen value keeps no element, or the learned metric maps distinct
        training points onto one (on discrete data), the Euclidean metric
        is returned (``euclidean_fallback_``; beyond the paper: on data
        such as the KEEL titanic and marketing sets the learned metric was
        worse, or zero). The useful value moves by orders of
        magnitude between datasets, and the rule is scale-free. A float is
        used as given (the paper's value is ``1e-5``, for standardised
        features; data scaled by ``s`` give the same metric with
        ``beta * s**2``).""",
    'beta:group': r"""    beta : float, default=1e-5
        Strength of the group penalty
        :math:`\beta \sum_k \|W_{:,k}\|_2` (>= 0). Larger values keep fewer
        basis elements, and an element is dropped for all tasks at once.""",
    'beta:group_auto': r"""    beta : 'auto' or float, default='auto'
        Strength of the group penalty
        :math:`\beta \sum_k \|W_{:,k}\|_2` (>= 0). Larger values keep
        fewer basis elements, and an element is dropped for all tasks at
        once. ``'auto'`` runs on each task the choice of
        :class:`~metric_learn_scml.SCML_Supervised`'s ``beta='auto'`` (the
        same held-out points, grid and rule), chooses from the tasks'
        held-out mistakes pooled at each multiple of :math:`\beta_{\max}`,
        and applies the chosen multiple to the norm of the
        tasks' :math:`\beta_{\max}`: for :math:`T` like tasks that is
        :math:`\sqrt{T}` times the single-task value, as the group norm of
        a column they share is :math:`\sqrt{T}` times one task's weight.
        Beyond the paper; there is no Euclidean fallback. A float is used
        as given (the paper's value is ``1e-5``, for standardised
        features).""",
    'n_basis:per_task': r"""    n_basis : int, default=None
        Number of basis elements to generate *per task* (ignored for an
        array ``basis``); the basis is the union of the task bases, each
        element kept once (see :class:`SCML_Supervised`). ``None`` uses
        ``K = clip(20 * n_features, 400, 1000)`` per task for up to four
        tasks (the paper: 400 for each of its four tasks, 1,600 in the
        union), and beyond that splits the same union budget ``4 * K``
        evenly, ``max(n_features, ceil(4 * K / n_tasks))`` per task, so
        that the cost of a step grows linearly with the number of tasks,
        not quadratically.""",
    'batch_size:per_task': r"""    batch_size : int, default=32
        Triplets drawn from every task at each iteration. A batch that
        covers the largest task is one pass over every triplet per
        iteration (each task's expected batch, with no draws).""",
    'tol:per_task': r"""    tol : float, default=1e-3
        Improvement of the best objective, per task, below which an
        evaluation counts as no progress: the objective is a sum of one
        mean hinge per task (``n_tasks`` at ``W = 0``), so the solver stops
        on improvements below ``n_tasks * tol``, the rule a single-task
        model applies to each task.""",
    'embedding_dim': r"""    embedding_dim : int, default=40
        Dimension :math:`D'` of the kernel PCA embedding :math:`z_x` (the
        paper uses 40, and 100 for its larger datasets). At most
        ``n_samples - 1`` components exist, so fewer are used on small data
        (``embedding_dim_``).""",
    'learning_rate': r"""    learning_rate : float, default=0.3
        Step of forward-backward splitting, in units where the triplet
        vectors :math:`g` are of order one (the step on :math:`[A; c]` is
        ``learning_rate`` divided by their mean absolute entry).""",
}

ATTRIBUTES = {
    'euclidean_fallback_': r"""    euclidean_fallback_ : bool
        With ``beta='auto'`` and a generated basis: True when the model is
        the Euclidean metric (``basis_`` the coordinate axes, ``weights_``
        ones; ``n_iter_`` 0, ``objective_`` and ``dual_gap_`` NaN),
        because it did better on the held-out points, the chosen beta kept
        no element, or the learned metric mapped distinct training points
        onto one.""",
    'components_': r"""    components_ : ndarray of shape (n_components, n_features)
        Linear map :math:`L` with :math:`M = L^T L`: with
        ``n_components=None``, the rows :math:`\sqrt{w_k} b_k` of the
        active elements when there are fewer than ``n_features`` of them,
        otherwise the symmetric square root of :math:`M`; with an int, the
        top eigen-directions of :math:`M` scaled by the square roots of
        their eigenvalues, in decreasing order.""",
    'weights_': r"""    weights_ : ndarray of shape (n_basis,)
        Learned non-negative weights :math:`w`.""",
    'basis_': r"""    basis_ : ndarray of shape (n_basis, n_features)
        The unit-norm basis rows :math:`b_k`.""",
    'n_active_basis_': r"""    n_active_basis_ : int
        Number of elements with non-zero weight.""",
    'beta_': r"""    beta_ : float
        The beta used (``beta``, or, for the learners that take
        ``beta='auto'``, the one it chose).""",
    'fit_stages_': r"""    fit_stages_ : list of dict
        The stages of the last fit (or ``partial_fit`` call), in order,
        each a dict with ``stage`` (its name), ``seconds`` and what it found
        (counts, the values of beta tried and their held-out errors, the
        chosen beta, a duality gap, the reason of a fallback; for RDA
        and the exact phase, their ``work`` in triplet-element entries,
        the unit of the phase's ``budget``), as ``verbose`` prints them.""",
    'dual_gap_': r"""    dual_gap_ : float
        Duality gap of the weights, an upper bound on their distance to the
        optimal objective, where the exact phase ran; else NaN.""",
    'n_iter_': r"""    n_iter_ : int
        Stochastic iterations run.""",
    'objective_': r"""    objective_ : float
        Objective value of the returned weights.""",
    'objective_history_': r"""    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, objective, n_active)`` at every evaluation.""",
    'n_features_in_': r"""    n_features_in_ : int
        Number of features seen during fit.""",
    'beta_path_, validation_error_path_, validation_triplet_error_path_': r"""    beta_path_, validation_error_path_, validation_triplet_error_path_ : ndarray of shape (n_betas,)
        With ``beta='auto'``: the values tried, and the held-out 3-NN error
        and triplet error under each (empty where too few points per
        class could be held out, and ``beta_`` is then {{FALLBACK_BETA}}).""",
    'tasks_': r"""    tasks_ : ndarray of shape (n_tasks,)
        The task ids, sorted as by :func:`numpy.unique`; row ``t`` of
        ``weights_`` belongs to ``tasks_[t]``.""",
    'mt:weights_': r"""    weights_ : ndarray of shape (n_tasks, n_basis)
        Learned non-negative weights :math:`W`.""",
    'mt:basis_': r"""    basis_ : ndarray of shape (n_basis, n_features)
        The unit-norm basis rows :math:`b_k` (task bases stacked in the
        order of ``tasks_``, an element repeated in a later task's basis
        kept once).""",
    'active_basis_': r"""    active_basis_ : ndarray of int
        Indices of the basis elements used by at least one task (the
        shared active set).""",
    'mt:n_active_basis_': r"""    n_active_basis_ : int
        Size of the shared active set.""",
    'n_active_basis_per_task_': r"""    n_active_basis_per_task_ : ndarray of shape (n_tasks,)
        Elements with non-zero weight in each task.""",
    'components_per_task_': r"""    components_per_task_ : list of ndarray of shape (n_components_t, n_features)
        Linear map :math:`L_t` of each task (:math:`M_t = L_t^T L_t`). There
        is no single ``components_``: use ``for_task(task)`` for a plain
        estimator of one task's metric.""",
    'mt:objective_': r"""    objective_ : float
        Objective value of the returned weights (``n_tasks`` at ``W = 0``).""",
    'coef_': r"""    coef_ : ndarray of shape (embedding_dim\_, n_basis)
        :math:`A`.""",
    'intercept_': r"""    intercept_ : ndarray of shape (n_basis,)
        :math:`c`; with ``coef_ = 0`` the model is SCML-Global.""",
    'global_weights_': r"""    global_weights_ : ndarray of shape (n_basis,)
        The SCML-Global solution :math:`w^*` the local stage starts from.""",
    'local:basis_': r"""    basis_ : ndarray of shape (n_basis, n_features)
        Unit-norm basis rows :math:`b_k`.""",
    'embedding_': r"""    embedding_ : KernelPCAEmbedding
        The fitted kernel PCA.""",
    'embedding_dim_': r"""    embedding_dim_ : int
        Components actually used.""",
    'local:n_active_basis_': r"""    n_active_basis_ : int
        Elements whose column :math:`(a_k, c_k)` is non-zero.""",
    'local:objective_': r"""    objective_ : float
        Local objective of the returned parameters.""",
    'start_objective_': r"""    start_objective_ : float
        Local objective at the start :math:`A = 0, c = \sqrt{w^*}`
        (never below ``objective_``).""",
    'global_objective_': r"""    global_objective_ : float
        SCML-Global objective of :math:`w^*`.""",
    'local:objective_history_': r"""    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, objective, n_active)`` of the local stage.""",
    'n_iter_, global_n_iter_': r"""    n_iter_, global_n_iter_ : int
        Iterations of the local and global stages.""",
    'local:n_features_in_': r"""    n_features_in_ : int""",
}


def fill(text):
    """``text`` with each ``{{NAME}}`` (``{{NAME:d}}``: as a plain integer)
    replaced by that constant of :mod:`._defaults`, written as the docs
    write numbers (``100,000``, ``1e-3``)."""
    def value(match):
        number = getattr(_defaults, match.group(1))
        if match.group(2) == ":d" or isinstance(number, bool):
            return str(number)
        if isinstance(number, int):
            return "{:,}".format(number)
        if number != 0 and abs(number) < 0.01:
            mantissa, exponent = ("%.0e" % number).split("e")
            return "%se%d" % (mantissa, int(exponent))
        return "%g" % number
    return re.sub(r"\{\{([A-Z_0-9]+)(:d)?\}\}", value, text)


PARAMETERS = {name: fill(text) for name, text in PARAMETERS.items()}
ATTRIBUTES = {name: fill(text) for name, text in ATTRIBUTES.items()}


def _section(table, names):
    return "".join("\n" + table[name] for name in names)


def parameters(*names):
    """The numpydoc entries of ``names`` (keys of :data:`PARAMETERS`)."""
    return _section(PARAMETERS, names)


def attributes(*names):
    """The numpydoc entries of ``names`` (keys of :data:`ATTRIBUTES`)."""
    return _section(ATTRIBUTES, names)


# The parameters and attributes of the multi-task learners, in order.
MULTITASK_PARAMETERS = (
    "beta:group", "n_basis:per_task", "gamma", "max_iter", "output_iter",
    "batch_size:per_task", "tol:per_task", "n_iter_no_change",
    "solver:group", "verbose", "preprocessor", "random_state",
    "n_components:per_task")
MULTITASK_ATTRIBUTES = (
    "tasks_", "beta_", "mt:weights_", "mt:basis_", "active_basis_",
    "mt:n_active_basis_", "n_active_basis_per_task_", "components_per_task_",
    "n_iter_", "mt:objective_", "objective_history_", "dual_gap_",
    "fit_stages_", "n_features_in_")

PER_TASK_INTERFACE = """
    Every metric method takes the task: ``get_mahalanobis_matrix(task)``,
    ``get_metric(task)``, ``transform(X, task=...)``,
    ``pair_distance(pairs, task=...)``, ``pair_score(pairs, task=...)``;
    without one they raise a ``ValueError`` (there is no sensible global
    metric). ``for_task(task)`` returns the task's metric as a plain
    :class:`~metric_learn_scml.multitask.TaskMetric`."""

# SCML-Local's own parameters and attributes, and its notes.
LOCAL_PARAMETERS = r"""
    embedding_dim : int, default=40
        Dimension :math:`D'` of the kernel PCA embedding :math:`z_x` (the
        paper uses 40, and 100 for its larger datasets). At most
        ``n_samples - 1`` components exist, so fewer are used on small data
        (``embedding_dim_``).
    learning_rate : float, default=0.3
        Step of forward-backward splitting, in units where the triplet
        vectors :math:`g` are of order one (the step on :math:`[A; c]` is
        ``learning_rate`` divided by their mean absolute entry).""" + parameters(
    "embedding_method", "n_landmarks")

LOCAL_ATTRIBUTES = r"""
    coef_ : ndarray of shape (embedding_dim\_, n_basis)
        :math:`A`.
    intercept_ : ndarray of shape (n_basis,)
        :math:`c`; with ``coef_ = 0`` the model is SCML-Global.
    global_weights_ : ndarray of shape (n_basis,)
        The SCML-Global solution :math:`w^*` the local stage starts from.
    basis_ : ndarray of shape (n_basis, n_features)
        Unit-norm basis rows :math:`b_k`.
    embedding_ : KernelPCAEmbedding
        The fitted kernel PCA.
    embedding_dim_ : int
        Components actually used.
    n_active_basis_ : int
        Elements whose column :math:`(a_k, c_k)` is non-zero.
    objective_ : float
        Local objective of the returned parameters.
    start_objective_ : float
        Local objective at the start :math:`A = 0, c = \sqrt{w^*}`
        (never below ``objective_``).
    global_objective_ : float
        SCML-Global objective of :math:`w^*`.
    objective_history_ : ndarray of shape (n_evaluations, 3)
        ``(iteration, held-out triplet error, n_active)`` of the local
        stage: the fraction of the triplets anchored at a held-out fifth
        of the points that its metric orders wrongly. The stage steps on
        the other triplets, keeps its best iterate there (the start
        included, so it never ends worse than its start on them) and
        stops when it has not improved for ``n_iter_no_change``
        evaluations (early stopping; beyond the paper). Where fewer than
        two anchors leave nothing to hold out, or the start is the
        Euclidean metric kept by the held-out points, ``(iteration,
        objective, n_active)`` over all triplets.
    n_iter_, global_n_iter_ : int
        Iterations of the local and global stages.
    beta_, global_beta_ : float
        The betas of the local and global stages (as given, or chosen).
    dual_gap_ : float
        Duality gap of the global stage's weights where its exact phase
        ran; else NaN.
    kkt_residual_ : float
        How far the local parameters are from a stationary point of the
        local objective: the largest violation, over the non-zero columns
        :math:`(a_k, c_k)`, of their first-order condition
        :math:`\nabla_k f + \beta (a_k, c_k) / \|(a_k, c_k)\| = 0`
        (:func:`metric_learn_scml._local.local_kkt_residual`), in the
        units of ``beta``. The problem is not convex, so this certifies a
        stationary point, not the optimum (the global models' counterpart
        is ``dual_gap_``). The stochastic solver stops on held-out
        triplets, not on this value. Beyond the paper.
    fit_stages_ : list of dict
        The stages of the last fit, each with ``stage``, ``seconds`` and
        what it found, as ``verbose`` prints them.
    n_features_in_ : int"""

LOCAL_NOTES = r"""
    Notes
    -----
    The solver takes mini-batch steps with a prox at every step and stops
    on triplets of held-out points (``objective_history_``), instead of the paper's 200,001 single-triplet steps
    of 0.7 with a prox every 5,000 (see
    :func:`metric_learn_scml._local.forward_backward`). An element whose
    global weight is zero starts with a zero column, where the gradient of
    the loss vanishes, so the local model uses a subset of the elements of
    the global one. :class:`LocalSCML` uses one ``beta`` for both stages
    by default, as the authors' code does; :class:`LocalSCML_Supervised`
    chooses the global stage's from the data (``global_beta``). Kernel
    PCA stores the ``n_samples x n_features`` training points and needs
    an ``n_samples x n_samples`` kernel at fit time (over 600 points
    that hold at most 600 distinct ones: those, and a kernel between
    them). There is no ``n_components``: the metric changes from point to
    point, so no single linear map of fewer dimensions preserves it (the
    global learners' ``n_components`` truncates their one metric)."""


# The parameters every learner takes after beta (and basis), in order; the
# single-task solver's; the attributes of a learner of one linear metric.
COMMON = ("n_basis", "gamma", "max_iter", "output_iter", "batch_size", "tol",
          "n_iter_no_change", "verbose", "preprocessor", "random_state")
SOLVER = ("solver",)
LINEAR_ATTRIBUTES = ("components_", "weights_", "basis_", "n_active_basis_",
                     "beta_", "dual_gap_", "n_iter_", "objective_",
                     "objective_history_", "fit_stages_", "n_features_in_")
AUTO_BETA_ATTRIBUTES = ("beta_path_, validation_error_path_, validation_triplet_error_path_",
                        "euclidean_fallback_")
