"""``localsumm compare`` on the terminal: the systems ranked with their intervals, then the pairwise differences
that are significant. System names come from the user's data: printed as text, never as markup."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..compare.systems import Comparison, PairRow
from ..text import printable

_SHORT = {"score": "score", "alignment_score": "alignment", "coverage_score": "coverage"}


def cell(mean: float, interval: tuple[float, float] | None) -> str:
    """A mean and its interval, as the terminal table and the HTML panel show them."""
    return f"{mean:.2f}" if interval is None else f"{mean:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"


def _named(names: list[str], most: int = 8) -> str:
    shown = ", ".join(printable(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _systems_table(comparison: Comparison) -> Table:
    excluded = any(row.failed or row.unscorable for row in comparison.systems)
    table = Table(
        title=f"{len(comparison.systems)} systems on {comparison.sources} shared sources, ranked by mean score",
        caption="mean over sources [95% interval, sources resampled]"
        + ("; excluded: failed / unscorable items" if excluded else ""),
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
    )
    table.add_column("#", justify="right")
    # Names are what the table is for: the other columns keep their width, so a narrow terminal folds the title
    # and caption, not the names (up to 20 characters).
    table.add_column(
        "system", min_width=min(20, max(len("system"), *(len(printable(row.system)) for row in comparison.systems)))
    )
    for name in _SHORT.values():
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("words", justify="right", no_wrap=True)
    if excluded:
        table.add_column("excluded", justify="right", no_wrap=True)
    for rank, row in enumerate(comparison.systems, 1):
        cells = [cell(row.means[d], row.intervals[d]) for d in _SHORT] + [f"{row.words:.0f}"]
        cells += [f"{row.failed} / {row.unscorable}"] if excluded else []
        table.add_row(str(rank), Text(printable(row.system)), *cells)
    return table


def _pairs_table(rows: list[PairRow], holm: bool) -> Table:
    table = Table(
        title="Paired differences by source (first - second)",
        caption="p: paired permutation test"
        + (", Holm-corrected over the pairs" if holm else "")
        + "; W/T/L: sources where first won, tied, lost",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("first - second")
    for name in ("on", "difference", "p", "W/T/L", ""):
        table.add_column(name, justify="right" if name in ("difference", "p") else "left", no_wrap=True)
    for row in rows:
        p = row.paired
        interval = "" if p.interval is None else f" [{p.interval[0]:+.2f}, {p.interval[1]:+.2f}]"
        table.add_row(
            Text(f"{printable(row.first)} - {printable(row.second)}"),
            _SHORT[row.dimension],
            f"{p.mean_difference:+.2f}{interval}",
            f"{row.p_holm:.3g}",
            f"{p.wins}/{p.ties}/{p.losses}",
            Text("significant", style="bold green") if row.significant else Text("no", style="dim"),
        )
    return table


def print_comparison(comparison: Comparison, console: Console | None = None) -> None:
    """The ranked table, the significant differences (every one when only two systems are compared) and why
    anything was left out."""
    console = console or Console()
    console.print(_systems_table(comparison))
    shown = [r for r in comparison.pairs if r.significant or len(comparison.systems) == 2]
    if shown:
        console.print(_pairs_table(shown, holm=len(comparison.systems) > 2))
    else:
        console.print("No pairwise difference is significant at 0.05 (paired permutation test, Holm).")
    if comparison.no_interval:
        console.print(Text(comparison.no_interval, style="yellow"))
    for row in comparison.systems:
        if row.left_out:
            console.print(
                Text(
                    f"{printable(row.system)}: {len(row.left_out)} source{'s' if len(row.left_out) > 1 else ''} left "
                    "out (not scored for every system): " + _named(row.left_out),
                    style="yellow",
                )
            )
    for note in comparison.notes:
        console.print(Text(printable(note), style="yellow"))
    s = comparison.settings
    console.print(Text(f"seed {s.seed} · {s.resamples} resamples · {s.permutations} permutations", style="dim"))
