"""Human-readable rendering for the terminal: a result, a run's progress, and the tables runs end with.

Every piece of text from the user's data is printed as a ``rich.text.Text``,
never parsed as markup, with control characters made visible, so a summary
containing ``[red]`` or an ANSI escape sequence shows as itself.
"""

from __future__ import annotations

import statistics

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from ..runs.evaluate import EvalSummary
from ..runs.questions import QuestionsSummary
from ..summarization.result import Evidence, SummarizationResult
from ..text import printable, shorten

# How much of a source sentence a line shows, and how many left-out sentences follow the coverage table.
_EVIDENCE_CHARS = 100
_LEFT_OUT_SHOWN = 5


def _mark(ok: bool) -> Text:
    return Text("yes", style="green") if ok else Text("no", style="bold red")


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


Row = tuple[str, bool, float | None, str]
"""A verdict as a table shows it: its text, its mark, its probability, and a line under the text ("" for none)."""


def _verdicts(console: Console, title: str, columns: tuple[str, str], rows: list[Row]) -> None:
    if not rows:
        return
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column(columns[0])
    table.add_column(columns[1])
    table.add_column("p", justify="right")
    for i, (text, ok, p, under) in enumerate(rows, 1):
        cell = Text(printable(text))
        if under:
            cell.append("\n" + printable(under), style="dim")
        table.add_row(str(i), cell, _mark(ok), _p(p))
    console.print(table)


def _evidence_lines(evidence: list[Evidence]) -> str:
    """The sentences a claim stands on, shortened: those shared words found, or the one the judge found most
    supportive, with its probability."""
    shown = evidence if evidence and evidence[0].ranked_by == "lexical" else evidence[:1]
    lines = []
    for e in shown:
        judged = f" (p {e.probability:.2f} alone)" if e.probability is not None else ""
        lines.append(f'↳ source sentence {e.index + 1}{judged}: "{shorten(e.text, _EVIDENCE_CHARS)}"')
    return "\n".join(lines)


def _left_out(console: Console, result: SummarizationResult) -> None:
    """The source sentences nothing the summary kept points at, the first few of them shortened."""
    left = result.analyze_step_result.left_out
    if not left:
        return
    console.print(
        Text(
            f"Left out of the summary: {len(left)} source sentence{'s' if len(left) > 1 else ''} that no answered "
            "question, key fact or supported claim points at"
        )
    )
    for sentence in left[:_LEFT_OUT_SHOWN]:
        shown = shorten(sentence.text, _EVIDENCE_CHARS)
        console.print(Text(f"  {sentence.index + 1}. " + printable(shown), style="dim"))
    if len(left) > _LEFT_OUT_SHOWN:
        console.print(Text(f"  ... and {len(left) - _LEFT_OUT_SHOWN} more (--json lists them all)", style="dim"))


def print_result(result: SummarizationResult, console: Console | None = None) -> None:
    console = console or Console()
    scale = result.provenance.scale
    header = Text.assemble(
        ("score ", "bold"),
        (f"{result.score:.2f}", "bold cyan"),
        (f" / {scale:g}   " if scale != 1 else "   ", ""),
        (f"alignment {result.alignment_score:.2f}   coverage {result.coverage_score:.2f}", ""),
    )
    console.print(header)
    console.print(Text(printable(result.reason)))
    pre = result.preprocess_step_result

    _verdicts(
        console,
        "Claims (alignment: judged against the source)",
        ("claim", "supported"),
        [(v.claim, v.supported, v.probability, _evidence_lines(v.evidence)) for v in pre.alignment],
    )
    _verdicts(
        console,
        "Questions (coverage: answered from the summary alone)",
        ("question", "answered"),
        [(v.question, v.answered, v.probability, "") for v in result.analyze_step_result.coverage],
    )
    _left_out(console, result)
    _verdicts(
        console,
        'Questions dropped (the source itself does not answer them "yes", or they ask again what another asks)',
        ("question", "asked"),
        [(v.question, False, v.probability, v.reason if v.probability is None else "") for v in pre.dropped_questions],
    )

    if result.preprocess_step_result.highlights:
        console.print(
            Text(
                "Highlights the judge wrote of the source (its key facts are the last questions): "
                + printable(" ".join(result.preprocess_step_result.highlights))
            )
        )
    prov = result.provenance
    console.print(
        Text(
            f"judge {printable(prov.model)} · prompts {prov.prompt_version} · seed {prov.seed} · "
            f"{result.seconds:.1f} s in {sum(s.calls for s in prov.steps)} model calls",
            style="dim",
        )
    )


class ProgressBar:
    """``runs.progress.Progress`` drawn on the terminal: a bar with the count, the time, the eta and the rate;
    skipped and failed items printed above it as they happen."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def start(self, label: str, total: int) -> None:
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[rate]}"),
            console=self.console,
        )
        self._bar.start()
        self._task = self._bar.add_task(label, total=total, rate="")

    def note(self, kind: str, message: str) -> None:
        style = "yellow" if kind == "skipped" else "red"
        # One line per item, never wrapped: a log of a run is read with grep, and a path cut in two is not found.
        self.console.print(Text.assemble((kind, style), f": {printable(message)}"), highlight=False, soft_wrap=True)

    def advance(self, rate: str = "") -> None:
        if self._bar is not None and self._task is not None:
            if rate:
                self._bar.update(self._task, advance=1, rate=rate)
            else:
                self._bar.advance(self._task)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _histogram(values: list[float]) -> str:
    """Counts in five equal bins from 0 to the top of the scale (1, or the --scale in use)."""
    top = max(1.0, *values)
    bins = [0] * 5
    for v in values:
        bins[min(int(v / top * 5), 4)] += 1
    return " ".join(f"{i * top / 5:g}-{(i + 1) * top / 5:g}:{n}" for i, n in enumerate(bins))


def print_eval_summary(summary: EvalSummary, console: Console | None = None) -> None:
    """The table ``localsumm eval`` ends with: each dimension's mean, median and distribution."""
    console = console or Console(stderr=True)
    table = Table(title=f"{summary.out}: {summary.items} items, {summary.scored} scored")
    for column in ("", "mean", "median", "distribution"):
        table.add_column(column)
    for dim, values in summary.dimensions.items():
        if values:
            table.add_row(
                dim, f"{statistics.fmean(values):.3f}", f"{statistics.median(values):.3f}", _histogram(values)
            )
    console.print(table)
    console.print(f"unscorable (score 0, nothing to judge): {summary.unscorable}   failed: {summary.failed}")


def print_questions_summary(summary: QuestionsSummary, console: Console | None = None) -> None:
    console = console or Console(stderr=True)
    console.print(
        f"{summary.out}: {summary.written} question sets written, {summary.kept} already there, "
        f"{summary.failed} failed ({summary.sources} distinct sources)",
        soft_wrap=True,
    )
