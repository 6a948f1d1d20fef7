"""Notebooks of a given size for the benchmarks, shaped like real ones.

Each has markdown, code cells with stream output, HTML tables and PNG images
(base64), the outputs that make real notebooks large. The content is
deterministic for a size, so every run measures the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
import zlib

SIZES = {"100KB": 100 * 1024, "1MB": 1024**2, "10MB": 10 * 1024**2, "50MB": 50 * 1024**2}


def _png(width: int, height: int, rng: random.Random) -> bytes:
    """A real PNG of noisy pixels (it compresses poorly, like a plot)."""
    raw = b"".join(
        b"\x00" + bytes(rng.getrandbits(8) for _ in range(width * 3)) for _ in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 1))
        + chunk(b"IEND", b"")
    )


def _cells(rng: random.Random, index: int, image: str) -> list[dict]:
    rows = "".join(
        f"<tr><td>{i}</td><td>{rng.random():.4f}</td><td>{rng.random():.4f}</td></tr>"
        for i in range(20)
    )
    return [
        {
            "cell_type": "markdown",
            "id": f"md-{index}",
            "metadata": {},
            "source": [f"## Section {index}\n", "Results of the run, with a chart.\n"],
        },
        {
            "cell_type": "code",
            "execution_count": index,
            "id": f"code-{index}",
            "metadata": {},
            "outputs": [
                {
                    "name": "stdout",
                    "output_type": "stream",
                    "text": [f"step {i}: loss={rng.random():.5f}\n" for i in range(30)],
                },
                {
                    "data": {
                        "text/html": [
                            f"<table><tr><th>i</th><th>a</th><th>b</th></tr>{rows}</table>"
                        ],
                        "text/plain": ["<table>"],
                    },
                    "execution_count": index,
                    "metadata": {},
                    "output_type": "execute_result",
                },
                {
                    "data": {"image/png": image, "text/plain": ["<Figure>"]},
                    "metadata": {},
                    "output_type": "display_data",
                },
            ],
            "source": [f"fit(model, epochs={index})\n", "plot(history)"],
        },
    ]


def make_notebook(size: int) -> bytes:
    """A notebook of about `size` bytes, serialized as Jupyter saves it."""
    rng = random.Random(size)
    image = base64.b64encode(_png(96, 96, rng)).decode()
    per_section = len(json.dumps(_cells(rng, 1, image), indent=1))
    sections = max(1, round(size / per_section))
    cells = []
    for index in range(1, sections + 1):
        cells.extend(_cells(rng, index, image))
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()


if __name__ == "__main__":
    for label, size in SIZES.items():
        print(label, len(make_notebook(size)))
