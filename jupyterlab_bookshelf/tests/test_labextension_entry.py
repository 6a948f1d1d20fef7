"""The built extension's module federation entry, which JupyterLab fetches at start-up before
any of the extension's code: it must carry the build's own runtime parts
(``buildutils/slim-runtime.js``), not rspack's. A swap that no longer applies (after an rspack
or builder update) is only a build warning; this makes it fail the tests."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "labextension" / "static"

#: Strings only rspack's own runtime modules hold, by the module the build swaps.
RSPACK_ONLY = {
    "consumes_loading": "Unexpected start value",  # its semver range parser
    "sharing": "Initialization of sharing external failed",  # remote containers
    "load_script": "data-rspack",  # looking for a script tag already in the page
    "auto_public_path": "getElementsByTagName",  # the public path from other scripts
}

#: The entry's size with the swaps is 5.4 KB (13.1 KB without); room for a few more shared
#: packages or chunks, not for one of rspack's modules back.
MAX_ENTRY_BYTES = 6 * 1024


def _entry() -> Path:
    entries = list(STATIC.glob("remoteEntry.*.js"))
    assert len(entries) == 1, f"one built entry expected in {STATIC}, found {entries}"
    return entries[0]


def test_the_entry_holds_the_builds_runtime_parts_not_rspacks() -> None:
    text = _entry().read_text()
    kept = [name for name, marker in RSPACK_ONLY.items() if marker in text]
    assert kept == [], f"rspack's runtime modules kept (see the build's warnings): {kept}"
    # The swapped consumes: JupyterLab's singletons by package and version.
    assert re.search(r'"@jupyterlab/application","\d+\.\d+\.\d+"', text)


def test_the_entry_stays_small() -> None:
    size = _entry().stat().st_size
    assert size <= MAX_ENTRY_BYTES, f"remoteEntry is {size} B, more than {MAX_ENTRY_BYTES} B"
