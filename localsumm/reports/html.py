"""``localsumm report``: one self-contained HTML page from a results file.

Everything that comes from the data is passed through ``html.escape``; the page
has no script, and its charts are SVG images embedded as data URIs.
"""

from __future__ import annotations

import base64
import html
import statistics
from pathlib import Path
from typing import Any

from ..runs.results import ResultLine, read_results
from ..summarization.result import AlignmentVerdict, CoverageVerdict

DIMENSIONS = (("score", "score"), ("alignment_score", "alignment"), ("coverage_score", "coverage"))

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1000px;padding:0 1em;color:#222}
h1{font-size:1.5em} .charts{display:flex;gap:1em;flex-wrap:wrap}
table.overview td,table.overview th{padding:.2em .8em;text-align:right}
section.item{border-top:1px solid #ccc;padding:.6em 0}
.meta{color:#555} .score{font-weight:600}
blockquote{margin:.4em 0;padding:.4em .8em;background:#f6f6f6;white-space:pre-wrap}
details pre{white-space:pre-wrap;background:#fafafa;padding:.5em}
li.yes{color:#176117} li.no{color:#a11}
li .p{color:#777;font-size:.85em;margin-left:.5em}
.failed{color:#a11;font-weight:600}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _histogram_svg(values: list[float], label: str, top: float = 1.0, bins: int = 10) -> str:
    """A bar chart as an <img> with an SVG data URI (no external file, no script)."""
    counts = [0] * bins
    for v in values:
        counts[min(int(v / top * bins), bins - 1)] += 1
    w, h, pad = 300, 160, 24
    peak = max(counts) or 1
    bar = (w - 2 * pad) / bins
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="10">'
    ]
    parts.append(f'<text x="{pad}" y="12" font-size="12">{_e(label)} (n={len(values)})</text>')
    for i, n in enumerate(counts):
        bh = (h - 2 * pad - 10) * n / peak
        x, y = pad + i * bar, h - pad - bh
        parts.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{bh:.1f}" fill="#4a7ab5"/>')
        if n:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{y - 2:.1f}" text-anchor="middle">{n}</text>')
    for i in range(0, bins + 1, 2):
        parts.append(f'<text x="{pad + i * bar:.1f}" y="{h - pad + 12}" text-anchor="middle">{top * i / bins:g}</text>')
    parts.append(f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#333"/></svg>')
    data = base64.b64encode("".join(parts).encode("utf-8")).decode("ascii")
    return f'<img alt="{_e(label)} histogram" src="data:image/svg+xml;base64,{data}">'


def _verdicts(rows: list[tuple[str, bool, float | None]]) -> str:
    items = []
    for text, ok, p in rows:
        mark = "✔" if ok else "✘"
        prob = "" if p is None else f'<span class="p">p={float(p):.2f}</span>'
        items.append(f'<li class="{"yes" if ok else "no"}">{mark} {_e(text)}{prob}</li>')
    return "<ul>" + "".join(items) + "</ul>" if items else "<p class=meta>none</p>"


def _claims(verdicts: list[AlignmentVerdict]) -> str:
    return _verdicts([(v.claim, v.supported, v.probability) for v in verdicts])


def _questions(verdicts: list[CoverageVerdict]) -> str:
    return _verdicts([(v.question, v.answered, v.probability) for v in verdicts])


def _item(line: ResultLine) -> str:
    source, summary = line.texts()
    head = f"<h3>{_e(line.id or '?')}</h3>"
    body = [head]
    if summary:
        body.append(f"<blockquote>{_e(summary)}</blockquote>")
    if source:
        body.append(
            f"<details><summary>source ({len(source.split())} words)</summary><pre>{_e(source)}</pre></details>"
        )
    result = line.result
    if result is None:
        body.insert(1, f'<p class="failed">failed: {_e(line.error or "unknown error")}</p>')
        return '<section class="item">' + "".join(body) + "</section>"
    body.insert(
        1,
        (
            f'<p><span class="score">score {_e(result.score)}</span> · alignment {result.alignment_score:.2f}'
            f' · coverage {result.coverage_score:.2f}</p><p class="meta">{_e(result.reason)}</p>'
        ),
    )
    body.append("<h4>Claims</h4>" + _claims(result.preprocess_step_result.alignment))
    body.append("<h4>Questions</h4>" + _questions(result.analyze_step_result.coverage))
    if result.preprocess_step_result.highlights:
        body.append(
            "<h4>Highlights the judge wrote of the source (its key facts are the last questions)</h4>"
            f"<p>{_e(' '.join(result.preprocess_step_result.highlights))}</p>"
        )
    dropped = result.preprocess_step_result.dropped_questions
    if dropped:
        body.append(
            "<h4>Questions dropped: the source does not answer them</h4>"
            + _verdicts([(v.question, False, v.probability) for v in dropped])
        )
    return '<section class="item">' + "".join(body) + "</section>"


def render(lines: list[ResultLine], title: str) -> str:
    scored = [line.result for line in lines if line.result is not None]
    scale = max([r.provenance.scale for r in scored] or [1.0])
    rows, charts = [], []
    for key, label in DIMENSIONS:
        values = [float(getattr(r, key)) for r in scored]
        if values:
            rows.append(
                f"<tr><th>{label}</th><td>{statistics.fmean(values):.3f}</td><td>{statistics.median(values):.3f}</td></tr>"
            )
            charts.append(_histogram_svg(values, label, top=scale if key == "score" else 1.0))
    failed = len(lines) - len(scored)
    unscorable = sum(1 for r in scored if not r.scorable)
    return (
        "<!doctype html><html lang=en><head><meta "
        f"charset=utf-8><title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        f"<p>{len(lines)} items: {len(scored)} scored, {unscorable} unscorable, {failed} failed.</p>"
        f'<table class="overview"><tr><th></th><th>mean</th><th>median</th></tr>{"".join(rows)}</table>'
        f'<div class="charts">{"".join(charts)}</div>' + "".join(_item(line) for line in lines) + "</body></html>"
    )


def write_report(results: Path, out: Path) -> int:
    """Render ``results`` (a localsumm eval JSONL) to ``out``; returns the number of items."""
    lines = read_results(results)
    out.write_text(render(lines, f"localsumm report: {results.name}"), encoding="utf-8")
    return len(lines)
