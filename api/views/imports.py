"""Bulk lead import: a CSV body or a JSON array of lead objects becomes an import job that a
worker runs with the CSV import (outreach.import_jobs); the job's URL shows its progress.

A repeated request (the same Idempotency-Key header, or the same content without one)
within 24 hours answers the job it made the first time (200) instead of importing again.
"""

from __future__ import annotations

import csv
import io

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers as s
from api.auth import tenant_of
from api.docs import READ, errors
from api.errors import Conflict
from api.parsers import BoundedBodyParser, BoundedJSONParser
from outreach.import_jobs import (
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    IdempotencyConflict,
    UploadRefused,
    start_or_reuse_import,
    too_many_rows,
)
from outreach.models import ImportJob

BODY = "body"  # the field named by errors about the request body as a whole
SCALARS = (str, int, float, bool, type(None))


class CSVParser(BoundedBodyParser):
    media_type = "text/csv"
    limit = MAX_UPLOAD_BYTES


class ImportJSONParser(BoundedJSONParser):
    """A JSON array of leads may be as large as a CSV file (its keys repeat on every row:
    twice the CSV ceiling)."""

    limit = 2 * MAX_UPLOAD_BYTES


def rows_as_csv(rows: object) -> bytes:
    """A JSON array of flat objects as CSV (header: every key, in order of appearance), so
    the one CSV import reads it: known columns become lead fields, others custom fields."""
    if not isinstance(rows, list) or not rows:
        raise ValidationError({BODY: [_("Send a non-empty JSON array of lead objects.")]})
    if len(rows) > MAX_ROWS:  # before any work on them
        raise ValidationError({BODY: [too_many_rows(len(rows))]})
    problems: dict[str, list[str]] = {}
    header: dict[str, None] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            problems[str(index)] = [_("must be an object")]
            continue
        for key, value in row.items():
            if not isinstance(value, SCALARS):
                problems[f"{index}.{key}"] = [_("must be text, a number or a boolean")]
            header.setdefault(key)
    if problems:
        raise ValidationError(problems)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                k: "" if v is None else str(v).lower() if isinstance(v, bool) else v
                for k, v in row.items()
            }
        )
    return out.getvalue().encode()


@extend_schema_view(
    list=extend_schema(
        summary="List import jobs (newest first)",
        responses={200: s.ImportJobSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="An import job's status, counts and rejected rows",
        responses={200: s.ImportJobSerializer, **errors(*READ)},
    ),
)
class ImportJobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = ImportJob.objects.none()
    serializer_class = s.ImportJobSerializer
    parser_classes = [ImportJSONParser, CSVParser]
    filterset_class = None
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[ImportJob]:
        if getattr(self, "swagger_fake_view", False):
            return ImportJob.objects.none()
        return ImportJob.objects.filter(tenant=tenant_of(self.request)).defer("content")

    @extend_schema(
        summary="Import leads in bulk (CSV or a JSON array), in the background",
        description=(
            "The same validation and dedupe as the CSV import of the leads page; rows that "
            "fail are listed on the job with their line and reason. Answers 202 with the new "
            "job, or 200 with the job an identical earlier request made (same "
            "`Idempotency-Key`, or the same content without one, within 24 hours). A key "
            "reused for other content is a 409."
        ),
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                required=False,
                description="Any unique text per intended import (e.g. a UUID).",
            ),
            OpenApiParameter(
                "dry_run",
                bool,
                OpenApiParameter.QUERY,
                required=False,
                description="Validate and count only; nothing is written.",
            ),
        ],
        request={
            "application/json": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": {
                        "nullable": True,
                        "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}],
                    },
                },
            },
            "text/csv": {"type": "string"},
        },
        responses={
            202: s.ImportJobSerializer,
            200: s.ImportJobSerializer,
            **errors(400, 403, 409, 413),
        },
        examples=[
            OpenApiExample(
                "JSON rows",
                value=[{"name": "Agro Ferma SRL", "cui": "RO18547290", "phone": "0722123456"}],
                request_only=True,
                media_type="application/json",
            )
        ],
    )
    def create(self, request: Request) -> Response:
        data = request.data
        content = data if isinstance(data, bytes) else rows_as_csv(data)
        dry_run = request.query_params.get("dry_run", "").lower() in ("1", "true", "yes")
        try:
            job, created = start_or_reuse_import(
                tenant_of(request),
                file_name="api.json" if not isinstance(data, bytes) else "api.csv",
                content=content,
                dry_run=dry_run,
                user=request.user if request.user.is_authenticated else None,
                idempotency_key=request.headers.get("Idempotency-Key", ""),
            )
        except UploadRefused as refused:
            raise ValidationError({BODY: [str(refused)]}) from None
        except IdempotencyConflict as conflict:
            raise Conflict(str(conflict), code="idempotency_conflict") from None
        return Response(
            s.ImportJobSerializer(job).data,
            status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
            headers={"Location": f"{request.path}{job.pk}/"},
        )
