"""Bookshelf's one error type on the server, with the codes and statuses the browser uses.

The codes and their HTTP statuses are data shared with the browser (``src/rules/errors.json``):
a handler never picks a status of its own, so the API answers what the browser's errors mean.
Every error body is ``{code, message, field?}``; never a traceback, never a secret.
"""

from __future__ import annotations

import json
from typing import Any

from .rules import load_rule


def error_codes() -> dict[str, dict[str, Any]]:
    """Every code of ``errors.json`` with its ``status`` and ``summary``."""
    return load_rule("errors")["codes"]


class BookshelfError(Exception):
    """A failure to report to the caller: a code of ``errors.json``, a message that says what
    happened and what to do, and the request field it is about, if any. The HTTP status comes
    from the code; ``status`` overrides it only where one code covers several statuses."""

    def __init__(
        self, code: str, message: str, field: str | None = None, status: int | None = None
    ):
        codes = error_codes()
        if code not in codes:
            # A programming error: every code is declared in errors.json first.
            raise ValueError(f"unknown Bookshelf error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.status = status if status is not None else int(codes[code]["status"])

    def body(self) -> dict[str, str]:
        body = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return body

    def __repr__(self) -> str:
        return f"BookshelfError({self.code!r}, {self.message!r}, field={self.field!r})"


def status_of(code: str) -> int:
    """The HTTP status the API answers for ``code``."""
    return int(error_codes()[code]["status"])


def finish_error(handler: Any, error: BookshelfError, **extra: Any) -> None:
    """Answer ``error`` from a Tornado handler as JSON ``{code, message, field?}`` (and
    ``extra`` fields, e.g. the link to use instead)."""
    handler.set_status(error.status)
    handler.set_header("Content-Type", "application/json")
    handler.finish(json.dumps({**error.body(), **extra}))
