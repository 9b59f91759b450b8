"""Declarative constraints of the estimators' hyper-parameters.

Each estimator class holds a ``_parameter_constraints`` table (as
scikit-learn's estimators do), ``{name: [constraint, ...]}``;
:func:`parameter_constraints` merges the tables along the class hierarchy,
and :func:`validate_parameters` checks a mapping of values against them in
one place. A value passes when one of its constraints accepts
it. The constraint classes are the package's own (scikit-learn's live in a
private module that changes between releases).
"""

import numbers
from collections.abc import Iterable

import numpy as np


class Interval:
    """A real number (or an integer) in a range: ``low <= value <= high``.

    ``low_inclusive=False`` makes the lower bound strict. ``bool`` is never
    a number here, and NaN or infinity never passes.
    """

    def __init__(self, kind, low=None, high=None, low_inclusive=True):
        self.kind = kind
        self.low = low
        self.high = high
        self.low_inclusive = low_inclusive

    def describe(self):
        return "an integer" if self.kind == "int" else "a real number"

    def accepts_type(self, value):
        numeric = numbers.Integral if self.kind == "int" else numbers.Real
        return isinstance(value, numeric) and not isinstance(value, bool)

    def range_error(self, name, value):
        """The message for a value of the right type out of range, or None."""
        if not np.isfinite(value):
            return "%s must be finite, got %r." % (name, value)
        low = self.low
        if low is not None and (value < low
                                or (value == low and not self.low_inclusive)):
            return "%s must be %s %s, got %r." % (
                name, ">=" if self.low_inclusive else ">", low, value)
        if self.high is not None and value > self.high:
            return "%s must be <= %s, got %r." % (name, self.high, value)
        return None


class Options:
    """One of a fixed set of strings."""

    def __init__(self, *options):
        self.options = options

    def describe(self):
        return " or ".join(repr(option) for option in self.options)

    def accepts_type(self, value):
        return isinstance(value, str)

    def range_error(self, name, value):
        return None if value in self.options else "not one of the options"


class ArrayLike:
    """Anything but a string or None (checked where it is used)."""

    def __init__(self, shape=""):
        self.shape = shape

    def describe(self):
        return "an array" + (" of shape %s" % self.shape if self.shape else "")

    def accepts_type(self, value):
        return not isinstance(value, str) and value is not None

    def range_error(self, name, value):
        return None


class HasMethods:
    """An object with the given methods (an estimator of a given kind)."""

    def __init__(self, *methods, what="an object"):
        self.methods = methods
        self.what = what

    def describe(self):
        return "%s (with %s)" % (self.what, ", ".join(self.methods))

    def accepts_type(self, value):
        # A class has its methods too, unbound: the instance is wanted.
        return not isinstance(value, type) and all(
            callable(getattr(value, name, None)) for name in self.methods)

    def range_error(self, name, value):
        return None


class IterableOf:
    """An iterable other than a string (its items checked where it is used).

    Never iterated here: a generator stays unconsumed for the fit.
    """

    def __init__(self, what):
        self.what = what

    def describe(self):
        return "an iterable of %s" % self.what

    def accepts_type(self, value):
        return isinstance(value, Iterable) and not isinstance(value, str)

    def range_error(self, name, value):
        return None


def parameter_constraints(cls):
    """The merged ``_parameter_constraints`` of ``cls`` and its bases."""
    merged = {}
    for klass in reversed(cls.__mro__):
        merged.update(vars(klass).get("_parameter_constraints", {}))
    return merged


class InvalidParameterError(ValueError, TypeError):
    """A hyper-parameter of the wrong type or out of range.

    Both a ``ValueError`` and a ``TypeError``, as scikit-learn's own.
    """


def validate_parameters(constraints, params):
    """Check every hyper-parameter of ``constraints`` (``{name: [constraint,
    ...]}``, as :func:`parameter_constraints` merges them) in ``params``
    (``{name: value}``).

    A value is accepted when one of its constraints takes its type and
    range; ``None`` in a list means None is allowed.

    Raises
    ------
    InvalidParameterError
        For a value no constraint takes the type of ("n_basis must be an
        integer or None, got 10.5 of type float."), or of an accepted type
        out of every range, naming the parameter and the allowed values.
    """
    for name, allowed in constraints.items():
        validate_value(name, params[name], allowed)


def validate_value(name, value, constraints):
    """Check one value against its constraints (see :func:`validate_parameters`)."""
    if value is None and None in constraints:
        return
    kinds = [c for c in constraints if c is not None]
    typed = [c for c in kinds if c.accepts_type(value)]
    if not typed:
        allowed = [c.describe() for c in kinds]
        if None in constraints:
            allowed.append("None")
        raise InvalidParameterError("%s must be %s, got %r of type %s." % (
            name, " or ".join(allowed), value, type(value).__name__))
    errors = [c.range_error(name, value) for c in typed]
    if all(errors):
        if isinstance(typed[0], Options):
            raise InvalidParameterError("%s=%r is not supported: use %s." % (
                name, value, " or ".join(c.describe() for c in kinds)))
        raise InvalidParameterError(errors[0])
