"""Generated classification problems: the breadth table's *generated* group.

Each is drawn with a fixed seed (so every run sees the same data) and
stands for a kind of data that users bring and that the public sets of
the table hold little of:

- ``gen_hid_80x200`` / ``gen_hid_150x500``: fewer points than features,
  10 of 200 and 40 of 500 features informative (scikit-learn's
  ``make_classification``);
- ``gen_20_classes``: 20 classes of 15 points in 20 dimensions;
- ``gen_imbalanced``: 95 % / 5 % of 1,000 points;
- ``gen_binary``: 30 binary features, the label the majority of the first
  three;
- ``gen_onehot``: six categorical variables of five levels, one-hot; the
  label says whether the first two agree or the third is at its first
  level;
- ``gen_moons_noise`` / ``gen_circles_noise``: two moons or two circles,
  with 8 or 5 features of pure noise;
- ``gen_sparse_signal``: 3 informative features of 30;
- ``gen_overlapping_blobs``: six Gaussian blobs of standard deviation 3
  in 5 dimensions;
- ``gen_duplicates``: 400 points and 100 of them repeated.

They were added in the eleventh session, after the defaults were chosen,
and are reported only.
"""

import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_classification, make_moons


def hid_80x200():
    return make_classification(80, 200, n_informative=10, n_classes=3,
                               random_state=0)


def hid_150x500():
    return make_classification(150, 500, n_informative=20, n_redundant=20,
                               n_classes=4, random_state=1)


def twenty_classes():
    return make_classification(300, 20, n_informative=15, n_classes=20,
                               n_clusters_per_class=1, random_state=2)


def imbalanced():
    return make_classification(1000, 10, n_informative=5, weights=[0.95],
                               random_state=3)


def binary():
    X = np.random.RandomState(4).randint(0, 2, (400, 30)).astype(float)
    return X, (X[:, :3].sum(axis=1) >= 2).astype(int)


def onehot():
    levels = np.random.RandomState(5).randint(0, 5, (500, 6))
    X = np.eye(5)[levels].reshape(500, -1)
    return X, ((levels[:, 0] == levels[:, 1]) | (levels[:, 2] == 0)).astype(int)


def with_noise(X, y, n_noise, seed):
    """``X`` with ``n_noise`` standard normal columns appended."""
    noise = np.random.RandomState(seed).randn(X.shape[0], n_noise)
    return np.hstack([X, noise]), y


def moons_noise():
    return with_noise(*make_moons(500, noise=0.25, random_state=6), 8, 6)


def circles_noise():
    return with_noise(*make_circles(500, noise=0.1, factor=0.5, random_state=7),
                      5, 7)


def sparse_signal():
    return make_classification(600, 30, n_informative=3, n_redundant=0,
                               n_classes=2, random_state=8)


def overlapping_blobs():
    return make_blobs(600, 5, centers=6, cluster_std=3.0, random_state=9)


def duplicates():
    X, y = make_classification(400, 8, n_informative=6, random_state=10)
    return np.vstack([X, X[:100]]), np.concatenate([y, y[:100]])
