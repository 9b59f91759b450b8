"""One task's metric of mt-SCML as a plain metric-learn estimator (what
``for_task`` returns; public as
:class:`metric_learn_scml.multitask.TaskMetric`).
"""

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from ._base import _LinearMetric, _MetricLearner


class TaskMetric(ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                 _LinearMetric, _MetricLearner):
    r"""A fixed Mahalanobis metric :math:`M = L^T L`, as a plain estimator.

    What :meth:`MultiTaskSCML_Supervised.for_task` and
    :meth:`MultiTaskSCML.for_task` return: one task's metric as a
    metric-learn ``MahalanobisMixin`` with ``components_``, ``transform``,
    ``pair_distance``, ``pair_score``, ``get_metric`` and
    ``get_mahalanobis_matrix``. The linear map is a parameter, so ``fit``
    learns nothing: it only checks the data and marks the estimator fitted.
    This keeps the metric through :func:`sklearn.base.clone`, so it can be
    the first step of a :class:`~sklearn.pipeline.Pipeline` (for instance
    before a k-nearest-neighbour classifier) and be cross-validated there.
    It shares the SCML learners' input checks and ``transform``, but has
    none of their hyper-parameters.

    Parameters
    ----------
    components : array-like of shape (n_components, n_features)
        The linear map :math:`L`.
    preprocessor : array-like or callable, default=None
        Turns indices into points, as in metric-learn.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        A copy of ``components`` as float64.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from metric_learn_scml.multitask import TaskMetric
    >>> metric = TaskMetric(np.diag([2.0, 0.0])).fit(np.zeros((1, 2)))
    >>> metric.pair_distance([[[0.0, 0.0], [1.0, 5.0]]])
    array([2.])
    """

    # Named here so that set_output wraps it (see SCML_Supervised).
    transform = _LinearMetric.transform

    def __init__(self, components, preprocessor=None):
        self.components = components
        self.preprocessor = preprocessor

    def fit(self, X=None, y=None):
        """Check ``X`` (if given) against the metric; nothing is learned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
        y : ignored

        Returns
        -------
        self : TaskMetric
        """
        self._set_metric()
        if X is not None:
            if self.preprocessor_ is None:
                # Record X's feature names, if any, for transform to expect;
                # the metric, not X, gives n_features_in_.
                validate_data(self, X, skip_check_array=True)
                self.n_features_in_ = self.components_.shape[1]
            self.transform(X)
        return self

    def _set_metric(self):
        self._check_preprocessor()
        self.components_ = check_array(self.components, dtype=np.float64,
                                       copy=True, input_name="components")
        self.n_features_in_ = self.components_.shape[1]
        return self
