"""
=========================================================
Multi-task metrics: single-task, union and mt-SCML
=========================================================

Four related binary tasks with few training points each (40): in every
task the class depends on a task-specific direction within the same three
informative features, and seven further features carry large noise. As
in the paper's multi-task experiment, we compare the 3-NN test error
(averaged over the tasks) of

- **st-Euc**: the Euclidean distance;
- **st-SCML**: one :class:`~metric_learn_scml.SCML_Supervised` per task,
  learned on that task alone;
- **u-SCML**: one SCML_Supervised learned on the union of the tasks;
- **mt-SCML**: :class:`~metric_learn_scml.MultiTaskSCML_Supervised`, one
  metric per task over a shared, group-sparse basis,

and the number of basis elements each uses. k-NN always runs within each
task. The union metric cannot serve tasks whose classes depend on
different directions; the single-task metrics fit each task alone, with
their own elements; mt-SCML fits every task with one shared set of
elements. The benchmark page has the comparison on real tasks.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier

from metric_learn_scml import MultiTaskSCML_Supervised, SCML_Supervised

warnings.simplefilter("ignore", ConvergenceWarning)
rng = np.random.RandomState(0)
n_tasks, n_train, n_test = 4, 40, 200
angles = np.linspace(0, np.pi / 2, n_tasks)


def make_task(task, n):
    X = rng.randn(n, 10)
    X[:, 3:] *= 3.0                                   # noisy features
    direction = np.array([np.cos(angles[task]), np.sin(angles[task]), 0.5])
    y = (X[:, :3] @ direction > 0).astype(int)
    return X, y


train = [make_task(t, n_train) for t in range(n_tasks)]
test = [make_task(t, n_test) for t in range(n_tasks)]
X_all = np.vstack([X for X, _ in train])
y_all = np.concatenate([y for _, y in train])
tasks_all = np.repeat(np.arange(n_tasks), n_train)


def task_errors(transforms):
    """Mean 3-NN test error over tasks, each task under its own map."""
    errors = []
    for (X, y), (X_test, y_test), transform in zip(train, test, transforms):
        knn = KNeighborsClassifier(3).fit(transform(X), y)
        errors.append(1 - knn.score(transform(X_test), y_test))
    return 100 * np.mean(errors)


results = {}
results["st-Euc"] = (task_errors([lambda X: X] * n_tasks), 0)
single = [SCML_Supervised(n_basis=100, random_state=0).fit(X, y)
          for X, y in train]
results["st-SCML"] = (task_errors([m.transform for m in single]),
                      sum(m.n_active_basis_ for m in single))
union = SCML_Supervised(n_basis=100, random_state=0).fit(X_all, y_all)
results["u-SCML"] = (task_errors([union.transform] * n_tasks),
                     union.n_active_basis_)
multi = MultiTaskSCML_Supervised(n_basis=100, random_state=0).fit(
    X_all, y_all, tasks_all)
results["mt-SCML"] = (task_errors([multi.for_task(t).transform
                                   for t in range(n_tasks)]),
                      multi.n_active_basis_)
for name, (error, n_active) in results.items():
    print("%-8s 3-NN test error %5.1f%%, %3d basis elements" % (
        name, error, n_active))

# %%
# Errors and basis elements used (st-SCML: summed over the task metrics).

figure, (error_axes, active_axes) = plt.subplots(1, 2, figsize=(10, 4))
names = list(results)
error_axes.bar(names, [results[name][0] for name in names],
               color=["grey", "tab:blue", "tab:orange", "tab:green"])
error_axes.set_ylabel("mean 3-NN test error over tasks (%)")
active_axes.bar(names[1:], [results[name][1] for name in names[1:]],
                color=["tab:blue", "tab:orange", "tab:green"])
active_axes.set_ylabel("basis elements used")
figure.suptitle("%d related tasks, %d training points each" % (n_tasks, n_train))
figure.tight_layout()
plt.show()
