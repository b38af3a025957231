"""Human-readable rendering of a result for the terminal.

Every piece of text from the user's data is printed as a ``rich.text.Text``,
never parsed as markup, so a summary containing ``[red]`` or escape-like
text shows as itself.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .result import SummarizationResult


def _mark(ok: bool) -> Text:
    return Text("yes", style="green") if ok else Text("no", style="bold red")


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


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
    console.print(Text(result.reason))

    claims = Table(title="Claims (alignment: judged against the source)", show_lines=False)
    claims.add_column("#", justify="right")
    claims.add_column("claim")
    claims.add_column("supported")
    claims.add_column("p", justify="right")
    for i, v in enumerate(result.preprocess_step_result.alignment, 1):
        claims.add_row(str(i), Text(v.claim), _mark(v.supported), _p(v.probability))
    if result.preprocess_step_result.alignment:
        console.print(claims)

    questions = Table(title="Questions (coverage: answered from the summary alone)")
    questions.add_column("#", justify="right")
    questions.add_column("question")
    questions.add_column("answered")
    questions.add_column("p", justify="right")
    for i, v in enumerate(result.analyze_step_result.coverage, 1):
        questions.add_row(str(i), Text(v.question), _mark(v.answered), _p(v.probability))
    if result.analyze_step_result.coverage:
        console.print(questions)

    prov = result.provenance
    console.print(
        Text(
            f"judge {prov.model} · prompts {prov.prompt_version} · seed {prov.seed} · "
            f"{result.seconds:.1f} s in {sum(s.calls for s in prov.steps)} model calls",
            style="dim",
        )
    )
