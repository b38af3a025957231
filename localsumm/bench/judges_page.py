"""``bench judges``' report as Markdown and as one self-contained HTML page (no script, nothing fetched).

Judge names, summaries, claims and questions come from the user's data and judges: the Markdown prints them
printable and without table pipes, the page escapes every one of them.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from ..reports.html import page
from ..reports.panel import bar
from .judges import LEVEL, Agreement, Cost, Disagreement, JudgesReport, PairFigure, shown
from .quality import Figure


def _n(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _interval(low: float, high: float) -> str:
    return f"[{_n(low)}, {_n(high)}]"


def _cell(text: str) -> str:
    return shown(text).replace("|", "\\|").replace("\n", " ")


def _figures_md(report: JudgesReport) -> list[str]:
    rows = ["| dataset | label | measure | judge or baseline | value | 95% CI | n | documents (constant) |"]
    rows.append("|---|---|---|---|---:|---|---:|---:|")
    for f in report.figures:
        docs = "" if f.documents is None else f"{f.documents} ({f.constant_documents})"
        rows.append(
            f"| {f.dataset} | {f.label} | {f.measure} | {_cell(f.predictor)} | {_n(f.value)} | "
            f"{_interval(f.low, f.high)} | {f.n} | {docs} |"
        )
    return rows


def _pairs_md(pairs: list[PairFigure]) -> list[str]:
    rows = ["| dataset | label | measure | second - first | difference | 95% CI | p | p (Holm) | documents |"]
    rows.append("|---|---|---|---|---:|---|---:|---:|---:|")
    for p in pairs:
        mark = " **significant**" if p.significant else ""
        rows.append(
            f"| {p.dataset} | {p.label} | {p.measure} | {_cell(p.second)} - {_cell(p.first)} "
            f"| {_n(p.difference)}{mark} | {_interval(p.low, p.high)} | {_n(p.p_value)} | {_n(p.p_holm)} "
            f"| {p.documents} |"
        )
    return rows


def _agreement_md(agreement: list[Agreement]) -> list[str]:
    rows = [
        "| dataset | judge | items | kappa claims (n) | kappa questions (n) | score Pearson | score Spearman "
        "| systems tau (systems) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for a in agreement:
        rows.append(
            f"| {a.dataset} | {_cell(a.judge)} | {a.items} | {_n(a.kappa_claims)} ({a.claims}) | "
            f"{_n(a.kappa_questions)} ({a.questions}) | {_n(a.score_pearson)} | {_n(a.score_spearman)} | "
            f"{_n(a.system_kendall)} ({a.systems}) |"
        )
    return rows


def _dollars(c: Cost) -> str:
    return "no price given" if c.dollars is None else f"${c.dollars:.4f} (${c.dollars / max(c.items, 1):.5f}/item)"


def _costs_md(costs: list[Cost]) -> list[str]:
    rows = [
        "| judge | scored | failed | s/new source (n) | s/later summary (n) | calls (cached) | tokens in | tokens out "
        "| cost |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in costs:
        rows.append(
            f"| {_cell(c.judge)} | {c.items} | {c.failed} | {_n(c.seconds_new_source, 2)} ({c.new_sources}) | "
            f"{_n(c.seconds_later_summary, 2)} ({c.later_summaries}) | {c.calls} ({c.cached_calls}) | "
            f"{c.prompt_tokens} | {c.completion_tokens} | {_dollars(c)} |"
        )
    rows += [
        f"\n**{_cell(c.judge)} stopped early**: {_cell(c.stopped)}; run the command again to resume."
        for c in costs
        if c.stopped
    ]
    rows += [f"\n{_cell(c.judge)}'s first failed item: {_cell(c.first_errors[0])}" for c in costs if c.first_errors]
    return rows


def markdown(report: JudgesReport) -> str:
    judges = ", ".join(f"{k}. {_cell(name)}" for k, name in enumerate(report.judges, 1))
    items = ", ".join(f"{d}: {n} items every judge scored" for d, n in report.datasets.items())
    lines = [f"Judges ({judges}; the first is the reference); {report.mode}; {items}.", ""]
    if report.figures:
        lines += ["## Agreement with the human labels", "", *_figures_md(report), ""]
        lines += ["## Each pair, paired by document", "", *_pairs_md(report.pairs), ""]
        lines += [
            f"Difference: the second judge's figure minus the first's on the same items. Interval: documents "
            f"resampled. p: the judges' values swapped on random halves of the documents; Holm over the pairs of "
            f"each figure; significant below {LEVEL}.",
            "",
        ]
    lines += ["## Each judge against the reference", "", *_agreement_md(report.agreement), ""]
    lines += [
        "Kappa: each judge's verdicts on the reference's own claims and questions. Systems tau: the two judges' "
        "rankings of the systems by mean score.",
        "",
        "## Cost",
        "",
        *_costs_md(report.costs),
        "",
    ]
    return "\n".join(lines)


# -- the page --------------------------------------------------------------------------

_CSS = """
table.j td,table.j th{padding:.15em .5em;text-align:right;white-space:nowrap;font-size:.9em}
table.j td.name,table.j th.name{text-align:left;white-space:normal}
tr.baseline td{color:#666} .sig{color:#176117;font-weight:600} .stopped{color:#a11;font-weight:600}
.apart{border-top:1px solid #ddd;padding:.4em 0} .apart .both{display:flex;gap:1em}
.apart .both div{flex:1;background:#f6f6f6;padding:.3em .6em} .yes{color:#176117} .no{color:#a11}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _table(names: str, figures: str, rows: list[str]) -> str:
    """A table whose first columns (``names``) hold text and the others (``figures``) numbers; each split on "|"."""
    head = "".join(f'<th class="name">{n}</th>' for n in names.split("|"))
    head += "".join(f"<th>{f}</th>" for f in figures.split("|"))
    return f'<table class="j"><tr>{head}</tr>{"".join(rows)}</table>'


def _figure_rows(figures: list[Figure]) -> str:
    rows = []
    for f in figures:
        label = f"{f.predictor}: {f.measure} {_n(f.value)} {_interval(f.low, f.high)}"
        svg = bar(0.0 if math.isnan(f.value) else f.value, None if math.isnan(f.low) else (f.low, f.high), 1.0, label)
        kind = ' class="baseline"' if f.predictor.startswith("baseline:") else ""
        docs = "" if f.documents is None else f"{f.documents} ({f.constant_documents})"
        rows.append(
            f'<tr{kind}><td class="name">{_e(f.dataset)} · {_e(f.label)} · {_e(f.measure)}</td>'
            f'<td class="name">{_e(f.predictor)}</td><td>{svg}{_n(f.value)} {_interval(f.low, f.high)}</td>'
            f"<td>{f.n}</td><td>{docs}</td></tr>"
        )
    return _table("figure|judge or baseline", "value [95% CI]|n|documents (constant)", rows)


def _pair_rows(pairs: list[PairFigure]) -> str:
    rows = []
    for p in pairs:
        verdict = '<span class="sig">significant</span>' if p.significant else "not significant"
        rows.append(
            f'<tr><td class="name">{_e(p.dataset)} · {_e(p.label)} · {_e(p.measure)}</td>'
            f'<td class="name">{_e(p.second)} − {_e(p.first)}</td>'
            f"<td>{_n(p.difference)} {_interval(p.low, p.high)}</td>"
            f"<td>{_n(p.p_value)}</td><td>{_n(p.p_holm)}</td><td>{verdict}</td><td>{p.documents}</td></tr>"
        )
    return _table("figure|pair", "difference [95% CI]|p|p (Holm)||documents", rows)


def _agreement_rows(agreement: list[Agreement]) -> str:
    rows = [
        f'<tr><td class="name">{_e(a.dataset)}</td><td class="name">{_e(a.judge)}</td><td>{a.items}</td>'
        f"<td>{_n(a.kappa_claims)} ({a.claims})</td><td>{_n(a.kappa_questions)} ({a.questions})</td>"
        f"<td>{_n(a.score_pearson)}</td><td>{_n(a.system_kendall)} ({a.systems})</td></tr>"
        for a in agreement
    ]
    return _table("dataset|judge", "items|kappa claims|kappa questions|score r|systems tau", rows)


def _cost_rows(costs: list[Cost]) -> str:
    rows = []
    for c in costs:
        stopped = f'<br><span class="stopped">stopped: {_e(c.stopped)}</span>' if c.stopped else ""
        rows.append(
            f'<tr><td class="name">{_e(c.judge)}{stopped}</td><td>{c.items}</td><td>{c.failed}</td>'
            f"<td>{_n(c.seconds_new_source, 2)}</td><td>{_n(c.seconds_later_summary, 2)}</td>"
            f"<td>{c.calls} ({c.cached_calls})</td><td>{c.prompt_tokens}</td><td>{c.completion_tokens}</td>"
            f"<td>{_e(_dollars(c))}</td></tr>"
        )
    return _table("judge", "scored|failed|s/new source|s/later summary|calls (cached)|tokens in|tokens out|cost", rows)


def _verdict(value: bool) -> str:
    return '<span class="yes">yes</span>' if value else '<span class="no">no</span>'


def _apart(d: Disagreement, reference: str) -> str:
    rows = "".join(
        f"<li>{_e(kind)}: {_e(text)}: {_e(reference)} {_verdict(a)}, {_e(d.judge)} {_verdict(b)}</li>"
        for kind, text, a, b in d.verdicts
    )
    return (
        f'<div class="apart"><p><b>{_e(d.dataset)} · {_e(d.id)}</b></p><blockquote>{_e(shown(d.summary, 600))}'
        f'</blockquote><div class="both"><div>{_e(reference)}: score {d.scores[0]:.2f}</div>'
        f"<div>{_e(d.judge)}: score {d.scores[1]:.2f}</div></div><ul>{rows}</ul></div>"
    )


def html_page(report: JudgesReport) -> str:
    reference = report.judges[0]
    intro = (
        f"<p>Judges: {', '.join(_e(j) for j in report.judges)} (the first is the reference); {_e(report.mode)}; "
        + ", ".join(f"{_e(d)}: {n} items every judge scored" for d, n in report.datasets.items())
        + ".</p>"
    )
    body = [intro]
    if report.figures:
        body += ["<h2>Agreement with the human labels</h2>", _figure_rows(report.figures)]
        body += ["<h2>Each pair, paired by document</h2>", _pair_rows(report.pairs)]
    body += ["<h2>Each judge against the reference</h2>", _agreement_rows(report.agreement)]
    body += ["<h2>Cost</h2>", _cost_rows(report.costs)]
    body += ["<h2>Where the judges disagree most</h2>", *(_apart(d, reference) for d in report.disagreements)]
    return page("localsumm bench judges", "".join(body)).replace("</style>", _CSS + "</style>", 1)


def write_report(report: JudgesReport, out_dir: Path) -> list[Path]:
    """report.md, report.json and report.html in ``out_dir``."""
    written = [out_dir / "report.md", out_dir / "report.json", out_dir / "report.html"]
    written[0].write_text(markdown(report), encoding="utf-8")
    written[1].write_text(report.to_json(), encoding="utf-8")
    written[2].write_text(html_page(report), encoding="utf-8")
    return written
