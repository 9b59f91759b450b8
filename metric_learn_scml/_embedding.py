r"""Kernel PCA embedding of the points, the input of SCML-Local's weights.

SCML-Local (Shi, Bellet and Sha, AAAI 2014, section "Local Metric
Learning", footnote on the embedding) gives every point :math:`x` the
weights :math:`w_x = (A^T z_x + c)^2` of a kernel PCA embedding
:math:`z_x \in \mathbb{R}^{D'}` with the RBF kernel

.. math:: k(x, y) = \exp\!\big(-\|x - y\|^2 / \sigma\big),

:math:`\sigma` being the median Euclidean distance between training points
(the paper's "bandwidth set to the median Euclidean distance in the data";
the authors' code divides the squared distance by that median, not by its
square). With :math:`K` the ``n x n`` training kernel,
:math:`H = I - \mathbf{1}\mathbf{1}^T / n` and :math:`H K H = V \Lambda V^T`
(top :math:`D'` eigenpairs), training points get
:math:`Z = V \Lambda^{1/2}` and a new point with kernel row
:math:`k_y` gets its projection on the same centred feature-space
directions,

.. math:: z_y = \big(k_y - \tfrac1n \mathbf{1}^T K\big) H V \Lambda^{-1/2},

which equals the training rows for training points.
"""

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state

# Eigenvalues below this fraction of the largest are treated as zero: their
# directions carry no real variance of the training data.
_RELATIVE_EIGENVALUE_FLOOR = 1e-6

# Above this many points, the top eigenpairs come from ARPACK instead of a
# full eigendecomposition (3,000 points: 1.2 s instead of 9 s, one thread).
_DENSE_LIMIT = 600


def _median_pair_distance(squared):
    """Median distance over the pairs of distinct points, from all squared ones.

    The full matrix holds each pair twice and ``n`` zeros on its diagonal,
    the smallest entries; with the zeros dropped, the middle entries of the
    rest are those of the pairs, so a partition of the matrix (no index
    arrays for the upper triangle) finds them.
    """
    n_samples = squared.shape[0]
    n_off_diagonal = n_samples * (n_samples - 1)
    if n_off_diagonal == 0:
        return 0.0
    middle = [n_samples + (n_off_diagonal - 1) // 2,
              n_samples + n_off_diagonal // 2]
    values = np.partition(squared.ravel(), middle)[middle]
    return float(np.sqrt(np.maximum(values, 0)).mean())


# Entries of the float64 block of distances computed at a time (16 MiB).
_DISTANCE_BLOCK_ELEMENTS = 1 << 21


def _squared_distances(X, dtype):
    """All squared Euclidean distances of ``X`` as ``dtype``, zero diagonal.

    Built in blocks of rows of 16 MiB (float64) so that a float32 result
    needs no full-size float64 temporary: 20,000 points peak at 1.6 GB
    for the matrix instead of 4.8 GB.
    """
    n_samples = X.shape[0]
    squared = np.empty((n_samples, n_samples), dtype=dtype)
    norms = np.einsum("ij,ij->i", X, X)[None, :]
    block = max(1, _DISTANCE_BLOCK_ELEMENTS // max(1, n_samples))
    for start in range(0, n_samples, block):
        stop = min(start + block, n_samples)
        squared[start:stop] = euclidean_distances(
            X[start:stop], X, Y_norm_squared=norms, squared=True)
        rows = np.arange(start, stop)
        squared[rows, rows] = 0.0
    return squared


class KernelPCAEmbedding:
    r"""Centred RBF kernel PCA with the median-distance bandwidth.

    Parameters
    ----------
    n_components : int
        Requested dimension :math:`D'` (>= 1). At most ``n_samples - 1``
        components are kept (the centred kernel has rank ``n - 1`` at
        most), fewer when the remaining eigenvalues are numerically zero.
    random_state : int, RandomState instance or None
        Seeds ARPACK's starting vector.

    Attributes
    ----------
    bandwidth_ : float
        :math:`\sigma`, the median pairwise distance (1 if all points
        coincide).
    n_components_ : int
        Components kept.
    embedding_ : ndarray of shape (n_samples, n_components_)
        :math:`Z` of the training points.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).randn(30, 4)
    >>> embedding = KernelPCAEmbedding(5, random_state=0).fit(X)
    >>> np.allclose(embedding.transform(X), embedding.embedding_)
    True
    """

    def __init__(self, n_components, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X):
        """Fit on training points ``X`` (n_samples, n_features), validated."""
        n_samples = X.shape[0]
        # Above the dense limit the n x n kernel is held in single precision
        # for ARPACK: its entries lie in [0, 1], and every pass over it
        # (exp, centring, the products) moves half the memory.
        dtype = np.float32 if n_samples > _DENSE_LIMIT else np.float64
        squared = _squared_distances(X, dtype)
        median = _median_pair_distance(squared)
        self.bandwidth_ = median if median > 0 else 1.0
        kernel = np.exp(squared * dtype(-1.0 / self.bandwidth_), out=squared)
        self.X_fit_ = X
        self.kernel_column_means_ = kernel.mean(axis=0, dtype=np.float64)
        self.kernel_mean_ = self.kernel_column_means_.mean()
        column_means = self.kernel_column_means_.astype(dtype)
        centred = kernel
        centred -= column_means[None, :]
        centred -= column_means[:, None]
        centred += dtype(self.kernel_mean_)
        n_wanted = min(int(self.n_components), n_samples - 1)
        eigenvalues, eigenvectors = self._top_eigenpairs(centred, n_wanted)
        keep = eigenvalues > _RELATIVE_EIGENVALUE_FLOOR * max(
            eigenvalues[0] if eigenvalues.size else 0.0, np.finfo(float).tiny)
        eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
        self.n_components_ = int(eigenvalues.shape[0])
        self.embedding_ = eigenvectors * np.sqrt(eigenvalues)
        # z_y = (k_y - column means) H V / sqrt(lambda); H V = V because the
        # eigenvectors of a centred kernel with non-zero eigenvalues are
        # orthogonal to the constant vector.
        self.projection_ = eigenvectors / np.sqrt(eigenvalues)
        return self

    def _top_eigenpairs(self, matrix, n_wanted):
        """The ``n_wanted`` largest eigenpairs, decreasing."""
        n_samples = matrix.shape[0]
        if n_wanted < 1:
            return np.empty(0), np.empty((n_samples, 0))
        if n_samples <= _DENSE_LIMIT or n_wanted >= n_samples // 2:
            eigenvalues, eigenvectors = eigh(
                matrix.astype(np.float64, copy=False),
                subset_by_index=[n_samples - n_wanted, n_samples - 1])
        else:
            # The matrix is single precision here (see fit): half the time
            # of ARPACK's matrix-vector products.
            start = check_random_state(self.random_state).uniform(
                -1, 1, n_samples)
            eigenvalues, eigenvectors = eigsh(
                matrix, k=n_wanted, which="LA",
                v0=start.astype(np.float32), tol=1e-6)
            eigenvalues = eigenvalues.astype(float)
            eigenvectors = eigenvectors.astype(float)
        order = np.argsort(eigenvalues)[::-1]
        return eigenvalues[order], eigenvectors[:, order]

    def transform(self, X):
        """Embed points ``X`` (n, n_features), validated: (n, n_components_)."""
        out = np.empty((X.shape[0], self.n_components_))
        # Blocks of rows bound the memory of the kernel rows.
        block = max(1, (1 << 22) // max(1, self.X_fit_.shape[0]))
        for start in range(0, X.shape[0], block):
            kernel = euclidean_distances(X[start:start + block], self.X_fit_,
                                         squared=True)
            np.exp(-kernel / self.bandwidth_, out=kernel)
            kernel -= self.kernel_column_means_
            out[start:start + block] = kernel @ self.projection_
        return out
