"""Human-readable rendering of a result for the terminal.

Every piece of text from the user's data is printed as a ``rich.text.Text``,
never parsed as markup, with control characters made visible, so a summary
containing ``[red]`` or an ANSI escape sequence shows as itself.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..summarization.result import SummarizationResult
from ..text import printable


def _mark(ok: bool) -> Text:
    return Text("yes", style="green") if ok else Text("no", style="bold red")


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _verdicts(
    console: Console, title: str, columns: tuple[str, str], rows: list[tuple[str, bool, float | None]]
) -> None:
    if not rows:
        return
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column(columns[0])
    table.add_column(columns[1])
    table.add_column("p", justify="right")
    for i, (text, ok, p) in enumerate(rows, 1):
        table.add_row(str(i), Text(printable(text)), _mark(ok), _p(p))
    console.print(table)


def print_result(result: SummarizationResult, console: Console | None = None) -> None:
    console = console or Console()
    scale = result.provenance.scale
    header = Text.assemble(
        ("score ", "bold"),
        (f"{result.score:g}", "bold cyan"),
        (f" / {scale:g}   " if scale != 1 else "   ", ""),
        (f"alignment {result.alignment_score:.2f}   coverage {result.coverage_score:.2f}", ""),
    )
    console.print(header)
    console.print(Text(printable(result.reason)))

    _verdicts(
        console,
        "Claims (alignment: judged against the source)",
        ("claim", "supported"),
        [(v.claim, v.supported, v.probability) for v in result.preprocess_step_result.alignment],
    )
    _verdicts(
        console,
        "Questions (coverage: answered from the summary alone)",
        ("question", "answered"),
        [(v.question, v.answered, v.probability) for v in result.analyze_step_result.coverage],
    )
    _verdicts(
        console,
        'Questions dropped (the source itself does not answer them "yes")',
        ("question", "source answers"),
        [(v.question, False, v.probability) for v in result.preprocess_step_result.dropped_questions],
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
