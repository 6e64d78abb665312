"""What the store raises when the database cannot be used: one line for the operator."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used; the message says why in one line, for the operator."""


class SchemaTooNew(StoreError):
    """The database was migrated by a newer server than this one."""
