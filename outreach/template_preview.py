"""What a template editor shows while a body is typed: its problems and a few rendered
variants with sample values (or a real lead's), for the templates page and the API."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from outreach import spintax
from outreach.models import Channel

SAMPLE_VARIABLES = {
    "company_name": "Agro Test SRL",
    "contact_name": "Ion Popescu",
    "county": "Iași",
    "locality": "Pașcani",
    "cui": "12345678",
}
PREVIEW_COUNT = 5
MAX_PREVIEW_COUNT = 50


@dataclass(frozen=True)
class TemplatePreview:
    variants: list[str] = field(default_factory=list)
    total: int = 0  # at most spintax.VARIANT_COUNT_CAP
    problems: list[str] = field(default_factory=list)
    more: bool = False  # more variants than `total` (counting stopped at the cap)


def preview_template(
    body: str,
    channel: str,
    custom_fields: Iterable[str] = (),
    *,
    variables: Mapping[str, str] | None = None,
    n: int = PREVIEW_COUNT,
    first_message: bool = False,
) -> TemplatePreview:
    """Up to n variants, the total and the problems; a half-typed body gives its problems,
    never an exception. An unknown channel previews as WhatsApp."""
    if channel not in spintax.CHANNEL_LIMITS:
        channel = Channel.WHATSAPP
    if not body.strip():
        return TemplatePreview()
    problems = spintax.validate(
        body, channel=channel, custom_fields=custom_fields, first_message=first_message
    )
    try:
        result = spintax.preview(body, SAMPLE_VARIABLES if variables is None else variables, n=n)
    except (spintax.TemplateError, ValueError):
        return TemplatePreview(problems=problems)
    return TemplatePreview(result.variants, result.total, problems, result.more)
