"""
=====================================================
Local metrics of SCML-Local on digits 1, 2, 3 in 2-D
=====================================================

The visualisation of Shi, Bellet and Sha (AAAI 2014, section "Local
Metric Learning", figure "Illustrative experiment on digits 1, 2 and 3 of
USPS in 2D"): the digits are embedded in 2-D with t-SNE, SCML-Local is
learned on the 2-D points with 10 basis elements and :math:`D' = 5`, and
every point is coloured by the first principal component of its local
weights :math:`w_x`. Panels: class membership, the metrics of the training
points, and the metrics of held-out test points, which the model assigns
through their kernel PCA embedding. The metrics vary smoothly, differ
within a class near the boundaries, and carry over to the test points.

scikit-learn's 8x8 digits stand in for USPS. Run as a script
(``python examples/plot_local_metric.py``), it also writes the figure to
``local_metric.png`` in the current folder.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE
from sklearn.model_selection import train_test_split

from metric_learn_scml import LocalSCML_Supervised, MetricKNeighborsClassifier

digits = load_digits()
keep = np.isin(digits.target, [1, 2, 3])
points = TSNE(n_components=2, random_state=0).fit_transform(
    digits.data[keep] / 16.0)
points = (points - points.mean(0)) / points.std(0)
labels = digits.target[keep]
X_train, X_test, y_train, y_test = train_test_split(
    points, labels, test_size=0.5, stratify=labels, random_state=0)

classifier = MetricKNeighborsClassifier(LocalSCML_Supervised(
    n_basis=10, embedding_dim=5, random_state=0)).fit(X_train, y_train)
model = classifier.estimator_
# One colour per metric: the weights projected on their first principal
# component, fitted on the training points.
projection = PCA(n_components=1).fit(model.local_weights(X_train))
colour_train = projection.transform(model.local_weights(X_train))[:, 0]
colour_test = projection.transform(model.local_weights(X_test))[:, 0]
limits = dict(vmin=min(colour_train.min(), colour_test.min()),
              vmax=max(colour_train.max(), colour_test.max()))

figure, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharex=True,
                            sharey=True)
for digit, marker in zip((1, 2, 3), ("o", "s", "^")):
    members = y_train == digit
    axes[0].scatter(*X_train[members].T, s=14, marker=marker,
                    label="digit %d" % digit)
axes[0].legend(loc="best")
axes[0].set_title("(a) Class membership (training points)")
axes[1].scatter(*X_train.T, c=colour_train, cmap="viridis", s=14,
                **limits)
axes[1].set_title("(b) Trained metrics (training points)")
image = axes[2].scatter(*X_test.T, c=colour_test, cmap="viridis", s=14,
                        **limits)
axes[2].set_title("(c) Test metrics (error %.1f%%)" % (
    100 * (1 - classifier.score(X_test, y_test))))
figure.colorbar(image, ax=axes, shrink=0.8,
                label="first principal component of the local weights")
for axis in axes:
    axis.set_xticks([])
    axis.set_yticks([])
figure.suptitle("SCML-Local on digits 1, 2, 3 in 2-D (t-SNE): %d of %d "
                "basis elements active, D' = %d" % (
                    model.n_active_basis_, model.basis_.shape[0],
                    model.embedding_dim_))
figure.savefig("local_metric.png", dpi=110, bbox_inches="tight")
plt.show()
