"""What the checks of input read from the models themselves (one limit, in the model)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Field, Model


def max_length(model: type[Model], name: str) -> int:
    """The max_length of a text column: input longer than this is refused before saving.
    A field without one is a programming error, said when the checking module loads."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.max_length is None:
        raise ImproperlyConfigured(f"{model.__name__}.{name} has no max_length")
    return field.max_length
