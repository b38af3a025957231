"""The HTML report's systems panel: each system's means with 95% interval bars, and for each pair of systems the
sources where they differ most, with the verdicts that differ.

Markup only: the figures are ``compare.systems``', the differing verdicts ``compare.differences``'. Every text
from the data (system names, ids, questions, claims) goes through ``html.escape``; the bars are inline SVG
(rectangles and lines, no script, nothing fetched).
"""

from __future__ import annotations

import html
from typing import Any

from ..compare.differences import SourceDifference, pair_differences
from ..compare.systems import Comparison, PairRow
from ..compare.tables import Tables
from .systems import cell

DIMENSIONS = (("score", "score"), ("alignment_score", "alignment"), ("coverage_score", "coverage"))

CSS = """
section.systems table td,section.systems table th{padding:.15em .5em;text-align:right;white-space:nowrap}
section.systems table td{font-size:.85em}
section.systems table td.name,section.systems table th.name{text-align:left;white-space:normal}
svg.bar{vertical-align:middle;margin-right:.4em} .note{color:#8a5a00}
details.pair{border-top:1px solid #ddd;padding:.3em 0} details.pair summary{cursor:pointer}
.sig{color:#176117;font-weight:600} .diff h4{margin:.5em 0 .2em;font-weight:600}
"""
_BAR_WIDTH, _BAR_HEIGHT = 100, 14


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def bar(mean: float, interval: tuple[float, float] | None, top: float, label: str) -> str:
    """A bar from 0 to the mean and a whisker over the interval, on an axis from 0 to ``top``."""
    w, h = _BAR_WIDTH, _BAR_HEIGHT

    def x(v: float) -> float:
        return w * max(0.0, min(v, top)) / top

    parts = [
        f'<svg class="bar" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'role="img" aria-label="{_e(label)}"><title>{_e(label)}</title>',
        f'<rect class="track" x="0" y="3" width="{w}" height="8" fill="#eee"/>',
        f'<rect class="mean" x="0" y="3" width="{x(mean):.1f}" height="8" fill="#4a7ab5"/>',
    ]
    if interval is not None:
        low, high = x(interval[0]), x(interval[1])
        caps = "".join(f'<line x1="{v:.1f}" y1="1" x2="{v:.1f}" y2="13"/>' for v in (low, high))
        parts.append(
            f'<g class="interval" stroke="#222" stroke-width="1.5"><line x1="{low:.1f}" y1="7" x2="{high:.1f}" y2="7"/>'
            f"{caps}</g>"
        )
    return "".join(parts) + "</svg>"


def _systems_table(comparison: Comparison, top: float) -> str:
    excluded = any(row.failed or row.unscorable for row in comparison.systems)
    head = "".join(f"<th>{label}</th>" for _, label in DIMENSIONS) + "<th>words</th>"
    head += "<th>failed / unscorable</th>" if excluded else ""
    rows = []
    for rank, row in enumerate(comparison.systems, 1):
        cells = []
        for key, label in DIMENSIONS:
            mean, interval = row.means[key], row.intervals[key]
            text = cell(mean, interval)
            svg = bar(mean, interval, top if key == "score" else 1.0, f"{row.system}: {label} {text}")
            cells.append(f"<td>{svg}{text}</td>")
        cells.append(f"<td>{row.words:.0f}</td>")
        cells += [f"<td>{row.failed} / {row.unscorable}</td>"] if excluded else []
        rows.append(f'<tr><td>{rank}</td><td class="name">{_e(row.system)}</td>{"".join(cells)}</tr>')
    return f'<table><tr><th>#</th><th class="name">system</th>{head}</tr>{"".join(rows)}</table>'


def _notes(comparison: Comparison) -> str:
    notes = [comparison.no_interval] if comparison.no_interval else []
    for row in comparison.systems:
        if row.left_out:
            more = len(row.left_out) - 8
            shown = ", ".join(row.left_out[:8]) + (f" and {more} more" if more > 0 else "")
            sources = f"{len(row.left_out)} source{'s' if len(row.left_out) > 1 else ''}"
            notes.append(f"{row.system}: {sources} left out (not scored for every system): {shown}")
    notes += comparison.notes
    return "".join(f'<p class="note">{_e(note)}</p>' for note in notes)


def _source(d: SourceDifference, first: str, second: str) -> str:
    said = d.sentences(first, second)
    listed = (
        "<ul>" + "".join(f"<li>{_e(s)}</li>" for s in said) + "</ul>"
        if said
        else '<p class="meta">no verdict differs by its text: the scores differ by how many verdicts there are, '
        "or by their probabilities</p>"
    )
    head = f"{d.source}: {first} {d.first:.2f} · {second} {d.second:.2f}"
    return f'<div class="diff"><h4>{_e(head)}</h4>{listed}</div>'


def _pair(row: PairRow, tables: Tables, holm: bool, open_: bool) -> str:
    p = row.paired
    interval = "" if p.interval is None else f" [{p.interval[0]:+.2f}, {p.interval[1]:+.2f}]"
    head = (
        f"{row.first} − {row.second}: score {p.mean_difference:+.2f}{interval} · p {row.p_holm:.3g}"
        f"{' (Holm)' if holm else ''} · won/tied/lost {p.wins}/{p.ties}/{p.losses}"
    )
    mark = ' <span class="sig">significant</span>' if row.significant else ""
    found = pair_differences(tables, row.first, row.second)
    body = "".join(_source(d, row.first, row.second) for d in found) or '<p class="meta">no source differs</p>'
    return f'<details class="pair"{" open" if open_ else ""}><summary>{_e(head)}{mark}</summary>{body}</details>'


def systems_panel(comparison: Comparison, tables: Tables) -> str:
    """The panel: ranked systems with interval bars, then every pair's most differing sources (pairs of a
    comparison of more than three systems start folded)."""
    scores = [r for results in tables.results.values() for r in results]
    top = max([r.provenance.scale for r in scores] or [1.0])
    s = comparison.settings
    pairs = [row for row in comparison.pairs if row.dimension == "score"]
    many = len(comparison.systems) > 2
    return (
        '<section class="systems" id="systems"><h2>Systems</h2>'
        f"<p>{len(comparison.systems)} systems on {comparison.sources} shared sources, ranked by mean score. Bar: "
        "the mean over sources (a source's summaries averaged first); whisker: its 95% interval, sources resampled "
        f"({s.resamples} resamples, seed {s.seed}).</p>"
        + _systems_table(comparison, top)
        + _notes(comparison)
        + "<h3>Where each pair differs most</h3>"
        f"<p>First − second, paired by source; p from a paired permutation test ({s.permutations} A/B swaps per "
        f"source){', Holm-corrected over the pairs' if many else ''}. Under each pair: the sources where their "
        "scores differ most, and the verdicts that differ there.</p>"
        + "".join(_pair(row, tables, many, open_=len(pairs) <= 3) for row in pairs)
        + "</section>"
    )
