"""Per-row values written to many rows in one statement.

`QuerySet.bulk_update` writes a CASE with a branch per row, which PostgreSQL walks branch
after branch for every row it updates: a thousand rows of two columns took over a second
of a push of cold email (outreach.pushing). `update_rows` joins the rows instead:

    UPDATE t SET a = v.column2, b = v.column3 FROM (VALUES (%s, %s, %s), …) AS v
    WHERE t.id = v.column1

one statement, linear in the rows, on PostgreSQL and SQLite (3.33 and later); another
backend gets `bulk_update`. Values are prepared by their model fields (JSON as JSON) and
cast to the column's type, so every row reads the same as the first.
"""

from __future__ import annotations

from typing import Any

from django.db import connections
from django.db.models import Field, Model

JOINED_VENDORS = ("postgresql", "sqlite")


def update_rows(
    model: type[Model],
    rows: dict[Any, dict[str, Any]],
    *,
    also: dict[str, Any] | None = None,
    using: str = "default",
) -> int:
    """Write each row's values (primary key → {field name: value}; every row names the same
    fields) and the `also` values common to all, in one statement. Returns the rows
    written."""
    if not rows:
        return 0
    also = also or {}
    names = list(next(iter(rows.values())))
    connection = connections[using]
    if connection.vendor not in JOINED_VENDORS:
        objects = [model(pk=pk, **values, **also) for pk, values in rows.items()]
        return model._default_manager.using(using).bulk_update(objects, [*names, *also])
    quote = connection.ops.quote_name
    key = _field(model, model._meta.pk.name if model._meta.pk else "pk")
    fields = [_field(model, name) for name in names]
    common = [_field(model, name) for name in also]
    row_sql = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in [key, *fields])
    params: list[Any] = []
    for pk, values in rows.items():
        params.append(key.get_db_prep_save(pk, connection))
        params += [f.get_db_prep_save(values[f.name], connection) for f in fields]
    assignments = [f"{quote(f.column)} = v.column{n}" for n, f in enumerate(fields, start=2)]
    assignments += [f"{quote(f.column)} = %s" for f in common]
    shared = [f.get_db_prep_save(also[f.name], connection) for f in common]
    table = quote(model._meta.db_table)
    sql = (
        f"UPDATE {table} SET {', '.join(assignments)} "  # noqa: S608 (names and placeholders)
        f"FROM (VALUES {', '.join([f'({row_sql})'] * len(rows))}) AS v "
        f"WHERE {table}.{quote(key.column)} = v.column1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*shared, *params])
        return cursor.rowcount


def _field(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{model.__name__}.{name} is a column"
    return field
