"""Fields of a model looked up by name, typed: the checks of input read their limits and
defaults from the model itself (one limit, in the model)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Field, Model


def column(model: type[Model], name: str) -> Field[Any, Any]:
    """The field behind a column of `model` (not a relation's reverse side); a wrong name
    is a programming error, said when the module that asks loads."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field):
        raise ImproperlyConfigured(f"{model.__name__}.{name} is not a column")
    return field


def max_length(model: type[Model], name: str) -> int:
    """The max_length of a text column: input longer than this is refused before saving."""
    limit = column(model, name).max_length
    if limit is None:
        raise ImproperlyConfigured(f"{model.__name__}.{name} has no max_length")
    return limit
