"""Fixtures shared by the test modules (small datasets shipped with
scikit-learn), and the pair tests' thresholded Euclidean baseline."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


@pytest.fixture(scope="session")
def wine():
    """Wine, standardised: ``(X, y)``."""
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="session")
def wine_split():
    """Wine split 60/40 (stratified), scaled on the training part:
    ``(X_train, X_test, y_train, y_test)``."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.4, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_train)
    return (scaler.transform(X_train), scaler.transform(X_test), y_train,
            y_test)


@pytest.fixture(scope="session")
def iris():
    """Iris, standardised: ``(X, y)``."""
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture
def pin_auto_beta(monkeypatch):
    """A function ``pin(beta, euclidean=False)``: from then on, in this
    test, ``beta='auto'`` (or ``global_beta``) of every learner from labels
    resolves as if the held-out path had chosen ``beta`` and (with
    ``euclidean``) preferred the Euclidean metric.

    For the tests of the rules that act after the choice (the Euclidean
    fallback: a beta whose model keeps no element, a Euclidean verdict).
    No public parameter reaches them: a given beta never falls back, and
    the real choice lands on neither case on small data. So this patches
    the one private step, the choice itself; ``monkeypatch.undo()`` ends it.
    """
    import numpy as np
    from metric_learn_scml._pipelines import _FromLabels
    from metric_learn_scml._driver import BetaSelection

    def pin(beta, euclidean=False):
        monkeypatch.setattr(_FromLabels, "_choose_beta", lambda self, X, y, *_: (
            BetaSelection(beta, np.array([beta]), np.array([0.5]), euclidean,
                          0.5, 100)))
    return pin


def threshold_accuracy(train_distances, train_y, test_distances, test_y):
    """Accuracy on test pairs of "similar at or below t", t best on the
    train pairs (the Euclidean baseline of the pair tests)."""
    candidates = np.sort(train_distances)
    train_accuracy = [np.mean(np.where(train_distances <= t, 1, -1) == train_y)
                      for t in candidates]
    t = candidates[int(np.argmax(train_accuracy))]
    return np.mean(np.where(test_distances <= t, 1, -1) == test_y)


def ordered_triplets(X, n_triplets, rng):
    """Random index triplets into ``X`` (drawn from the ``RandomState``
    ``rng``), each ordered so that its second point is the closer to its
    first along ``X``'s first two features."""
    triplets = rng.randint(0, X.shape[0], size=(n_triplets, 3))
    d = ((X[triplets[:, [0]]] - X[triplets[:, 1:]])[..., :2] ** 2).sum(-1)
    swap = d[:, 0] > d[:, 1]
    triplets[swap, 1:] = triplets[swap, 1:][:, ::-1]
    return triplets
