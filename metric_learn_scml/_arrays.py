"""Array helpers shared by the maths modules: block sizes and scales."""

import numpy as np

# Bytes of squared differences computed at once (table building and
# on-the-fly distances): blocks that stay in cache, so temporaries stay
# small whatever the basis size.
CHUNK_BYTES = 1 << 20


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


def unit_scale(X):
    """The power of two ``f`` that brings ``max |X * f|`` into [0.5, 1).

    The solvers run on ``X * f`` with the penalty rescaled to match (SCML
    is scale-equivariant) and scale the result back. A power of two
    changes no rounding, so data of ordinary scale give the same bits,
    while tiny data (1e-20) no longer underflow the float32 table of
    squared differences nor overflow the weights.
    """
    return float(np.ldexp(1.0, -int(np.frexp(largest_magnitude(X))[1])))
