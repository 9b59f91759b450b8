"""What a fit says it does: its stages, their times and what each found.

A fit passes one :class:`FitLog` through its stages (choosing beta, mining
triplets, building the basis, the solvers, a fallback). With ``verbose``
each stage prints a line when it starts and one when it ends, and a long
stage prints its own progress in between (the solvers' tables, the path
of the choice of beta), so that no stretch of a fit is silent. The same
records are kept on the estimator as ``fit_stages_``, for a quiet fit.
"""

import time
from contextlib import contextmanager

import numpy as np

from ._arrays import plain


def describe(value):
    """A short text of a recorded value: numbers to 3 digits, arrays as lists."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return "%.3g" % value
    if isinstance(value, np.ndarray):
        return "[%s]" % " ".join(describe(item) for item in value.tolist())
    return str(value)


class FitLog:
    """The stages of one fit.

    Parameters
    ----------
    name : str
        The learner's name, which prefixes every printed line.
    verbose : bool

    Attributes
    ----------
    stages : list of dict
        One per stage, in order: ``stage`` (its name), ``seconds`` and the
        facts it found (counts, the values tried, the chosen beta, ...).
    """

    def __init__(self, name, verbose):
        self.name = name
        self.verbose = verbose
        self.stages = []

    def say(self, message):
        """Print a line (with ``verbose``)."""
        if self.verbose:
            print("[%s] %s" % (self.name, message), flush=True)

    def _record(self, stage, seconds, facts):
        # numpy scalars as Python ones, so that the record serialises as is
        facts = {key: plain(value) for key, value in facts.items()}
        self.stages.append({"stage": stage, "seconds": seconds, **facts})
        found = "; ".join("%s %s" % (key.replace("_", " "), describe(value))
                          for key, value in facts.items())
        took = "(%.2f s)" % seconds if seconds else ""
        self.say(("%s: %s %s" % (stage, found, took)).rstrip())

    @contextmanager
    def stage(self, stage):
        """Time a stage; the caller fills the yielded dict with its facts."""
        self.say("%s ..." % stage)
        facts = {}
        start = time.perf_counter()
        yield facts
        self._record(stage, time.perf_counter() - start, facts)

    def ticker(self, what, every=1.0):
        """A ``progress(done, total)`` function that says how far ``what``
        has gone, at most once every ``every`` seconds."""
        last = [time.perf_counter()]

        def progress(done, total):
            now = time.perf_counter()
            if now - last[0] >= every and done < total:
                last[0] = now
                self.say("  %s: %d of %d" % (what, done, total))
        return progress

    def note(self, stage, **facts):
        """A finding that takes no time of its own (a fallback and its reason)."""
        self._record(stage, 0.0, facts)
