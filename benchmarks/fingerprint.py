"""A fingerprint of every learner's fit: is a change behaviour-neutral?

Sixteen fits on ``load_wine`` (``StandardScaler``, ``random_state=0``):
each learner at its defaults, and the variants a refactoring can break
(a given beta, a ``RandomState`` seed, ``basis='triplet_diffs'``,
``partial_fit`` over batches, index triplets with a ``preprocessor``,
pairs, the multi-task learners from labels and from triplets, both local
learners, :func:`~metric_learn_scml.scml_path`). Each row is a hash of the
fitted weights, basis and beta (of the metric, for the local learners),
with the active elements: run it at two commits on one machine and compare
the hashes. They depend on the machine's floating point (its BLAS), so
compare runs of one machine only.
"""

import hashlib
import warnings

import numpy as np
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from metric_learn_scml import (SCML, LocalSCML, LocalSCML_Supervised,
                               MultiTaskSCML, MultiTaskSCML_Supervised,
                               SCML_Supervised, SCML_SupervisedCV,
                               scml_path, triplets_from_labels)

COLUMNS = ("fit", "hash", "active")


def digest(*arrays):
    """The first 12 hex digits of a SHA-1 of the arrays' float64 bytes."""
    sha = hashlib.sha1()
    for array in arrays:
        sha.update(np.ascontiguousarray(np.asarray(array, dtype=float)).tobytes())
    return sha.hexdigest()[:12]


def _batches(n, parts):
    return np.array_split(np.random.RandomState(0).permutation(n), parts)


def fits():
    """``(name, function)`` of each fit; the function returns the arrays
    to hash and the number of active elements."""
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    tasks = np.arange(len(y)) % 2
    triplets = triplets_from_labels(X, y, 2, 2, random_state=0)
    rng = np.random.RandomState(0)
    pair_ids = rng.randint(0, len(y), (300, 2))
    pair_labels = np.where(y[pair_ids[:, 0]] == y[pair_ids[:, 1]], 1, -1)

    def global_model(model):
        weights = np.atleast_2d(model.weights_)
        return ((model.weights_, model.basis_, [model.beta_]),
                int(np.count_nonzero(weights.any(axis=0))))

    def partial(model, data, parts):
        for part in _batches(len(data[0]), parts):
            model.partial_fit(*[item[part] for item in data])
        return global_model(model)

    def local(model):
        return ((model.get_mahalanobis_matrix(X[:20]),),
                int(np.count_nonzero(model.global_weights_)))

    def path():
        betas, weights, _, basis = scml_path(X, y, n_betas=3, random_state=0)
        return (betas, weights, basis), int(np.count_nonzero(weights[-1]))

    return [
        ("SCML_Supervised()", lambda: global_model(
            SCML_Supervised(random_state=0).fit(X, y))),
        ("SCML_Supervised(beta=1e-3)", lambda: global_model(
            SCML_Supervised(beta=1e-3, random_state=0).fit(X, y))),
        ("SCML_Supervised(random_state=RandomState(1))", lambda: global_model(
            SCML_Supervised(random_state=np.random.RandomState(1)).fit(X, y))),
        ("SCML_Supervised(basis='triplet_diffs')", lambda: global_model(
            SCML_Supervised(basis="triplet_diffs", random_state=0).fit(X, y))),
        ("SCML_Supervised().partial_fit x 3", lambda: partial(
            SCML_Supervised(random_state=0), (X, y), 3)),
        ("SCML_SupervisedCV(cv=3)", lambda: global_model(
            SCML_SupervisedCV(cv=3, random_state=0).fit(X, y))),
        ("SCML().fit(triplets)", lambda: global_model(
            SCML(random_state=0).fit(X[triplets]))),
        ("SCML(preprocessor=X).fit(indices)", lambda: global_model(
            SCML(preprocessor=X, random_state=0).fit(triplets))),
        ("SCML().partial_fit(triplets) x 3", lambda: partial(
            SCML(random_state=0), (X[triplets],), 3)),
        ("SCML().fit(pairs, y)", lambda: global_model(
            SCML(random_state=0).fit(X[pair_ids], pair_labels))),
        ("MultiTaskSCML_Supervised()", lambda: global_model(
            MultiTaskSCML_Supervised(random_state=0).fit(X, y, tasks=tasks))),
        ("MultiTaskSCML_Supervised().partial_fit x 2", lambda: partial(
            MultiTaskSCML_Supervised(random_state=0), (X, y, tasks), 2)),
        ("MultiTaskSCML().fit(triplets)", lambda: global_model(
            MultiTaskSCML(random_state=0).fit(
                X[triplets], tasks=np.arange(len(triplets)) % 2))),
        ("LocalSCML_Supervised(max_iter=2000)", lambda: local(
            LocalSCML_Supervised(max_iter=2000, random_state=0).fit(X, y))),
        ("LocalSCML(max_iter=2000).fit(triplets)", lambda: local(
            LocalSCML(max_iter=2000, random_state=0).fit(X[triplets]))),
        ("scml_path(n_betas=3)", path),
    ]


def run(progress=None):
    """One row per fit: its name, hash and active elements."""
    rows = []
    for name, fit in fits():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arrays, active = fit()
        rows.append({"fit": name, "hash": digest(*arrays), "active": active})
        if progress is not None:
            progress("%s: %s" % (name, rows[-1]["hash"]))
    return rows


def table(rows):
    """The rows as a labelled markdown table."""
    lines = ["| fit (wine, StandardScaler, random_state=0) | hash of weights, "
             "basis and beta | active elements |", "|---|---|---|"]
    lines += ["| %s | %s | %d |" % (row["fit"], row["hash"], row["active"])
              for row in rows]
    return "\n".join(lines)
