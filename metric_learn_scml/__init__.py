"""Sparse Compositional Metric Learning (SCML) for scikit-learn and metric-learn.

Shi, Bellet and Sha, *Sparse Compositional Metric Learning*, AAAI 2014:
metrics learned as sparse non-negative combinations of rank-one, locally
discriminative basis elements, in three settings: one global metric
(:class:`SCML`, :class:`SCML_Supervised`), one metric per task over a shared
basis (multi-task) and a metric that varies smoothly over the feature space
(local).
"""

# The compatibility patches must run before anything imports metric_learn.
from . import _compat  # noqa: F401
from ._triplets import triplets_from_labels
from .local import LocalSCML, LocalSCML_Supervised
from .multitask import MultiTaskSCML, MultiTaskSCML_Supervised
from .neighbors import MetricKNeighborsClassifier, knn_scorer
from .path import scml_path
from .scml import SCML, SCML_Supervised, SCML_SupervisedCV

__version__ = "0.1.0"

__all__ = ["SCML", "SCML_Supervised", "MultiTaskSCML", "MultiTaskSCML_Supervised",
           "LocalSCML", "LocalSCML_Supervised", "MetricKNeighborsClassifier",
           "SCML_SupervisedCV", "scml_path", "knn_scorer",
           "triplets_from_labels"]
