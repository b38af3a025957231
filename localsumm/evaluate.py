"""``localsumm eval``: a data file through ``run_evals``, appending results as they finish.

The results file is the state: each finished item is one flushed JSON line, so
an interrupted run loses at most the item in flight, and ``--resume`` skips the
ids already written.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from .batch import ItemResult, Record, done_ids, read_records, run_evals
from .errors import InputError
from .files import read_jsonl
from .judge import Judge
from .text import printable

DIMENSIONS = ("score", "alignment_score", "coverage_score")


@dataclass
class EvalSummary:
    items: int
    scored: int
    failed: int
    unscorable: int
    mean_score: float | None


def _line(record: Record, *, error: str | None = None, item: ItemResult | None = None) -> str:
    """The user's record unchanged, plus our verdict under one key of our own."""
    result = None if item is None else next(iter(item.scorer_results.values()), None)
    if item is not None and item.errors:
        error = "; ".join(item.errors.values())
    ours: dict[str, Any] = {"status": "failed" if error else "scored", "error": error}
    if result is not None and not error:
        ours.update({d: getattr(result, d) for d in DIMENSIONS}, scorable=result.scorable, result=result.to_dict())
    fields = dict(record.fields)
    fields["id"] = record.id
    fields["localsumm"] = ours
    return json.dumps(fields, ensure_ascii=False)


def evaluate_file(
    data: Path,
    out: Path,
    *,
    resume: bool = False,
    model: "str | Judge | None" = None,
    max_questions: int = 10,
    scale: float = 1,
    claims: str = "sentences",
    check_literals: bool = True,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    cache: bool = False,
    limit: int | None = None,
    console: Console | None = None,
) -> EvalSummary:
    """Score the records of ``data`` (the first ``limit`` of them, if given) into ``out``."""
    console = console or Console(stderr=True)
    if out.exists() and out.stat().st_size > 0 and not resume:
        raise InputError(f"{out} already holds results; pass --resume to continue it, or choose another --out")
    records = list(read_records(data))[:limit]
    first_line: dict[str, int] = {}
    for record in records:
        if record.id is None:
            record.id = f"line-{record.line}"  # so a malformed record is written once, and resumable
        elif record.error is None and record.id in first_line:
            record.error = f"{data}: line {record.line} repeats id {record.id} (first on line {first_line[record.id]})"
        first_line.setdefault(record.id, record.line)
    done = done_ids(out) if resume else set()
    if done:
        _check_same_settings(out, claims, check_literals)
    todo = [r for r in records if r.id not in done]
    valid = [r for r in todo if r.error is None]

    from . import create_summarization_scorer

    scorer = create_summarization_scorer(
        model, max_questions=max_questions, scale=scale, claims=claims, check_literals=check_literals, n_ctx=n_ctx,
        n_threads=n_threads, cache=cache,
    ) if valid else None

    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as sink, _progress(console) as progress:
        task = progress.add_task("scoring", total=len(todo), rate="")
        for record in todo:
            if record.error is not None:
                console.print(Text.assemble(("skipped", "yellow"), f": {printable(record.error)}"), highlight=False)
                sink.write(_line(record, error=record.error) + "\n")
                sink.flush()
                progress.advance(task)
        tokens, seconds = 0, 0.0

        def finished(item: ItemResult) -> None:
            nonlocal tokens, seconds
            record = valid[item.index]
            sink.write(_line(record, item=item) + "\n")
            sink.flush()
            for result in item.scorer_results.values():
                steps = result.provenance.steps
                tokens += sum(s.prompt_tokens + s.completion_tokens for s in steps)
                seconds += sum(s.seconds for s in steps)
            progress.update(task, advance=1, rate=f"{tokens / seconds:.0f} tokens/s" if seconds else "")

        if scorer is not None:
            run_evals(({"id": r.id, "input": r.input, "output": r.output} for r in valid), [scorer], on_item_complete=finished)
    return _summarise(out, console)


def _check_same_settings(out: Path, claims: str, check_literals: bool) -> None:
    """A resumed file must not mix claim units or literal-check settings: its figures would describe neither."""
    for line in read_jsonl(out):
        result = (line.get("localsumm") or {}).get("result")
        if not result:  # a failed or skipped item judged nothing
            continue
        # Results written before the choice existed judged extracted claims.
        earlier = result["provenance"].get("claims", "extracted")
        if earlier != claims:
            raise InputError(
                f"{out} holds results whose claims are {earlier!r} (item {line.get('id')}); resume it with "
                f"--claims {earlier}, or give --claims {claims} its own --out"
            )
        # Results written before the literal check existed were judged without it.
        checked = result["provenance"].get("literal_check", False)
        if checked != check_literals:
            flag = "--literal-check" if checked else "--no-literal-check"
            raise InputError(
                f"{out} holds results judged {'with' if checked else 'without'} the literal check (item "
                f"{line.get('id')}); resume it with {flag}, or give this setting its own --out"
            )


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[rate]}"),
        console=console,
    )


def _histogram(values: list[float]) -> str:
    """Counts in five equal bins from 0 to the top of the scale (1, or the --scale in use)."""
    top = max(1.0, *values)
    bins = [0] * 5
    for v in values:
        bins[min(int(v / top * 5), 4)] += 1
    return " ".join(f"{i * top / 5:g}-{(i + 1) * top / 5:g}:{n}" for i, n in enumerate(bins))


def _summarise(out: Path, console: Console) -> EvalSummary:
    lines = read_jsonl(out)
    ours = [line.get("localsumm", {}) for line in lines]
    scored = [o for o in ours if o.get("status") == "scored"]
    table = Table(title=f"{out}: {len(lines)} items, {len(scored)} scored")
    for column in ("", "mean", "median", "distribution"):
        table.add_column(column)
    for dim in DIMENSIONS:
        values = [o[dim] for o in scored]
        if values:
            table.add_row(dim, f"{statistics.fmean(values):.3f}", f"{statistics.median(values):.3f}", _histogram(values))
    console.print(table)
    unscorable = sum(1 for o in scored if not o.get("scorable"))
    failed = len(ours) - len(scored)
    console.print(f"unscorable (score 0, nothing to judge): {unscorable}   failed: {failed}")
    mean = statistics.fmean(o["score"] for o in scored) if scored else None
    return EvalSummary(items=len(lines), scored=len(scored), failed=failed, unscorable=unscorable, mean_score=mean)
