"""Cursor pagination: stable pages however many leads or messages arrive meanwhile."""

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination

MAX_PAGE_SIZE = 200


class Cursor(CursorPagination):
    ordering = "-pk"
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def decode_cursor(self, request):
        """A cursor the client mangled is a bad parameter (400 naming it), not a 404."""
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise ValidationError(
                {self.cursor_query_param: [self.invalid_cursor_message]}
            ) from None


class NewestFirst(Cursor):
    ordering = ("-created_at", "-pk")
