"""sim/report.py: one self-contained HTML file with charts, tables, config, provenance."""

from __future__ import annotations

import base64
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from sim.present import charts
from sim.present.report import Section, render_report, write_report


def _figure() -> Figure:
    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.plot([0, 1, 2], [1, 0, 2])
    ax.set_xlabel("knock threshold (deadwood)")
    ax.set_ylabel("points per hand")
    return fig


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _report(tmp_path: Path) -> tuple[Path, str]:
    table = pl.DataFrame(
        {
            "setting": ["k=4", "k=10"],
            "mean": [1.25, -0.5],
            "low": [0.5, -1.2],
            "n": [2000, 2000],
            "best": [True, False],
        }
    )
    svg_path = charts.save(_figure(), tmp_path / "chart")[1]
    sections = [
        Section(
            "Knock threshold",
            text="Greedy against simple.\n\nSecond paragraph with <b>markup</b> & symbols.",
            figures=[("The curve", _figure()), svg_path],
            tables=[("Per setting", table)],
            notes=["best: k=4; significantly better than k=10 (Holm)"],
        ),
        {"heading": "Rows as dicts", "tables": [[{"a": 1, "b": 2.5}, {"a": 2, "b": float("nan")}]]},
    ]
    config = {
        "rules": "gin",
        "deals": 2000,
        "lineup": ["greedy", "simple"],
        "knock_at": np.arange(3),
    }
    provenance = {"version": "0.1.0", "seed": np.uint64(11), "path": Path("/runs/x")}
    path = write_report(
        "Sweep <report>", sections, config, provenance, tmp_path / "out" / "report.html"
    )
    return path, path.read_text(encoding="utf-8")


def test_report_embeds_images_tables_and_config(tmp_path):
    path, html = _report(tmp_path)
    assert path.name == "report.html" and os.listdir(path.parent) == ["report.html"]  # no temp left
    assert html.startswith("<!DOCTYPE html>")
    parser = _Collector()
    parser.feed(html)
    imgs = [a for t, a in parser.tags if t == "img"]
    assert len(imgs) == 1
    src = imgs[0]["src"]
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert sum(t == "svg" for t, _ in parser.tags) == 1  # the SVG file inlined
    assert sum(t == "table" for t, _ in parser.tags) == 2
    assert "<caption>Per setting</caption>" in html and "<th>setting</th>" in html
    assert "<figcaption>The curve</figcaption>" in html
    # text is escaped, numbers formatted, NaN shown as a dash
    assert "&lt;b&gt;markup&lt;/b&gt; &amp; symbols" in html and "<b>markup</b>" not in html
    assert "<title>Sweep &lt;report&gt;</title>" in html
    assert ">1.250<" in html and ">–<" in html and ">yes<" in html
    # config and provenance as pretty JSON
    pres = re.findall(r"<pre>(.*?)</pre>", html, flags=re.S)
    import html as htmllib

    config = json.loads(htmllib.unescape(pres[0]))
    provenance = json.loads(htmllib.unescape(pres[1]))
    assert config == {
        "rules": "gin",
        "deals": 2000,
        "lineup": ["greedy", "simple"],
        "knock_at": [0, 1, 2],
    }
    assert provenance == {"version": "0.1.0", "seed": 11, "path": "/runs/x"}
    assert 'href="#configuration"' in html and 'href="#provenance"' in html


def _imgs(html: str) -> list[dict[str, str | None]]:
    parser = _Collector()
    parser.feed(html)
    return [attrs for tag, attrs in parser.tags if tag == "img"]


def test_a_saved_png_shows_at_the_size_the_report_draws_a_figure(tmp_path):
    """A chart file (drawn at 150 dpi) is embedded as it is, at the width the report
    gives a figure it draws itself (110 px an inch): 3 inches, 330 px, either way. A PNG
    that does not say its dpi shows at its own size."""
    png = charts.save(_figure(), tmp_path / "chart")[0]
    drawn, saved = _imgs(render_report("t", [Section("s", figures=[_figure(), png])], {}, {}))
    assert drawn["width"] == saved["width"] == "330"
    assert base64.b64decode(str(saved["src"]).split(",", 1)[1]) == png.read_bytes()
    unsaid = png.read_bytes().replace(b"pHYs", b"tEXt", 1)
    [shown] = _imgs(render_report("t", [Section("s", figures=[unsaid])], {}, {}))
    assert "width" not in shown


def test_report_has_no_external_assets(tmp_path):
    _, html = _report(tmp_path)
    parser = _Collector()
    parser.feed(html)
    for tag, attrs in parser.tags:
        for name in ("src", "href"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith(("data:", "#")), (tag, name, value)
        assert tag not in ("link", "script", "iframe")
    assert "@import" not in html
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", html)  # url(#clip) in SVG is local
    assert "<!DOCTYPE svg" not in html  # the inlined SVG's external DTD is dropped


def test_render_report_is_deterministic_apart_from_timestamp():
    a = render_report("t", [Section("s", text="x")], {"a": 1}, {"b": 2})
    b = render_report("t", [Section("s", text="x")], {"a": 1}, {"b": 2})
    strip = re.compile(r"Generated .*? by")
    assert strip.sub("", a) == strip.sub("", b)
