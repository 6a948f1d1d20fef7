"""The rules Bookshelf's browser side and server side share, read from their one definition.

The JSON files live in ``src/rules/`` beside the TypeScript that imports them; the wheel carries
them as ``jupyterlab_bookshelf/rules/`` (see ``force-include`` in ``pyproject.toml``). A source
checkout or an editable install reads them from ``src/rules/``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent
_LOCATIONS = (_PACKAGE / "rules", _PACKAGE.parent / "src" / "rules")


@cache
def load_rule(name: str) -> Any:
    """The parsed contents of ``<name>.json`` among the shared rules."""
    for folder in _LOCATIONS:
        path = folder / f"{name}.json"
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    raise FileNotFoundError(f"Bookshelf's rule file {name}.json is missing from {_LOCATIONS[0]}")


_PLACEHOLDER = re.compile(r"%%|%(\d+)")


def format_message(template: str, *args: object) -> str:
    """A rule's message template with its ``%1``-style placeholders filled, as the browser's
    ``trans.__`` fills them without a translation (``Gettext.strfmt``): ``%n`` is the n-th
    argument as text, ``%%`` a percent sign."""
    return _PLACEHOLDER.sub(
        lambda found: str(args[int(found.group(1)) - 1]) if found.group(1) else "%", template
    )
