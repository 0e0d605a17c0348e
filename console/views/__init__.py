"""Operator pages (server-rendered, htmx for partial updates)."""
