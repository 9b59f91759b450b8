"""Array helpers shared by the maths modules: block sizes and scales."""

import numpy as np

from ._defaults import CHUNK_BYTES, OFFSET_RATIO


def chunk_rows(n_features):
    """Rows of ``n_features`` float64 values per block of :data:`CHUNK_BYTES`.

    (Pairs of squared differences in ``_solvers``; rows of a Gram matrix
    in ``_basis.distinct_elements``.) At least 16.
    """
    return max(16, CHUNK_BYTES // (8 * max(n_features, 1)))


def largest_magnitude(X):
    """``max |X|`` (0 for an empty array)."""
    # max and -min: no |X| temporary as large as the data.
    return max(X.max(initial=0.0), -X.min(initial=0.0))


def far_mean(X):
    """The mean of the rows of ``X`` where it lies far from the origin
    (see ``OFFSET_RATIO``), else None."""
    if X.shape[0] == 0:
        return None
    mean = X.mean(axis=0)
    # The variance without an n x D temporary (X.std makes one, on data of
    # any size); its cancellation far from the origin only makes the test
    # surer of its answer there.
    variance = np.einsum("ij,ij->j", X, X) / X.shape[0] - np.square(mean)
    spread = np.sqrt(np.maximum(variance, 0.0)).max(initial=0.0)
    if np.abs(mean).max(initial=0.0) > OFFSET_RATIO * spread:
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
