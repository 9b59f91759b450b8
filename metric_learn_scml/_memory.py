"""The bounded memory of ``partial_fit`` from labels (beyond the paper).

Two things ``fit`` has and a stream of batches lacks (issue 29): triplets
whose targets and impostors are the nearest among all the points, and a
basis drawn from all of them (Fisher neighbourhoods of ``J`` points per
class are more local on denser data). ``partial_fit`` keeps a uniform
sample of the points seen so far (:func:`remember`, reservoir sampling),
mines each batch's anchors against the batch and that sample, and, when
the sample has grown enough, draws a new basis from them, replacing the
elements the model does not use (:func:`renewed_basis`).
"""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from ._basis import distinct_elements
from ._solvers import RDAState


@dataclass
class PointMemory:
    """A uniform sample of the points seen, with their labels and tasks.

    Attributes
    ----------
    X : ndarray of shape (n_kept, n_features)
    y : ndarray of shape (n_kept,)
    tasks : ndarray of shape (n_kept,) or None
        Task labels (not codes: the codes move when a task joins).
    n_seen : int
        Points offered so far.
    """

    X: np.ndarray
    y: np.ndarray
    tasks: object
    n_seen: int

    def after(self, X, y, codes, tasks):
        """``X``, ``y`` and task ``codes`` (None: one task) of a batch,
        followed by the memory's, their codes into the sorted ``tasks``."""
        return (np.concatenate([X, self.X]), np.concatenate([y, self.y]),
                None if codes is None else np.concatenate(
                    [codes, np.searchsorted(tasks, self.tasks)]))


def remember(memory, X, y, tasks, capacity, random_state):
    """The memory after the batch ``(X, y, tasks)``: a new object.

    Reservoir sampling (Vitter's algorithm R), vectorised over the batch:
    the ``i``-th point seen (from 0) fills a free place while there is
    one, and otherwise takes a place drawn uniformly from ``0..i`` when
    that place is below ``capacity``. Every point seen is then kept with
    the same probability, ``capacity / n_seen``. ``memory`` (None: empty)
    is not modified. A memory above ``capacity`` (lowered between calls)
    first keeps a uniform sample of itself, which is a uniform sample of
    the points seen.

    Returns
    -------
    PointMemory
    """
    rng = check_random_state(random_state)
    if memory is None:
        memory = PointMemory(X[:0], y[:0], None if tasks is None
                             else tasks[:0], 0)
    if memory.X.shape[0] > capacity:
        chosen = np.sort(rng.choice(memory.X.shape[0], capacity,
                                    replace=False))
        memory = PointMemory(memory.X[chosen], memory.y[chosen],
                             None if tasks is None else memory.tasks[chosen],
                             memory.n_seen)
    n_kept, n_new = memory.X.shape[0], X.shape[0]
    fill = max(0, min(capacity - n_kept, n_new))
    parts = [(memory.X, X), (memory.y, y)] + (
        [] if tasks is None else [(memory.tasks, tasks)])
    kept = [np.concatenate([old, new[:fill]]) for old, new in parts]
    later = np.arange(fill, n_new)
    # (No draw without a memory: partial_fit_memory=0 is the model without.)
    places = (rng.randint(0, memory.n_seen + later + 1)
              if later.size and capacity else later[:0])
    taken = places < capacity
    # Several points of the batch may draw one place: the last one keeps it.
    places, first = np.unique(places[taken][::-1], return_index=True)
    points = later[taken][::-1][first]
    for array, (_, new) in zip(kept, parts):
        array[places] = new[points]
    return PointMemory(kept[0], kept[1], kept[2] if tasks is not None
                       else None, memory.n_seen + n_new)


def renewed_basis(basis, active, fresh):
    """``basis`` with its inactive elements replaced by new ones.

    The ``active`` rows stay in place; the others take, in order, the rows
    of ``fresh`` that repeat no active element (nor each other), then the
    old inactive elements, so the basis keeps its size unless fewer
    distinct elements exist (places left over are dropped).

    Parameters
    ----------
    basis : ndarray of shape (K, n_features)
    active : ndarray of shape (K,), dtype=bool
        The elements some task weights.
    fresh : ndarray of shape (K', n_features)
        A basis drawn from more points.

    Returns
    -------
    basis : ndarray of shape (K'', n_features), K'' <= K
        A new array.
    source : ndarray of shape (K'',), dtype=intp
        The old place of each element kept, -1 for one that starts afresh.
    """
    pool = distinct_elements(np.concatenate(
        [basis[active], fresh, basis[~active]]))[np.count_nonzero(active):]
    source = np.arange(basis.shape[0])
    places = np.flatnonzero(~active)
    source[places[:pool.shape[0]]] = -1
    keep = np.ones(basis.shape[0], dtype=bool)
    keep[places[pool.shape[0]:]] = False
    renewed = basis.copy()
    renewed[places[:pool.shape[0]]] = pool[:places.shape[0]]
    return renewed[keep], source[keep]


def renewed_state(state, source):
    """The RDA state of a renewed basis: the average subgradient of each
    element kept, and zero for those that start afresh (as
    :func:`._solvers.rda_state_for` starts the elements the exact phase
    adds); the step count and units are kept."""
    mean_gradient = np.zeros((state.mean_gradient.shape[0], source.shape[0]))
    kept = source >= 0
    mean_gradient[:, kept] = state.mean_gradient[:, source[kept]]
    return RDAState(mean_gradient, state.iteration, state.scale)
