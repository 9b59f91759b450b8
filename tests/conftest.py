"""Fixtures shared by the test modules: small datasets shipped with scikit-learn."""

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
