"""Sample objects for the bookshelf S3 fixture, the demo and the tests.

``build_samples()`` returns a ``{key: bytes}`` map of a few realistic nbformat 4.5
notebooks, as a data scientist would keep them (markdown, executed code cells with
stream, rich and image outputs), plus two non-notebook objects (a UTF-8 text file
and a PNG). The PNG charts are drawn procedurally and encoded with zlib + struct,
so nothing but nbformat is needed.

Every run gives the same bytes (fixed cell ids, fixed data, no time stamps), for a
given zlib. Tests should compare against ``build_samples()`` rather than against
hard-coded hashes.

Usage::

    python scripts/make_sample_notebooks.py OUTDIR
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import struct
import sys
import zlib
from pathlib import Path

import nbformat
from nbformat import v4

NOTEBOOK_CONTENT_TYPE = "application/x-ipynb+json"

# --------------------------------------------------------------------------- PNG


def encode_png(width: int, height: int, rows: list[bytes], *, alpha: bool = False) -> bytes:
    """Encode 8-bit RGB (or RGBA) rows as a PNG file."""
    bpp = 4 if alpha else 3
    raw = bytearray()
    for row in rows:
        if len(row) != width * bpp:
            raise ValueError("row length does not match the width")
        raw.append(0)  # filter type 0 (None) for every scanline
        raw += row

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        crc = zlib.crc32(body) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + body + struct.pack(">I", crc)

    color_type = 6 if alpha else 2
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + chunk(b"IEND", b"")
    )


Color = tuple[int, int, int]

WHITE: Color = (255, 255, 255)
GRID: Color = (228, 231, 236)
AXIS: Color = (90, 96, 105)
BLUE: Color = (31, 119, 180)
ORANGE: Color = (255, 127, 14)
GREEN: Color = (44, 160, 44)
RED: Color = (214, 39, 40)
PURPLE: Color = (148, 103, 189)


class Canvas:
    """A tiny RGB raster with just enough primitives for a chart."""

    def __init__(self, width: int, height: int, background: Color = WHITE) -> None:
        self.width = width
        self.height = height
        self.pixels = [list(background) * width for _ in range(height)]

    def set(self, x: int, y: int, color: Color) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            self.pixels[y][3 * x : 3 * x + 3] = color

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        """Fill the rectangle with corners (x0, y0) and (x1, y1), inclusive."""
        for y in range(min(y0, y1), max(y0, y1) + 1):
            for x in range(min(x0, x1), max(x0, x1) + 1):
                self.set(x, y, color)

    def line(self, x0: int, y0: int, x1: int, y1: int, color: Color, width: int = 1) -> None:
        """Bresenham line, thickened with a square pen."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        half = width // 2
        while True:
            self.rect(x0 - half, y0 - half, x0 - half + width - 1, y0 - half + width - 1, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def dashed_line(
        self, x0: int, y0: int, x1: int, y1: int, color: Color, width: int = 1, dash: int = 6
    ) -> None:
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in range(0, steps, 2 * dash):
            j = min(i + dash, steps)
            self.line(
                x0 + (x1 - x0) * i // steps,
                y0 + (y1 - y0) * i // steps,
                x0 + (x1 - x0) * j // steps,
                y0 + (y1 - y0) * j // steps,
                color,
                width,
            )

    def disc(self, cx: int, cy: int, r: int, color: Color) -> None:
        for y in range(cy - r, cy + r + 1):
            for x in range(cx - r, cx + r + 1):
                if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                    self.set(x, y, color)

    def png(self) -> bytes:
        return encode_png(self.width, self.height, [bytes(row) for row in self.pixels])


class Plot:
    """Axes with a data range mapped onto a canvas, gridlines and a frame."""

    def __init__(
        self,
        canvas: Canvas,
        x_range: tuple[float, float],
        y_range: tuple[float, float],
        y_ticks: list[float],
        margin: tuple[int, int, int, int] = (40, 14, 14, 26),
    ) -> None:
        self.c = canvas
        left, top, right, bottom = margin
        self.x0, self.x1 = left, canvas.width - right
        self.y0, self.y1 = canvas.height - bottom, top
        self.xr, self.yr = x_range, y_range
        for t in y_ticks:
            y = self.py(t)
            canvas.line(self.x0, y, self.x1, y, GRID)
            canvas.line(self.x0 - 4, y, self.x0, y, AXIS)

    def px(self, x: float) -> int:
        lo, hi = self.xr
        return round(self.x0 + (x - lo) / (hi - lo) * (self.x1 - self.x0))

    def py(self, y: float) -> int:
        lo, hi = self.yr
        return round(self.y0 + (y - lo) / (hi - lo) * (self.y1 - self.y0))

    def frame(self) -> None:
        self.c.line(self.x0, self.y0, self.x1, self.y0, AXIS)
        self.c.line(self.x0, self.y0, self.x0, self.y1, AXIS)


# ----------------------------------------------------------------------- the data

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
# Monthly revenue 2026 in thousands of euros, January to September (actuals).
REVENUE = [182.4, 176.9, 195.3, 201.8, 214.6, 209.2, 226.5, 231.0, 240.7]
ORDERS = [1204, 1153, 1297, 1342, 1410, 1378, 1486, 1512, 1569]


def linear_fit(ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of ys against 1, 2, ..., n."""
    n = len(ys)
    xs = range(1, n + 1)
    mx = sum(xs) / n
    my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    return slope, my - slope * mx


SLOPE, INTERCEPT = linear_fit(REVENUE)
FORECAST = [round(INTERCEPT + SLOPE * m, 1) for m in (10, 11, 12)]

# Q3 2026 revenue by region, thousands of euros: (region, July+August+September, Q2).
REGIONS = [
    ("North", 241.3, 219.8),
    ("South", 187.6, 190.2),
    ("East", 152.9, 131.4),
    ("West", 116.4, 103.6),
]


def sales_chart() -> bytes:
    """Bars for the actuals, a dashed trend line and the Q4 forecast points."""
    c = Canvas(360, 180)
    p = Plot(c, (0.5, 12.5), (0, 300), [0, 50, 100, 150, 200, 250, 300])
    for m, value in enumerate(REVENUE, start=1):
        c.rect(p.px(m - 0.32), p.py(0), p.px(m + 0.32), p.py(value), BLUE)
    c.dashed_line(p.px(1), p.py(INTERCEPT + SLOPE), p.px(12), p.py(INTERCEPT + 12 * SLOPE), AXIS)
    prev = (p.px(9), p.py(REVENUE[-1]))
    for m, value in zip((10, 11, 12), FORECAST, strict=True):
        point = (p.px(m), p.py(value))
        c.line(*prev, *point, ORANGE, width=2)
        c.disc(*point, 4, ORANGE)
        prev = point
    for m in range(1, 13):
        c.line(p.px(m), p.y0, p.px(m), p.y0 + 4, AXIS)
    p.frame()
    return c.png()


def regions_chart() -> bytes:
    """Grouped bars: Q2 (light) next to Q3 (dark) for each region."""
    c = Canvas(320, 160)
    p = Plot(c, (0.5, len(REGIONS) + 0.5), (0, 250), [0, 50, 100, 150, 200, 250])
    light = (174, 199, 232)
    for i, (_, q3, q2) in enumerate(REGIONS, start=1):
        c.rect(p.px(i - 0.36), p.py(0), p.px(i - 0.02), p.py(q2), light)
        c.rect(p.px(i + 0.02), p.py(0), p.px(i + 0.36), p.py(q3), BLUE)
        c.line(p.px(i), p.y0, p.px(i), p.y0 + 4, AXIS)
    p.frame()
    return c.png()


def orders_chart() -> bytes:
    """A line chart of monthly orders with markers."""
    c = Canvas(320, 140)
    p = Plot(c, (0.5, 9.5), (1000, 1700), [1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700])
    points = [(p.px(m), p.py(v)) for m, v in enumerate(ORDERS, start=1)]
    for a, b in zip(points, points[1:], strict=False):
        c.line(*a, *b, GREEN, width=2)
    for pt in points:
        c.disc(*pt, 3, GREEN)
    p.frame()
    return c.png()


def logo_png() -> bytes:
    """A 64x64 RGBA icon: five book spines on a shelf, transparent background."""
    size = 64
    img = [[(0, 0, 0, 0)] * size for _ in range(size)]
    books = [  # x, width, top, color
        (8, 8, 14, RED),
        (17, 7, 20, BLUE),
        (25, 9, 10, GREEN),
        (35, 7, 18, ORANGE),
    ]
    for x, w, top, color in books:
        for yy in range(top, 50):
            for xx in range(x, x + w):
                img[yy][xx] = (*color, 255)
        for xx in range(x + 1, x + w - 1):  # a pale band on each spine
            img[top + 4][xx] = (255, 255, 255, 200)
    for i in range(34):  # a leaning book
        for t in range(8):
            xx, yy = 44 + t + i * 10 // 34, 49 - i
            if 0 <= xx < size:
                img[yy][xx] = (*PURPLE, 255)
    for yy in range(50, 55):  # the shelf
        for xx in range(4, 60):
            img[yy][xx] = (120, 84, 52, 255)
    rows = [bytes(v for px in row for v in px) for row in img]
    return encode_png(size, size, rows, alpha=True)


# ------------------------------------------------------------------- notebooks

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.11.7",
}


class NotebookBuilder:
    """Builds a notebook with deterministic cell ids (``<prefix>-<n>``)."""

    def __init__(self, prefix: str, **metadata: object) -> None:
        self.prefix = prefix
        self.n = 0
        self.nb = v4.new_notebook(
            metadata={
                "kernelspec": dict(KERNELSPEC),
                "language_info": dict(LANGUAGE_INFO),
                **metadata,
            }
        )
        self.nb.nbformat, self.nb.nbformat_minor = 4, 5

    def _id(self) -> str:
        self.n += 1
        return f"{self.prefix}-{self.n}"

    def md(self, source: str) -> NotebookBuilder:
        self.nb.cells.append(v4.new_markdown_cell(source.strip("\n"), id=self._id()))
        return self

    def code(
        self, source: str, *outputs: nbformat.NotebookNode, count: int | None = None
    ) -> NotebookBuilder:
        cell = v4.new_code_cell(
            source.strip("\n"), id=self._id(), execution_count=count, outputs=list(outputs)
        )
        self.nb.cells.append(cell)
        return self

    def bytes(self) -> bytes:
        nbformat.validate(self.nb)
        return (nbformat.writes(self.nb) + "\n").encode("utf-8")


def stdout(text: str) -> nbformat.NotebookNode:
    return v4.new_output("stream", name="stdout", text=text)


def stderr(text: str) -> nbformat.NotebookNode:
    return v4.new_output("stream", name="stderr", text=text)


def result(count: int, data: dict[str, str]) -> nbformat.NotebookNode:
    return v4.new_output("execute_result", data=data, execution_count=count)


def image(png: bytes, text: str) -> nbformat.NotebookNode:
    return v4.new_output(
        "display_data",
        data={"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text},
    )


def html_table(columns: list[str], rows: list[tuple[object, ...]], index: list[object]) -> str:
    """A pandas-style ``DataFrame._repr_html_``."""
    head = "".join(f"      <th>{html.escape(c)}</th>\n" for c in columns)
    body = ""
    for i, row in zip(index, rows, strict=True):
        cells = "".join(f"      <td>{html.escape(str(v))}</td>\n" for v in row)
        body += f"    <tr>\n      <th>{i}</th>\n{cells}    </tr>\n"
    return (
        "<div>\n"
        '<table border="1" class="dataframe">\n'
        "  <thead>\n"
        '    <tr style="text-align: right;">\n'
        "      <th></th>\n"
        f"{head}"
        "    </tr>\n"
        "  </thead>\n"
        "  <tbody>\n"
        f"{body}"
        "  </tbody>\n"
        "</table>\n"
        "</div>"
    )


def text_table(columns: list[str], rows: list[tuple[object, ...]], index: list[object]) -> str:
    """A pandas-style plain text repr."""
    cells = [[""] + columns] + [
        [str(i)] + [str(v) for v in row] for i, row in zip(index, rows, strict=True)
    ]
    widths = [max(len(r[k]) for r in cells) for k in range(len(cells[0]))]
    return "\n".join(
        "  ".join(
            [r[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True)]
        )
        for r in cells
    )


def intro_notebook() -> bytes:
    shelf = {"fiction": 412, "science": 198, "history": 157, "poetry": 64}
    ranked = sorted(shelf.items(), key=lambda kv: -kv[1])
    listing = "".join(f"{genre:<10}{count:>5}\n" for genre, count in ranked)
    return (
        NotebookBuilder("intro")
        .md(
            """
# Welcome to the bookshelf

This notebook comes from the shared **examples** bucket. Cloning it put a copy in your
Jupyter file tree: change it as much as you like, the original stays untouched.

## What is on the shelf

| Notebook | What it shows |
|---|---|
| `intro.ipynb` | this page: markdown, code and printed output |
| `analysis/sales-forecast.ipynb` | a table, a chart and a simple linear forecast |
| `reports/2026/q3.ipynb` | a quarterly report with figures |
| `tutorials/getting-started.ipynb` | clone, edit and publish, step by step |
"""
        )
        .code(
            """
import platform
import sys

print(f"Python {sys.version_info.major}.{sys.version_info.minor} on {platform.system()}")
""",
            stdout("Python 3.11 on Linux\n"),
            count=1,
        )
        .code(
            """
shelf = {"fiction": 412, "science": 198, "history": 157, "poetry": 64}

for genre, count in sorted(shelf.items(), key=lambda kv: -kv[1]):
    print(f"{genre:<10}{count:>5}")
""",
            stdout(listing),
            count=2,
        )
        .code(
            "total = sum(shelf.values())\ntotal",
            result(3, {"text/plain": str(sum(shelf.values()))}),
            count=3,
        )
        .md(
            """
## Next steps

1. Open `tutorials/getting-started.ipynb` for a guided tour.
2. When a notebook is ready to share, right-click it in the file browser and choose
   **Publish**: you get a link that anyone can use to clone it.
"""
        )
        .bytes()
    )


def sales_forecast_notebook() -> bytes:
    head_rows = [(MONTHS[i], REVENUE[i], ORDERS[i]) for i in range(5)]
    columns = ["month", "revenue_keur", "orders"]
    return (
        NotebookBuilder("sales")
        .md(
            """
# Sales forecast 2026

Monthly revenue (k€) from January to September, and a linear trend forecast for Q4.
Source: the finance export `sales_2026.csv` (one row per month).
"""
        )
        .code(
            """
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
""",
            count=1,
        )
        .code(
            f"""
sales = pd.DataFrame(
    {{
        "month": {json.dumps(MONTHS[:9])},
        "revenue_keur": {json.dumps(REVENUE)},
        "orders": {json.dumps(ORDERS)},
    }}
)
sales.head()
""",
            result(
                2,
                {
                    "text/plain": text_table(columns, head_rows, list(range(5))),
                    "text/html": html_table(columns, head_rows, list(range(5))),
                },
            ),
            count=2,
        )
        .code(
            """
month_no = np.arange(1, len(sales) + 1)
slope, intercept = np.polyfit(month_no, sales["revenue_keur"], 1)
forecast = intercept + slope * np.array([10, 11, 12])
print(f"trend: {slope:+.2f} k€ per month")
print("Q4 forecast (k€):", ", ".join(f"{v:.1f}" for v in forecast))
""",
            stdout(
                f"trend: {SLOPE:+.2f} k€ per month\n"
                f"Q4 forecast (k€): {', '.join(f'{v:.1f}' for v in FORECAST)}\n"
            ),
            count=3,
        )
        .code(
            """
fig, ax = plt.subplots(figsize=(6.4, 3.2))
ax.bar(month_no, sales["revenue_keur"], label="actual")
ax.plot([9, 10, 11, 12], [sales["revenue_keur"].iloc[-1], *forecast], "o-", label="forecast")
ax.set_xticks(range(1, 13))
ax.set_ylabel("revenue (k€)")
ax.legend()
plt.show()
""",
            image(sales_chart(), "<Figure size 640x320 with 1 Axes>"),
            count=4,
        )
        .md(
            f"""
## Conclusion

Revenue grows by about **{SLOPE:.1f} k€ per month**. If the trend holds, December
closes at roughly **{FORECAST[-1]:.0f} k€**.
"""
        )
        .bytes()
    )


def q3_report_notebook() -> bytes:
    total_q3 = round(sum(q3 for _, q3, _ in REGIONS), 1)
    total_q2 = round(sum(q2 for _, _, q2 in REGIONS), 1)
    growth_rows = [(name, q2, q3, f"{(q3 - q2) / q2 * 100:+.1f}%") for name, q3, q2 in REGIONS]
    columns = ["q2_keur", "q3_keur", "growth"]
    index = [name for name, *_ in growth_rows]
    rows = [row[1:] for row in growth_rows]
    return (
        NotebookBuilder("q3", title="Q3 2026 report")
        .md(
            """
# Q3 2026 report

*Prepared by the analytics team. Figures in thousands of euros.*

## Summary
"""
        )
        .code(
            """
import pandas as pd

regions = pd.read_csv("regions_q3.csv", index_col="region")
q3, q2 = regions["q3_keur"].sum(), regions["q2_keur"].sum()
print(f"Q3 revenue: {q3:.1f} k€ ({(q3 - q2) / q2:+.1%} on Q2)")
""",
            stderr(
                "<ipython-input-1-3198562745>:3: DtypeWarning: Columns (2) have mixed types. "
                "Specify dtype option on import or set low_memory=False.\n"
                '  regions = pd.read_csv("regions_q3.csv", index_col="region")\n'
            ),
            stdout(f"Q3 revenue: {total_q3:.1f} k€ ({total_q3 / total_q2 - 1:+.1%} on Q2)\n"),
            count=1,
        )
        .md("## By region")
        .code(
            """
regions["growth"] = ((regions["q3_keur"] / regions["q2_keur"] - 1) * 100).map("{:+.1f}%".format)
regions[["q2_keur", "q3_keur", "growth"]]
""",
            result(
                2,
                {
                    "text/plain": text_table(columns, rows, index),
                    "text/html": html_table(columns, rows, index),
                },
            ),
            count=2,
        )
        .code(
            """
ax = regions[["q2_keur", "q3_keur"]].plot.bar(figsize=(5.2, 2.6), rot=0)
ax.set_ylabel("k€");
""",
            image(regions_chart(), "<Figure size 520x260 with 1 Axes>"),
            count=3,
        )
        .md("## Orders")
        .code(
            """
orders = pd.read_csv("orders_2026.csv", index_col="month")["orders"]
orders.plot(marker="o", figsize=(5.2, 2.2), color="tab:green");
""",
            image(orders_chart(), "<Figure size 520x220 with 1 Axes>"),
            count=4,
        )
        .md(
            """
## Notes

- **East** grew fastest (new distributor since July).
- **South** is slightly down: the August closure of the Sevilla warehouse.
- Next report: Q4 2026, due in the second week of January.
"""
        )
        .bytes()
    )


def getting_started_notebook() -> bytes:
    return (
        NotebookBuilder("start")
        .md(
            """
# Getting started

This tutorial shows the full round trip: **clone** a notebook from object storage,
**edit** it in JupyterLab, and **publish** it for others.

> Run the cells from top to bottom with <kbd>Shift</kbd>+<kbd>Enter</kbd>.
"""
        )
        .md(
            """
## 1. Clone

A shared link such as

```
/lab?bookshelf-clone&s3_bucket=examples&s3_key=tutorials/getting-started.ipynb
```

opens a dialog; nothing is copied until you confirm. If a file with the same name exists,
the copy gets a new name (`getting-started-1.ipynb`): nothing is ever overwritten.
"""
        )
        .code(
            """
from pathlib import Path

sorted(p.name for p in Path(".").glob("*.ipynb"))
"""
        )
        .md("## 2. Edit\n\nChange the greeting and run the cell.")
        .code('name = "world"\nprint(f"Hello, {name}!")')
        .md(
            """
## 3. When things go wrong

Errors show a traceback. The next cell fails on purpose:
"""
        )
        .code(
            'shelf = {"fiction": 412}\nshelf["cookbooks"]',
            v4.new_output(
                "error",
                ename="KeyError",
                evalue="'cookbooks'",
                traceback=[
                    "---------------------------------------------------------------------------",
                    "KeyError                                  Traceback (most recent call last)",
                    "Cell In[1], line 2\n"
                    '      1 shelf = {"fiction": 412}\n'
                    '----> 2 shelf["cookbooks"]\n',
                    "KeyError: 'cookbooks'",
                ],
            ),
            count=1,
        )
        .md(
            """
## 4. Publish

Save the notebook, right-click it in the file browser and choose **Publish**. The dialog
shows where it went (`s3://published/...`), the version id, and a link to share.
"""
        )
        .bytes()
    )


def history_versions() -> list[bytes]:
    """Two successive versions of ``history.ipynb`` (oldest first), for versioned buckets."""
    versions = []
    for n, note in ((1, "First draft."), (2, "Second draft: the numbers are final.")):
        versions.append(
            NotebookBuilder(f"history-v{n}")
            .md(f"# Reading history\n\nVersion {n}. {note}")
            .code(
                "books_read = [12, 17, 9]\nsum(books_read)",
                result(1, {"text/plain": "38"}),
                count=1,
            )
            .bytes()
        )
    return versions


README_TEXT = """\
Bookshelf sample data
=====================

This folder holds objects that are not notebooks, to check that cloning keeps them intact:

- readme.txt: this UTF-8 text (note the non-ASCII characters: café, naïve, 10 €, “quotes”).
- logo.png: a small binary PNG image.
"""


def build_samples() -> dict[str, bytes]:
    """All sample objects, as ``{key: bytes}``, in a stable order."""
    return {
        "intro.ipynb": intro_notebook(),
        "analysis/sales-forecast.ipynb": sales_forecast_notebook(),
        "reports/2026/q3.ipynb": q3_report_notebook(),
        "tutorials/getting-started.ipynb": getting_started_notebook(),
        "data/readme.txt": README_TEXT.encode("utf-8"),
        "data/logo.png": logo_png(),
    }


def content_type(key: str) -> str:
    """The Content-Type an admin would set on the object."""
    if key.endswith(".ipynb"):
        return NOTEBOOK_CONTENT_TYPE
    if key.endswith(".png"):
        return "image/png"
    if key.endswith(".txt"):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the bookshelf sample notebooks.")
    parser.add_argument("outdir", type=Path, help="folder to write into (created if needed)")
    args = parser.parse_args(argv)
    for key, data in build_samples().items():
        path = args.outdir / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{path} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
