"""Array helpers shared by the maths modules: block sizes, scales and the
distinct rows (points) that index triplets."""

import contextlib

import numpy as np
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors
from sklearn.utils import check_random_state

# Bytes of squared differences computed at once (table building and
# on-the-fly distances): blocks that stay in cache, so temporaries stay
# small whatever the basis size.
# Evidence: memory only (results identical for any value).
CHUNK_BYTES = 1 << 20


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

# Exact neighbour searches among this many points or more, on more than
# KD_TREE_MAX_FEATURES features, compare every pair (scikit-learn's
# algorithm='brute') instead of taking scikit-learn's choice, a k-d tree up
# to 15 features: the tree's cost grows with the features and passes the
# brute search's from about 9 (mining 100,000 generated points on 15
# features: 70 s against 17 s, the same triplets). Below, the tree stays:
# it is faster on few features, and small searches cost little either way.
# The brute search expands |a - b|^2 = |a|^2 - 2 a.b + |b|^2, which loses
# the digits of the points' offset over their spread (5,000 points at 1e8
# from the origin: 3-NN accuracy 0.62 against the tree's 0.97), so points
# whose mean lies more than BRUTE_MAX_OFFSET times their spread from the
# origin (far_mean) keep the tree.
# Evidence: NOTES.md, "Neighbour searches on 9 to 15 features", and its
# sequel on points far from the origin.
KD_TREE_MAX_FEATURES = 8
BRUTE_MIN_POINTS = 5_000
BRUTE_MAX_OFFSET = 10.0


def check_range(who, X):
    """Raise a ``ValueError`` naming ``who`` (a string) and the fix when the
    features of ``X`` reach beyond ``MAX_ABS_VALUE`` or all lie below
    ``MIN_ABS_VALUE`` in absolute value. SCML is equivariant to the scale
    of the data (``X * s`` with ``beta * s**2`` is the same model), and the
    Euclidean neighbours of the triplets are too, so rescaling loses
    nothing."""
    largest = largest_magnitude(X)
    if largest > MAX_ABS_VALUE or largest < MIN_ABS_VALUE:
        large = largest > MAX_ABS_VALUE
        raise ValueError(
            "%s got features %s %.3g in absolute value: at that scale the "
            "squared distances it computes %s. Standardise the features "
            "(e.g. with sklearn.preprocessing.StandardScaler) or %s them "
            "by a constant; SCML learns the same metric up to scale (with "
            "beta scaled by the square of the factor)." % (
                who, "up to" if large else "of at most",
                largest, "overflow" if large else "underflow",
                "divide" if large else "multiply"))


def check_magnitude(who, X):
    """Refuse points given after ``fit`` (to ``who``, a name) beyond
    ``MAX_ABS_VALUE``, whose
    squared distances overflow (inf, or NaN in a local metric); ``fit``
    refuses them too (``_validation.check_scale``)."""
    largest = largest_magnitude(X)
    if largest > MAX_ABS_VALUE:
        raise ValueError(
            "%s got points with features up to %.3g in absolute value, "
            "beyond %g: their squared distances overflow. Scale new points "
            "as the training points were (e.g. with the StandardScaler "
            "fitted on them)." % (who, largest, MAX_ABS_VALUE))
    return X


def plain(value):
    """A numpy scalar as the Python value (for messages and records)."""
    return value.item() if isinstance(value, np.generic) else value


def checked_random_state(random_state):
    """``check_random_state(random_state)``, with an error that names the
    parameter."""
    try:
        return check_random_state(random_state)
    except ValueError as error:
        raise ValueError(
            "random_state must be None, an int in 0..2**32 - 1 or a "
            "numpy.random.RandomState, got %r (%s)." % (
                random_state, error)) from None


def check_known_labels(values, name):
    """Raise a ``ValueError`` naming ``name`` when labels of object dtype
    (a list, an object array, a pandas column) hold NaN or pandas' NA.

    scikit-learn's check says "Input contains NaN" without the name for
    the first, and fails with "boolean value of NA is ambiguous" on the
    second. None is left to the label-type checks, which name it.
    """
    if values is None or isinstance(values, (str, bytes)):
        return
    try:
        values = np.asarray(values)
    except (TypeError, ValueError):
        return  # ragged: the shape checks say so
    if values.dtype != object:
        return
    try:
        # NaN differs from itself; NA's comparisons are NA, whose truth
        # value raises.
        unknown = (values != values).any()
    except TypeError:
        unknown = True
    if unknown:
        raise ValueError(
            "%s contains missing values (NaN or pandas.NA): every label "
            "must be known. Drop the samples whose %s is missing, or fill "
            "it in." % (name, name))


def named_input_error(error, name):
    """``error`` of scikit-learn's or metric-learn's input checks, with the
    input ``name`` where their words name none: "Input contains NaN.", and
    numpy's "could not convert string to float" from a text feature, and
    scikit-learn's "Complex data not supported" followed by the whole
    array (or numpy's ``TypeError`` for a complex scalar)."""
    text = str(error)
    if text.startswith("Input contains"):
        return ValueError("Input %s%s" % (name, text[len("Input"):]))
    if text.startswith("could not convert"):
        return ValueError(
            "%s holds a value that is not a number (%s): SCML learns from "
            "numeric features. Encode text or categorical features first "
            "(e.g. with sklearn.preprocessing.OneHotEncoder), or drop "
            "them." % (name, text))
    if (text.startswith("Complex data not supported")
            or text.endswith("not 'complex'")):
        return ValueError(
            "%s holds complex numbers (Complex data not supported): SCML "
            "learns from real features. Pass the real and imaginary parts "
            "as features of their own (e.g. np.hstack([X.real, X.imag])), "
            "or their moduli." % name)
    return error


@contextlib.contextmanager
def named_errors(name):
    """Raise the ``ValueError`` (or complex ``TypeError``) of an input
    check inside the block as :func:`named_input_error` words it."""
    try:
        yield
    except (ValueError, TypeError) as error:
        named = named_input_error(error, name)
        if named is error:
            raise
        raise named from None


def chunk_rows(n_features):
    """Rows of ``n_features`` float64 values per block of :data:`CHUNK_BYTES`.

    (Pairs of squared differences in ``_solvers``; rows of a Gram matrix
    in ``_triplets.distinct_elements``.) At least 16.
    """
    return max(16, CHUNK_BYTES // (8 * max(n_features, 1)))


def search_algorithm(points):
    """scikit-learn's ``algorithm`` for an exact neighbour search among
    ``points`` (``n x d``): 'brute' on large searches over more than
    :data:`KD_TREE_MAX_FEATURES` features whose mean lies within
    :data:`BRUTE_MAX_OFFSET` times their spread of the origin
    (:func:`far_mean`), 'auto' otherwise. Both find the same
    neighbours, up to the brute search's rounding: points closer than about
    1e-7 of the spread to one another (near-duplicates) may be ordered
    otherwise, as in scikit-learn's own searches above 15 features."""
    n_points, n_features = points.shape
    if (n_points < BRUTE_MIN_POINTS or n_features <= KD_TREE_MAX_FEATURES
            or far_mean(points, BRUTE_MAX_OFFSET) is not None):
        return "auto"
    return "brute"


def nearest_index(points, n_neighbors):
    """scikit-learn's ``NearestNeighbors`` of ``n_neighbors`` fitted on
    ``points``, searched as :func:`search_algorithm` says."""
    return NearestNeighbors(n_neighbors=n_neighbors,
                            algorithm=search_algorithm(points)).fit(points)


def fitted_knn(n_neighbors, points, y):
    """scikit-learn's k-NN classifier of ``n_neighbors`` fitted on
    ``points`` and ``y``, searched as :func:`search_algorithm` says."""
    return KNeighborsClassifier(
        n_neighbors, algorithm=search_algorithm(points)).fit(points, y)


def neighbour_votes(neighbour_codes, n_classes):
    """Each query's votes per class: ``neighbour_codes`` (queries x
    neighbours) are the class codes of its neighbours, each one vote, as
    scikit-learn's ``KNeighborsClassifier`` counts them (uniform weights;
    ``argmax`` of a row gives a tie to the smallest code, as it does)."""
    votes = np.zeros((neighbour_codes.shape[0], n_classes))
    np.add.at(votes, (np.arange(neighbour_codes.shape[0])[:, None],
                      neighbour_codes), 1.0)
    return votes


def largest_magnitude(X):
    """``max |X|`` (0 for an empty array), as a Python float (a float32
    compared with the float64 limits would overflow in the cast)."""
    # max and -min: no |X| temporary as large as the data.
    return float(max(X.max(initial=0.0), -X.min(initial=0.0)))


def far_mean(X, ratio=OFFSET_RATIO):
    """The mean of the rows of ``X`` where it lies far from the origin
    (its largest coordinate over ``ratio`` times the largest feature's
    standard deviation; see ``OFFSET_RATIO``), else None."""
    if X.shape[0] == 0:
        return None
    mean = X.mean(axis=0)
    # The variance without an n x D temporary (X.std makes one, on data of
    # any size); its cancellation far from the origin only makes the test
    # surer of its answer there.
    variance = np.einsum("ij,ij->j", X, X) / X.shape[0] - np.square(mean)
    spread = np.sqrt(np.maximum(variance, 0.0)).max(initial=0.0)
    if np.abs(mean).max(initial=0.0) > ratio * spread:
        return mean
    return None


def centred(X):
    """``X`` minus its mean where that lies far from the origin, else ``X``
    itself: the same differences, without the offset's lost digits."""
    mean = far_mean(X)
    return X if mean is None else X - mean


def binary_scales(values, axis):
    """Per slice, the power of two ``f`` that brings ``max |v * f|`` into
    [0.5, 1) (1 for an all-zero slice): exact rescaling, for sums of
    squares and fourth powers that would otherwise overflow (beyond about
    1e77) or underflow."""
    largest = np.abs(values).max(axis=axis)
    return np.ldexp(1.0, -np.frexp(largest)[1])


def unit_scale(X):
    """The power of two ``f`` that brings ``max |X * f|`` into [0.5, 1).

    The solvers run on ``X * f`` with the penalty rescaled to match (SCML
    is scale-equivariant) and scale the result back. A power of two
    changes no rounding, so data of ordinary scale give the same bits,
    while tiny data (1e-20) no longer underflow the float32 table of
    squared differences nor overflow the weights.
    """
    return float(np.ldexp(1.0, -int(np.frexp(largest_magnitude(X))[1])))


def compared_pairs(constraints):
    r"""The columns of the two pairs each row of ``constraints`` compares.

    A triplet ``(i, j, k)`` (3 columns) compares its target pair ``(i, j)``
    with its impostor pair ``(i, k)``; a quadruplet ``(a, b, c, d)`` (4
    columns, from independent pairs: beyond the paper) compares the similar
    pair ``(a, b)`` with the dissimilar pair ``(c, d)``. Either way the
    hinge is :math:`[1 + d_w(\text{target}) - d_w(\text{impostor})]_+`.

    Returns
    -------
    target, impostor : list of 2 ints each
    """
    return ([0, 1], [0, 2]) if constraints.shape[-1] == 3 else ([0, 1], [2, 3])


def triplets_to_indices(triplets):
    """Turn triplets of points into indices into their distinct points.

    Parameters
    ----------
    triplets : ndarray of shape (n_triplets, 3, n_features)

    Returns
    -------
    indices : ndarray of shape (n_triplets, 3), dtype=intp
    X : ndarray of shape (n_distinct_points, n_features)
        The distinct points, so that ``X[indices]`` equals ``triplets``.
    """
    n_triplets, _, n_features = triplets.shape
    first, inverse = distinct_rows(triplets.reshape(-1, n_features))
    X = triplets.reshape(-1, n_features)[first]
    return inverse.reshape(n_triplets, 3), X


def distinct_rows(X):
    """Indices of the distinct rows of ``X`` and of each row's distinct row.

    Rows are compared as raw bytes, which is many times faster than
    ``np.unique(X, axis=0)``; the only difference, ``0.0`` and ``-0.0``
    counting as distinct, only adds a duplicate point.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)

    Returns
    -------
    first : ndarray of shape (n_distinct,), dtype=intp
        Index of the first occurrence of each distinct row (numpy.unique's
        ``return_index``).
    inverse : ndarray of shape (n_rows,), dtype=intp
        ``X[first][inverse]`` equals ``X``.
    """
    X = np.ascontiguousarray(X)
    rows = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return first.astype(np.intp), inverse.reshape(-1).astype(np.intp)
