"""Sent by `manage.py restore` once a database is restored (cerniq.backups); a receiver
returns a line for the person restoring. Outreach applies the erasure ledger again.

A module of its own: apps connect to it when they are ready, without importing the backup
machinery (django-dbbackup reads the storages when it is imported)."""

from django.dispatch import Signal

restored = Signal()
