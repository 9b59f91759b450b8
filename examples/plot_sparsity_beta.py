"""
=====================================
Sparsity and test error against beta
=====================================

``beta`` weighs the :math:`\\ell_1` penalty of SCML-Global,

.. math::

    \\min_{w \\ge 0}\\; \\frac{1}{|C|} \\sum_{(i, j, k) \\in C}
    [1 + d_w(x_i, x_j) - d_w(x_i, x_k)]_+ + \\beta \\|w\\|_1 ,

so larger values keep fewer basis elements. On handwritten digits
(scikit-learn's 8x8 digits, reduced to 20 dimensions by PCA and scaled to
unit norm, as the paper preprocesses USPS), the number of active elements
moves little over the small values (an :math:`\ell_1` path need not be
monotone: here it even grows a little up to about ``3e-4``), then falls
quickly, while the 3-NN test error stays flat over several decades and
rises once the metric loses elements it needs; at ``beta = 0.1`` no
element would be left. This is why ``beta`` is tuned on
validation data, and why a sparse metric costs little accuracy.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from metric_learn_scml import SCML_Supervised

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, train_size=500, test_size=500, stratify=y, random_state=0)
preprocessing = make_pipeline(PCA(20, random_state=0), Normalizer())
X_train = preprocessing.fit_transform(X_train)
X_test = preprocessing.transform(X_test)


def knn_error(train, test):
    knn = KNeighborsClassifier(n_neighbors=3).fit(train, y_train)
    return 100 * (1 - knn.score(test, y_test))


euclidean_error = knn_error(X_train, X_test)
betas = np.logspace(-6, -1.5, 10)
n_active, errors = [], []
for beta in betas:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scml = SCML_Supervised(beta=beta, random_state=0).fit(X_train, y_train)
    n_active.append(scml.n_active_basis_)
    errors.append(knn_error(scml.transform(X_train), scml.transform(X_test)))
    print("beta=%.1e: %3d of %d elements active, 3-NN test error %.1f%%" % (
        beta, n_active[-1], scml.basis_.shape[0], errors[-1]))
print("Euclidean 3-NN test error: %.1f%%" % euclidean_error)

# %%
# Active elements and test error against ``beta``.

figure, (active_axes, error_axes) = plt.subplots(1, 2, figsize=(10, 4))
active_axes.semilogx(betas, n_active, "o-")
active_axes.set_xlabel("beta")
active_axes.set_ylabel("active basis elements (of %d)" % scml.basis_.shape[0])
error_axes.semilogx(betas, errors, "o-", label="SCML-Global")
error_axes.axhline(euclidean_error, ls="--", c="grey", label="Euclidean")
error_axes.set_xlabel("beta")
error_axes.set_ylabel("3-NN test error (%)")
error_axes.legend()
figure.suptitle("digits (PCA 20, unit norm), 500 training points")
figure.tight_layout()
plt.show()
