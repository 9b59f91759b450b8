"""
=========================================
A learned global metric in two dimensions
=========================================

Two classes differ along the second feature only, while the first feature
carries large, uninformative variation. Under the Euclidean distance, the
nearest neighbours of a point are mostly decided by the noisy first
feature; :class:`~metric_learn_scml.SCML_Supervised` learns a metric
:math:`M = \\sum_k w_k b_k b_k^T` that shrinks it.

The left panel shows the data and the unit balls
:math:`\\{x : (x - c)^T M (x - c) \\le r^2\\}` of the Euclidean distance
(grey) and of the learned metric (black) around a few points; the right
panel the data mapped by the learned linear map ``transform``, where the
learned distance is the Euclidean one. ``n_components=2`` asks for two
columns whatever the number of active elements (a metric of rank one
gives a zero second column).

The second figure embeds data of 13 features in two dimensions with
``n_components=2``: the top two eigen-directions of the learned metric,
against the top two principal components.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from metric_learn_scml import SCML_Supervised

rng = np.random.RandomState(0)
n = 300
y = rng.randint(0, 2, n)
X = np.column_stack([rng.normal(0, 8.0, n),                  # noise
                     rng.normal(0, 0.35, n) + 1.0 * y])      # signal
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

scml = SCML_Supervised(n_components=2, random_state=0).fit(X_train, y_train)
M = scml.get_mahalanobis_matrix()
print("active basis elements: %d of %d" % (scml.n_active_basis_,
                                          scml.basis_.shape[0]))
print("learned M:\n", np.round(M, 3))

euclidean_knn = KNeighborsClassifier(3).fit(X_train, y_train)
learned_knn = KNeighborsClassifier(3).fit(scml.transform(X_train), y_train)
print("3-NN test error, Euclidean: %.1f%%" % (
    100 * (1 - euclidean_knn.score(X_test, y_test))))
print("3-NN test error, learned metric: %.1f%%" % (
    100 * (1 - learned_knn.score(scml.transform(X_test), y_test))))

# %%
# Balls of both metrics, scaled to the same area (the axes have different
# scales, which distorts both balls alike), and the embedding.

angles = np.linspace(0, 2 * np.pi, 200)
circle = np.column_stack([np.cos(angles), np.sin(angles)])
eigenvalues, eigenvectors = np.linalg.eigh(M)
ball = circle / np.sqrt(eigenvalues) @ eigenvectors.T        # x^T M x = 1
ball *= np.sqrt(np.sqrt(np.prod(eigenvalues)))                # area of a disc

figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
for label, colour in ((0, "tab:blue"), (1, "tab:orange")):
    left.scatter(*X_train[y_train == label].T, s=12, c=colour,
                 label="class %d" % label)
for centre in ([-12.0, 0.5], [0.0, 0.5], [12.0, 0.5]):
    left.plot(*(centre + 2.0 * circle).T, c="grey", lw=1.5)
    left.plot(*(centre + 2.0 * ball).T, c="black", lw=1.5)
left.plot([], [], c="grey", label="Euclidean ball")
left.plot([], [], c="black", label="learned metric (same area)")
left.set_title("original features")
left.set_xlabel("feature 0 (noise)")
left.set_ylabel("feature 1 (signal)")
left.legend(fontsize=8, loc="lower right")

embedded = scml.transform(X_train)
for label, colour in ((0, "tab:blue"), (1, "tab:orange")):
    right.scatter(*embedded[y_train == label].T, s=12, c=colour)
right.set_title("transform(X): learned distance = Euclidean here")
right.set_aspect("equal", adjustable="datalim")
figure.tight_layout()

# %%
# A 2-D embedding of wine (13 features, 3 classes): the learned metric's top
# two eigen-directions against PCA's top two components, each followed by
# 3-NN in the plane.

from sklearn.datasets import load_wine
from sklearn.decomposition import PCA
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y,
                                                    test_size=0.3,
                                                    random_state=0)
figure, axes = plt.subplots(1, 2, figsize=(11, 4.5))
for axis, (name, reducer) in zip(axes, (
        ("PCA(n_components=2)", PCA(n_components=2)),
        ("SCML_Supervised(n_components=2)",
         SCML_Supervised(n_components=2, random_state=0)))):
    embedding = make_pipeline(StandardScaler(), reducer).fit(X_train, y_train)
    knn = KNeighborsClassifier(3).fit(embedding.transform(X_train), y_train)
    error = 1 - knn.score(embedding.transform(X_test), y_test)
    print("%s: 3-NN test error in 2-D %.1f%%" % (name, 100 * error))
    plane = embedding.transform(X_train)
    for label in np.unique(y_train):
        axis.scatter(*plane[y_train == label].T, s=12,
                     label="class %d" % label)
    axis.set_title("%s: 3-NN test error %.1f%%" % (name, 100 * error))
    axis.set_aspect("equal", adjustable="datalim")
axes[0].legend(fontsize=8)
figure.tight_layout()
plt.show()
