"""A self-contained HTML report: charts embedded, tables, the config and provenance.

>>> from sim.present.report import Section, write_report
>>> write_report(
...     "Knock threshold sweep",
...     [Section("Knock threshold", text="...", figures=[fig], tables=[("Per setting", frame)])],
...     config={"rules": "gin", "deals": 2000},
...     provenance={"version": "0.1.0", "seed": 11},
...     path="runs/sweep/report.html",
... )

The page has no external assets: charts are embedded as base64 PNG (``data:`` URIs),
the style sheet is inline, and nothing is fetched when it is opened, so the single file
can be mailed to someone. It is written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import base64
import contextlib
import datetime as _dt
import html
import io
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from sim import store
from sim.store import PathInput, StorePath

__all__ = ["Section", "render_report", "write_report"]

FigureLike = Figure | str | os.PathLike | bytes
TableLike = pl.DataFrame | Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]]

MAX_TABLE_ROWS = 500


@dataclass(frozen=True)
class Section:
    """One part of the report.

    ``text``: plain text (paragraphs split on blank lines; HTML is escaped).
    ``figures``: matplotlib figures, PNG/SVG file paths, or PNG bytes; a
    ``(caption, figure)`` pair adds a caption. ``tables``: polars frames (or rows as
    dicts), optionally ``(caption, table)``. ``notes``: short lines shown as a list
    (methods, verdicts).
    """

    heading: str
    text: str = ""
    figures: Sequence[FigureLike | tuple[str, FigureLike]] = field(default_factory=tuple)
    tables: Sequence[TableLike | tuple[str, TableLike]] = field(default_factory=tuple)
    notes: Sequence[str] = field(default_factory=tuple)


_CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-alt: #f6f8fa;
  --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 60px; }
h1 { font-size: 1.7em; margin: 0.2em 0 0.1em; }
h2 { font-size: 1.3em; margin: 1.8em 0 0.5em; padding-bottom: 0.25em;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
.subtitle { color: var(--muted); margin: 0 0 1em; }
nav { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px;
  padding: 8px 14px; }
nav ol { margin: 0.3em 0; padding-left: 1.4em; }
a { color: var(--accent); text-decoration: none; }
figure { margin: 1em 0; text-align: center; }
figure img, figure svg { max-width: 100%; height: auto; border: 1px solid var(--line);
  border-radius: 4px; }
figcaption { color: var(--muted); font-size: 0.9em; margin-top: 0.3em; }
.table-wrap { overflow-x: auto; margin: 0.6em 0 1.2em; }
table { border-collapse: collapse; font-size: 0.88em; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; }
th { background: var(--bg-alt); text-align: left; }
td.num { text-align: right; white-space: nowrap; }
section:first-of-type ul.notes { font-size: 1.1em; line-height: 1.45; }
section:first-of-type ul.notes li { margin: 0.35em 0; }
tr:nth-child(even) td { background: #fbfcfd; }
pre { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 12px; overflow-x: auto; font-size: 0.85em; line-height: 1.4; }
ul.notes { padding-left: 1.3em; }
p, li { overflow-wrap: anywhere; }  /* a seat spec is one long word */
.muted { color: var(--muted); font-size: 0.88em; }
footer { margin-top: 3em; color: var(--muted); font-size: 0.85em;
  border-top: 1px solid var(--line); padding-top: 0.6em; }
@media print { main { max-width: none; } nav { display: none; } }
""".strip()


# --- pieces ------------------------------------------------------------------------------


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _slug(text: str, used: set[str]) -> str:
    base = "".join(ch.lower() if ch.isalnum() else "-" for ch in text).strip("-") or "section"
    while "--" in base:
        base = base.replace("--", "-")
    slug, i = base, 2
    while slug in used:
        slug, i = f"{base}-{i}", i + 1
    used.add(slug)
    return slug


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in text.strip().split("\n\n") if b.strip()]
    return "\n".join(f"<p>{_esc(b)}</p>".replace("\n", "<br>") for b in blocks)


# A chart's size on the page: 110 CSS pixels an inch of figure, whether the report draws
# it (at that dpi) or embeds a PNG file drawn at another (shown at the size its pHYs says).
PAGE_DPI = 110


def _png_bytes(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=PAGE_DPI, facecolor="white")
    return buffer.getvalue()


def _page_width(png: bytes) -> int | None:
    """The width in CSS pixels a PNG of ``PAGE_DPI`` would have: its pixels scaled by
    its pHYs chunk's dpi (None without one, or with no unit: shown at its own size)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width = int.from_bytes(png[16:20], "big")  # IHDR, the first chunk
    at = 8
    while at + 17 <= len(png):  # chunks: length, type, data, CRC; pHYs before the pixels
        length, kind = int.from_bytes(png[at : at + 4], "big"), png[at + 4 : at + 8]
        if kind == b"IDAT":
            return None
        if kind == b"pHYs":
            per_metre, unit = int.from_bytes(png[at + 8 : at + 12], "big"), png[at + 16]
            if unit != 1 or per_metre == 0:
                return None
            return round(width * PAGE_DPI / (per_metre * 0.0254))
        at += 12 + length
    return None


def _figure_html(item: FigureLike | tuple[str, FigureLike], index: int) -> str:
    caption = ""
    if isinstance(item, tuple):
        caption, item = item
    alt = caption or f"chart {index}"
    if isinstance(item, (str, os.PathLike)) and not caption:
        alt = store.location(item).stem.replace("_", " ")
    if isinstance(item, Figure):
        body = _img(_png_bytes(item), "image/png", alt)
    elif isinstance(item, bytes):
        body = _img(item, "image/png", alt)
    else:
        path = store.location(item)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            body = _inline_svg(path.read_text(encoding="utf-8"))
        elif suffix == ".png":
            body = _img(path.read_bytes(), "image/png", alt)
        else:
            raise ValueError(f"cannot embed {path}: only .png and .svg files")
    cap = f"<figcaption>{_esc(caption)}</figcaption>" if caption else ""
    return f"<figure>{body}{cap}</figure>"


def _img(data: bytes, mime: str, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    width = _page_width(data)
    size = f' width="{width}"' if width else ""
    return f'<img alt="{_esc(alt)}"{size} src="data:{mime};base64,{encoded}">'


def _inline_svg(svg: str) -> str:
    """An SVG file's ``<svg>`` element (the XML prologue and DOCTYPE dropped: a DOCTYPE
    names an external DTD, and inline SVG in HTML needs neither)."""
    start = svg.find("<svg")
    if start < 0:
        raise ValueError("not an SVG document")
    return svg[start:]


def _format_cell(value: Any) -> tuple[str, bool]:
    """Cell text, and whether it is a number (right-aligned)."""
    if value is None:
        return "", False
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, int):
        return f"{value:,}".replace(",", "\u2009"), True
    if isinstance(value, float):
        if math.isnan(value):
            return "–", True
        if math.isinf(value):
            return ("∞" if value > 0 else "−∞"), True
        a = abs(value)
        if a == 0:
            return "0", True
        if a >= 1e6 or a < 1e-4:
            return f"{value:.3g}", True
        if a >= 100:
            return f"{value:,.1f}".replace(",", "\u2009"), True
        return f"{value:.4g}" if a < 1 else f"{value:.3f}", True
    text = str(value)
    return text, bool(_NUMBER_TEXT.match(text))


_NUMBER_TEXT = re.compile(r"^([+\-]?\d|< \d|best$)")  # preformatted numbers: right-aligned


def _as_frame(table: TableLike) -> pl.DataFrame:
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    if isinstance(table, Mapping):
        return pl.DataFrame(dict(table))
    return pl.DataFrame(list(table))


def _table_html(item: TableLike | tuple[str, TableLike]) -> str:
    caption = ""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        caption, item = item
    df = _as_frame(item)
    shown = df.head(MAX_TABLE_ROWS)
    head = "".join(f"<th>{_esc(c)}</th>" for c in shown.columns)
    rows = []
    for row in shown.iter_rows():
        cells = []
        for value in row:
            text, numeric = _format_cell(value)
            cells.append(
                f'<td class="num">{_esc(text)}</td>' if numeric else f"<td>{_esc(text)}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{_esc(caption)}</caption>" if caption else ""
    more = (
        f'<p class="muted">first {MAX_TABLE_ROWS} of {df.height} rows</p>'
        if df.height > MAX_TABLE_ROWS
        else ""
    )
    return (
        f'<div class="table-wrap"><table>{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{more}"
    )


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "item"):  # numpy scalars
        with contextlib.suppress(Exception):
            return value.item()
    if hasattr(value, "tolist"):
        with contextlib.suppress(Exception):
            return value.tolist()
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(value)
    if hasattr(value, "_asdict"):
        return value._asdict()
    return str(value)


def _pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, default=_json_default, ensure_ascii=False)


def _as_section(item: Section | Mapping[str, Any]) -> Section:
    if isinstance(item, Section):
        return item
    return Section(**dict(item))


# --- the page ---------------------------------------------------------------------------


def render_report(
    title: str,
    sections: Iterable[Section | Mapping[str, Any]],
    config: Any,
    provenance: Any,
    subtitle: str | None = None,
) -> str:
    """The report's HTML text (see :func:`write_report`)."""
    used: set[str] = set()
    parts, toc = [], []
    figure_no = 0
    for section in map(_as_section, sections):
        slug = _slug(section.heading, used)
        toc.append(f'<li><a href="#{slug}">{_esc(section.heading)}</a></li>')
        body = [f'<section id="{slug}"><h2>{_esc(section.heading)}</h2>']
        if section.text:
            body.append(_paragraphs(section.text))
        if section.notes:
            body.append(
                '<ul class="notes">'
                + "".join(f"<li>{_esc(n)}</li>" for n in section.notes)
                + "</ul>"
            )
        for fig in section.figures:
            figure_no += 1
            body.append(_figure_html(fig, figure_no))
        for table in section.tables:
            body.append(_table_html(table))
        body.append("</section>")
        parts.append("\n".join(body))
    for heading, value in (("Configuration", config), ("Provenance", provenance)):
        slug = _slug(heading, used)
        toc.append(f'<li><a href="#{slug}">{heading}</a></li>')
        pretty = _esc(_pretty_json(value))
        parts.append(f'<section id="{slug}"><h2>{heading}</h2><pre>{pretty}</pre></section>')
    generated = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sub = f'<p class="subtitle">{_esc(subtitle)}</p>' if subtitle else ""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_esc(title)}</title>",
            f"<style>\n{_CSS}\n</style>",
            "</head>",
            "<body><main>",
            f"<h1>{_esc(title)}</h1>",
            sub,
            f"<nav><strong>Contents</strong><ol>{''.join(toc)}</ol></nav>",
            *parts,
            f"<footer>Generated {generated} by rummy-sim. Numbers are written estimate "
            "[95% interval]: two-sided confidence intervals, their methods named in the "
            "text.</footer>",
            "</main></body>",
            "</html>",
            "",
        ]
    )


def write_report(
    title: str,
    sections: Iterable[Section | Mapping[str, Any]],
    config: Any,
    provenance: Any,
    path: PathInput,
    subtitle: str | None = None,
) -> StorePath:
    """Write the self-contained HTML report to ``path`` (atomically) and return it.

    ``sections``: :class:`Section` objects (or dicts of their fields). ``config`` and
    ``provenance``: anything JSON-like (dataclasses, numpy values and paths are
    converted), shown as pretty JSON at the end of the page.
    """
    text = render_report(title, sections, config, provenance, subtitle)
    target = store.location(path)
    store.make_dir(target.parent, "report folder")
    store.write_text_atomic(target, text)
    return target
