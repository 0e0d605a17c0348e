"""What OPTIONS answers on an API route: its name, description, and what it renders and
parses. No `actions`: the OpenAPI schema (/api/schema/) describes every body, and building
the serializers for them ran the view's write path (get_object on a route without an id
was a 500: PUT /phones/warmup/)."""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request


class EndpointMetadata(SimpleMetadata):
    def determine_actions(self, request: Request, view: Any) -> dict:
        return {}
