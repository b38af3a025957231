"""``localsumm report``: one self-contained HTML page from a results file.

Everything that comes from the data is passed through ``html.escape``; the page
has no script, and its charts are SVG images embedded as data URIs (the systems
panel's bars, ``panel.py``, inline SVG). Results of two or more systems (a
``system`` field) get the systems panel at the top. Each item's
source is shown with its sentences marked by what points at them (evidence
offsets, checked against the record's source), and each claim and question links
to its sentence by a fragment link.
"""

from __future__ import annotations

import base64
import html
import statistics
import warnings
from pathlib import Path
from typing import Any

from ..compare.systems import Comparison, compare_tables
from ..compare.tables import Tables, read_tables
from ..errors import InputError, LocalsummWarning
from ..runs.results import ResultLine, read_results
from ..summarization.result import AlignmentVerdict, CoverageVerdict, Evidence, SourceSentence, SummarizationResult
from . import panel as systems

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
li a.ev{font-size:.85em;margin-left:.5em}
.failed{color:#a11;font-weight:600}
.supports{background:#d6f0d6} .answers{background:#d7e6fa} .unsupported{background:#f8d4d4}
.misses{background:#fbe7c6} .untouched{color:#777} pre.source span:target{outline:2px solid #333}
.legend span{padding:0 .3em;margin-right:.5em;font-size:.85em}
"""
# A source sentence's roles, strongest first: its mark is the first it has (``_roles``).
_ROLES = (
    ("supports", "supports a claim"),
    ("answers", "answers a question the summary answers"),
    ("unsupported", "closest to a claim the source does not support"),
    ("misses", "answers a question the summary misses"),
    ("untouched", "nothing the summary kept points at it"),
)


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


def _verdicts(rows: list[tuple[str, bool, float | None]], links: list[str] | None = None) -> str:
    items = []
    for i, (text, ok, p) in enumerate(rows):
        mark = "✔" if ok else "✘"
        prob = "" if p is None else f'<span class="p">p={float(p):.2f}</span>'
        link = links[i] if links else ""
        items.append(f'<li class="{"yes" if ok else "no"}">{mark} {_e(text)}{prob}{link}</li>')
    return "<ul>" + "".join(items) + "</ul>" if items else "<p class=meta>none</p>"


def _shown(evidence: list[Evidence]) -> list[Evidence]:
    """What a verdict points at: the sentences shared words found, or the one the judge found most supportive."""
    return evidence if evidence and evidence[0].ranked_by == "lexical" else evidence[:1]


def _links(item: int, evidence: list[Evidence]) -> str:
    """Links to a verdict's source sentences in the item's marked source (no script: fragment links)."""
    return "".join(
        f'<a class="ev" href="#i{item}-s{e.index}">source sentence {e.index + 1}</a>' for e in _shown(evidence)
    )


def _claims(verdicts: list[AlignmentVerdict], item: int) -> str:
    rows = [(v.claim, v.supported, v.probability) for v in verdicts]
    return _verdicts(rows, [_links(item, v.evidence) for v in verdicts])


def _questions(verdicts: list[CoverageVerdict], item: int) -> str:
    rows = [(v.question, v.answered, v.probability) for v in verdicts]
    return _verdicts(rows, [_links(item, v.evidence) for v in verdicts])


def _roles(result: SummarizationResult) -> dict[int, list[tuple[str, str]]]:
    """Each source sentence's roles (``_ROLES``) with the verdicts that give them: ("supports", "claim 2")."""
    roles: dict[int, list[tuple[str, str]]] = {
        s.index: [("untouched", "left out of the summary")] for s in result.analyze_step_result.left_out
    }
    for n, claim in enumerate(result.preprocess_step_result.alignment, 1):
        for e in _shown(claim.evidence):
            kind = "supports" if claim.supported else "unsupported"
            roles.setdefault(e.index, []).append((kind, f"{kind.replace('unsupported', 'closest to')} claim {n}"))
    for n, question in enumerate(result.analyze_step_result.coverage, 1):
        for e in _shown(question.evidence):
            kind = "answers" if question.answered else "misses"
            roles.setdefault(e.index, []).append(
                (kind, f"answers question {n}" + ("" if question.answered else " (missed)"))
            )
    return roles


def _sentences(result: SummarizationResult) -> list[SourceSentence]:
    """Every source sentence the result names (together: all of them), in source order."""
    pre, analyze = result.preprocess_step_result, result.analyze_step_result
    pointed = [e for v in pre.alignment for e in v.evidence] + [e for v in analyze.coverage for e in v.evidence]
    named: dict[int, SourceSentence] = {s.index: s for s in [*pointed, *analyze.left_out]}
    return sorted(named.values(), key=lambda s: s.start)


def _marked_source(source: str, result: SummarizationResult, item: int) -> str:
    """The source with each sentence marked by its strongest role; plain if the record's source is not the one
    the offsets were taken from (a source found by an extractor, say)."""
    sentences = _sentences(result)
    if not sentences or any(source[s.start : s.end] != s.text for s in sentences):
        return f"<pre>{_e(source)}</pre>"
    roles = _roles(result)
    parts, at = [], 0
    for s in sentences:
        mine = roles.get(s.index, [("untouched", "left out of the summary")])
        mark = next(name for name, _ in _ROLES if name in {kind for kind, _ in mine})
        title = "; ".join(text for _, text in mine)
        parts.append(f'{_e(source[at : s.start])}<span id="i{item}-s{s.index}" class="{mark}" title="{_e(title)}">')
        parts.append(f"{_e(s.text)}</span>")
        at = s.end
    legend = "".join(f'<span class="{name}">{_e(text)}</span>' for name, text in _ROLES)
    return f'<p class="legend">{legend}</p><pre class="source">{"".join(parts)}{_e(source[at:])}</pre>'


def _marked_summary(summary: str, verdicts: list[AlignmentVerdict]) -> str:
    """The summary with each unsupported claim it states word for word marked (an extracted claim is not)."""
    spans = sorted({(i, i + len(v.claim)) for v in verdicts if not v.supported and (i := summary.find(v.claim)) >= 0})
    parts, at = [], 0
    for start, end in spans:
        if start >= at:
            parts.append(f'{_e(summary[at:start])}<mark class="unsupported">{_e(summary[start:end])}</mark>')
            at = end
    return "".join(parts) + _e(summary[at:])


def _item(line: ResultLine, item: int) -> str:
    source, summary = line.texts()
    result = line.result
    body = [f"<h3>{_e(line.id or '?')}</h3>"]
    if result is None:
        body.append(f'<p class="failed">failed: {_e(line.error or "unknown error")}</p>')
    else:
        body.append(
            f'<p><span class="score">score {result.score:.2f}</span> · alignment {result.alignment_score:.2f}'
            f' · coverage {result.coverage_score:.2f}</p><p class="meta">{_e(result.reason)}</p>'
        )
    if summary:
        shown = _marked_summary(summary, result.preprocess_step_result.alignment) if result else _e(summary)
        body.append(f"<blockquote>{shown}</blockquote>")
    if source:
        left = f", {len(result.analyze_step_result.left_out)} sentences left out of the summary" if result else ""
        shown = _marked_source(source, result, item) if result else f"<pre>{_e(source)}</pre>"
        body.append(f"<details><summary>source ({len(source.split())} words{left})</summary>{shown}</details>")
    if result is None:
        return '<section class="item">' + "".join(body) + "</section>"
    body.append("<h4>Claims</h4>" + _claims(result.preprocess_step_result.alignment, item))
    body.append("<h4>Questions</h4>" + _questions(result.analyze_step_result.coverage, item))
    if result.preprocess_step_result.highlights:
        body.append(
            "<h4>Highlights the judge wrote of the source (its key facts are the last questions)</h4>"
            f"<p>{_e(' '.join(result.preprocess_step_result.highlights))}</p>"
        )
    dropped = result.preprocess_step_result.dropped_questions
    if dropped:
        body.append(
            "<h4>Questions dropped: the source does not answer them, or they ask again what another asks</h4>"
            + _verdicts(
                [
                    (v.question if v.probability is not None else f"{v.question} ({v.reason})", False, v.probability)
                    for v in dropped
                ]
            )
        )
    return '<section class="item">' + "".join(body) + "</section>"


def page(title: str, body: str) -> str:
    """One self-contained page: its style inline, nothing fetched."""
    return (
        "<!doctype html><html lang=en><head><meta "
        f"charset=utf-8><title>{_e(title)}</title><style>{_CSS}{systems.CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1>{body}</body></html>"
    )


def render(lines: list[ResultLine], title: str, panel: str = "") -> str:
    """The report of ``lines``; ``panel`` (the systems panel, or a note why there is none) after the overview."""
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
    return page(
        title,
        f"<p>{len(lines)} items: {len(scored)} scored, {unscorable} unscorable, {failed} failed.</p>"
        f'<table class="overview"><tr><th></th><th>mean</th><th>median</th></tr>{"".join(rows)}</table>'
        f'<div class="charts">{"".join(charts)}</div>{panel}'
        + "".join(_item(line, n) for n, line in enumerate(lines, 1)),
    )


def _systems_panel(results: Path, lines: list[ResultLine]) -> str:
    """The systems panel when the lines name two or more systems; a note when those cannot be compared."""
    if len({line.system for line in lines if line.system is not None}) < 2:
        return ""
    try:
        with warnings.catch_warnings():  # read again: read_results has already warned of repeated ids
            warnings.simplefilter("ignore", LocalsummWarning)
            tables = read_tables([results])
        return systems.systems_panel(compare_tables(tables), tables)
    except InputError as e:
        return f'<section class="systems" id="systems"><p class="failed">systems not compared: {_e(e)}</p></section>'


def write_report(results: Path, out: Path) -> int:
    """Render ``results`` (a localsumm eval JSONL) to ``out``; returns the number of items."""
    lines = read_results(results)
    out.write_text(render(lines, f"localsumm report: {results.name}", _systems_panel(results, lines)), encoding="utf-8")
    return len(lines)


def write_comparison(comparison: Comparison, tables: Tables, title: str, out: Path) -> None:
    """``localsumm compare --html``: a page with the systems panel alone."""
    out.write_text(page(title, systems.systems_panel(comparison, tables)), encoding="utf-8")
