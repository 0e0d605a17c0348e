"""Cursor pagination: stable pages however many leads or messages arrive meanwhile."""

from rest_framework.pagination import CursorPagination

MAX_PAGE_SIZE = 200


class Cursor(CursorPagination):
    ordering = "-pk"
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


class NewestFirst(Cursor):
    ordering = ("-created_at", "-pk")
