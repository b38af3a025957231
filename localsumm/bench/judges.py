"""`localsumm bench judges`: several judges on the same items, and whether one is better beyond noise.

Each judge scores every dataset into its own resumable results file (as ``bench quality`` does), then gives its
verdicts on the first judge's claims and questions (as ``bench agree`` does), so that verdict agreement is measured
on identical items. The first judge is the reference. Everything is measured on the items every judge scored:

- with human labels, each judge's agreement with them (the headline figures of ``bench quality``, beside its
  baselines) and each pair's difference, paired by document: a document-resampled interval and a permutation
  p-value that swaps the two judges' values on whole documents, Holm-corrected over the pairs;
- with or without labels, each judge against the reference: Cohen's kappa on the same claims and questions, the
  correlation of their scores, and Kendall's tau between their system rankings;
- what each judge cost: seconds per item (new source, later summary), calls, tokens, failed items, and dollars
  from a price the user gives (none is assumed).

A judge whose endpoint cannot be reached stops there: its results so far are kept, the other judges go on, the
report says so, and the same command run again resumes it.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..backends import backend_prefix, open_judge
from ..compare.stats import holm
from ..config.options import Options, make_options
from ..errors import ConfigError, LocalsummError, NetworkError
from ..models.registry import resolve_model
from ..protocol import Judge
from ..runs.evaluate import evaluate_file
from ..runs.results import ResultLine, read_results
from ..summarization.scorer import create_summarization_scorer
from ..text import printable
from . import metrics
from .items import BASELINES, WEAKEST_CLAIM, Item, items_from_results
from .quality import LABELS, MEASURES, REFERENCE, Figure, HumanLabel, open_for_bench, per_document, pooled, results_file

if TYPE_CHECKING:
    from ..runs.progress import Progress

PERMUTATIONS = 1000
"""Document swaps per permutation test: p-values to about 0.001, in seconds on a few hundred items."""
LEVEL = 0.05
"""A pair's difference is called significant when its Holm-corrected p-value is below this."""
DISAGREEMENTS = 5
"""Items shown per judge where it and the reference differ most."""


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens read (``input``) and written (``output``)."""

    input: float
    output: float


def parse_price(text: str) -> tuple[str, Price]:
    """``NAME=IN/OUT`` (dollars per million tokens read / written) as (judge name, price)."""
    name, _, rates = text.partition("=")
    read, _, written = rates.partition("/")
    try:
        price = Price(float(read), float(written))
    except ValueError:
        price = None
    if not name or price is None or price.input < 0 or price.output < 0:
        raise ConfigError(f"--price {text!r}: write NAME=IN/OUT, dollars per million tokens, e.g. openai:gpt-4o=2.5/10")
    return name, price


# -- running the judges -------------------------------------------------------------


@dataclass
class JudgeRun:
    """One judge's results, by dataset, and why its run stopped early (None if it did not)."""

    name: str
    """As the report names it: the judge's own name, numbered when the same judge is given twice."""
    lines: dict[str, list[ResultLine]] = field(default_factory=dict)
    crossed: dict[str, dict[str, dict[str, list[bool]]]] = field(default_factory=dict)
    """By dataset and item id: this judge's verdicts on the reference's "claims" and "questions"."""
    stopped: str | None = None


def _cross_path(results: Path, reference: str) -> Path:
    return results.with_name(f"{results.stem}.verdicts-on-{reference.replace('/', '_')}.jsonl")


def _read_crossed(path: Path) -> dict[str, dict[str, list[bool]]]:
    """The verdicts already written to ``path`` (a last line cut short by a crash is ignored: it is asked again)."""
    crossed = {}
    if path.exists():
        for text in path.read_text(encoding="utf-8").splitlines():
            try:
                line = json.loads(text)
                crossed[str(line["id"])] = {"claims": line["claims"], "questions": line["questions"]}
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return crossed


def _cross(judge: Judge, options: Options, reference: list[ResultLine], path: Path) -> dict[str, dict[str, list[bool]]]:
    """``judge``'s verdicts on the claims and questions of the reference's scored lines, appended to ``path`` one
    line per item as they are made (resumable)."""
    crossed = _read_crossed(path)
    todo = [line for line in reference if line.result is not None and line.id not in crossed]
    if not todo:
        return crossed
    scorer = create_summarization_scorer(judge, options=options)
    with path.open("a", encoding="utf-8") as out:
        for line in todo:
            result = line.result
            assert result is not None
            source, summary = line.texts()
            claims = [v.claim for v in result.preprocess_step_result.alignment]
            questions = [v.question for v in result.analyze_step_result.coverage]
            try:
                alignment, coverage = scorer.verdicts_on(source, summary, claims, questions)
            except (ConfigError, NetworkError):
                raise
            except LocalsummError:
                continue  # this item's verdicts failed (the judge's own results say how): left out of kappa
            verdicts = {"claims": [v.supported for v in alignment], "questions": [v.answered for v in coverage]}
            out.write(json.dumps({"id": line.id, **verdicts}) + "\n")
            out.flush()
            crossed[str(line.id)] = verdicts
    return crossed


def _score_judge(
    run: JudgeRun,
    judge: Judge,
    data_files: list[Path],
    out_dir: Path,
    options: Options,
    *,
    reference: JudgeRun | None,
    limit: int | None,
    questions: str | Path | None,
    progress: Progress | None,
) -> None:
    """Every dataset through ``judge`` (resumable), then its verdicts on the reference's claims and questions."""
    for data in data_files:
        dataset = data.name.split(".")[0]
        results, these = results_file(data, out_dir, judge, options, questions, progress)
        try:
            evaluate_file(data, results, resume=True, model=judge, options=these, limit=limit, progress=progress)
            if reference is not None and dataset in reference.lines:
                path = _cross_path(results, reference.name)
                run.crossed[dataset] = _cross(judge, these, reference.lines[dataset], path)
        except LocalsummError as e:
            if isinstance(e, ConfigError):
                raise
            run.stopped = f"{type(e).__name__}: {e}"
        run.lines[dataset] = read_results(results)[:limit] if results.exists() else []
        if run.stopped is not None:
            return


def run_judges(
    judges: Sequence[str | Judge],
    data_files: list[Path],
    out_dir: Path,
    *,
    options: Options | None = None,
    limit: int | None = None,
    questions: str | Path | None = None,
    prices: dict[str, Price] | None = None,
    progress: Progress | None = None,
    **settings: object,
) -> JudgesReport:
    """Every judge scores every dataset (the first ``limit`` items) into ``out_dir/results``, then the report.

    ``questions``: as for ``bench quality``: a question file, or "reference" (each set's own facts), asked by
    every judge; None: each judge writes its own. Judges load one at a time, each once."""
    if len(judges) < 2:
        raise ConfigError(f"give two judges or more (--judge), got {len(judges)}")
    options = make_options(options or Options(cache=True), **settings)
    prices = prices or {}
    given = [spec if isinstance(spec, str) else spec.info.name for spec in judges]
    unknown = sorted(set(prices) - set(given))
    if unknown:  # before any scoring: a typo must not cost a run
        raise ConfigError(f"--price for {', '.join(unknown)}: not a --judge given ({', '.join(given)})")
    _check_judges(judges, options)
    results_dir = out_dir / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    runs: list[JudgeRun] = []
    given_before: Counter[str] = Counter()
    for spec in judges:
        judge = open_for_bench(spec, options)
        name = judge.info.name
        given_before[name] += 1  # the same judge given twice is named apart: "NAME #2"
        run = JudgeRun(name if given_before[name] == 1 else f"{name} #{given_before[name]}")
        runs.append(run)
        _score_judge(
            run,
            judge,
            data_files,
            results_dir,
            options,
            reference=runs[0] if len(runs) > 1 else None,
            limit=limit,
            questions=questions,
            progress=progress,
        )
        del judge  # one model in memory at a time
    by_run = {run.name: prices[spec] for run, spec in zip(runs, given) if spec in prices}
    return build_report(runs, _mode(questions), by_run)


def _check_judges(judges: Sequence[str | Judge], options: Options) -> None:
    """Every judge named can be opened, checked before any is loaded: a misspelt third judge must not be found after
    an hour of the first two. A local judge's file is found and verified; a hosted one opens without a call."""
    for spec in judges:
        if not isinstance(spec, str):
            continue
        if backend_prefix(spec) is None:
            resolve_model(spec)
        else:
            open_judge(spec, options)


def _mode(questions: str | Path | None) -> str:
    if questions is None:
        return "each judge wrote its own questions"
    if str(questions) == REFERENCE:
        return "every judge asked each set's reference facts"
    return f"every judge asked the questions of {questions}"


# -- measuring ------------------------------------------------------------------------


@dataclass(frozen=True)
class PairFigure:
    """The second judge's figure minus the first's, on the same items, paired by document."""

    dataset: str
    label: str
    measure: str
    first: str
    second: str
    difference: float
    low: float
    high: float
    p_value: float
    p_holm: float
    documents: int

    @property
    def significant(self) -> bool:
        return self.p_holm < LEVEL


@dataclass(frozen=True)
class Agreement:
    """A judge against the reference judge on the items both scored."""

    dataset: str
    judge: str
    reference: str
    items: int
    claims: int
    questions: int
    kappa_claims: float
    kappa_questions: float
    score_pearson: float
    score_spearman: float
    systems: int
    system_kendall: float
    """Kendall's tau between the two judges' rankings of the systems by mean score (NaN below 3 systems)."""


@dataclass(frozen=True)
class Cost:
    """What a judge spent on the items it scored."""

    judge: str
    items: int
    failed: int
    new_sources: int
    later_summaries: int
    seconds_new_source: float
    seconds_later_summary: float
    calls: int
    cached_calls: int
    """Answered by the judge-call cache: their seconds are not the judge's."""
    prompt_tokens: int
    completion_tokens: int
    dollars: float | None
    """From the price given for this judge (``--price``); None without one."""
    stopped: str | None
    first_errors: list[str]


@dataclass(frozen=True)
class Disagreement:
    dataset: str
    id: str
    judge: str
    summary: str
    scores: tuple[float, float]
    """(reference's score, this judge's)."""
    verdicts: list[tuple[str, str, bool, bool]]
    """Where the two judges' verdicts differ: ("claim" or "question", its text, the reference's, this judge's)."""


@dataclass(frozen=True)
class JudgesReport:
    judges: list[str]
    mode: str
    datasets: dict[str, int]
    """Each dataset's items that every judge scored."""
    figures: list[Figure]
    pairs: list[PairFigure]
    agreement: list[Agreement]
    costs: list[Cost]
    disagreements: list[Disagreement]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, allow_nan=True)


@dataclass(frozen=True)
class Headline:
    """One figure measured for every judge, and compared between each pair."""

    label: HumanLabel
    measure: str
    """A correlation of ``MEASURES`` (with " per document": within each document, averaged), or "ROC-AUC"."""
    read: Callable[[Item], float]


def headlines(label: HumanLabel, labels: list[float]) -> list[Headline]:
    """The figures that judge a judge on ``label``: ROC-AUC of the weakest claim for yes/no alignment labels
    (SummEdits), else its first correlation, pooled and per document."""
    if label.name == "label_alignment" and set(labels) <= {0.0, 1.0}:
        return [Headline(label, "ROC-AUC", WEAKEST_CLAIM.read)]
    measure = label.measures[0]
    return [Headline(label, m, label.ours.read) for m in (measure, f"{measure} per document")]


def statistic(measure: str, x: np.ndarray, y: np.ndarray, docs: np.ndarray) -> Callable[[np.ndarray], float]:
    """``measure`` of ``x`` against the labels ``y`` on the items a resample picks (their indices)."""
    if measure == "ROC-AUC":
        return pooled(metrics.roc_auc, x, y)
    correlation = MEASURES[measure.removesuffix(" per document")]
    if measure.endswith(" per document"):
        return per_document(correlation, x, y, docs)
    return pooled(correlation, x, y)


def comparable(measure: str, values: np.ndarray) -> np.ndarray:
    """``values`` on a scale shared by every judge, with the figure unchanged: ranks for a rank measure (Spearman,
    Kendall, ROC-AUC), standard scores for Pearson. Two judges' raw scores can sit on different scales (one
    near 0, one spread over 0..1); a swap that mixes them would then measure the mixing, and the test would
    lose its power to the scales instead of the agreement."""
    if measure.removesuffix(" per document") == "pearson":
        spread = values.std()
        return (values - values.mean()) / spread if spread else np.zeros_like(values, dtype=float)
    return metrics.ranks(values) / len(values)


def swap_p_value(
    measure: str,
    first: np.ndarray,
    second: np.ndarray,
    y: np.ndarray,
    docs: np.ndarray,
    *,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> float:
    """Two-sided p-value of "the two judges are exchangeable": each permutation swaps their values on a random
    half of the documents (a document's items together), and the figure's difference is compared with the
    observed one. (1 + as extreme) / (1 + permutations), as ``compare.stats.sign_flip_p``."""
    every = np.arange(len(y))
    first, second = comparable(measure, first), comparable(measure, second)

    def difference(a: np.ndarray, b: np.ndarray) -> float:
        return statistic(measure, b, y, docs)(every) - statistic(measure, a, y, docs)(every)

    observed = difference(first, second)
    if math.isnan(observed):
        return math.nan
    _, doc_index = np.unique(docs, return_inverse=True)
    rng = np.random.default_rng(seed)
    extreme = 0
    for _ in range(permutations):
        swap = (rng.random(doc_index.max() + 1) < 0.5)[doc_index]
        permuted = difference(np.where(swap, second, first), np.where(swap, first, second))
        extreme += bool(abs(permuted) >= abs(observed) - 1e-12)
    return (1 + extreme) / (1 + permutations)


def _common(runs: list[JudgeRun], dataset: str) -> list[str]:
    """The ids every judge scored, in the reference's order."""
    scored = [{line.id for line in run.lines.get(dataset, []) if line.result is not None} for run in runs]
    return [
        i for i in (line.id for line in runs[0].lines.get(dataset, [])) if i is not None and all(i in s for s in scored)
    ]


def _items(run: JudgeRun, dataset: str, ids: list[str]) -> list[Item]:
    by_id = {line.id: line for line in run.lines[dataset]}
    return items_from_results([by_id[i] for i in ids])


def _figure(
    dataset: str, label: str, name: str, headline: Headline, values: list[float], y: list[float], docs: list[str]
) -> Figure:
    x, labels, groups = np.asarray(values, float), np.asarray(y, float), np.asarray(docs)
    stat = statistic(headline.measure, x, labels, groups)
    per_document = headline.measure.endswith(" per document")
    value = stat(np.arange(len(y)))
    low, high = metrics.bootstrap_ci(stat, len(y), groups=docs)
    counted = metrics.documents_counted(values, y, docs) if per_document else (None, None)
    return Figure(dataset, label, name, headline.measure, value, low, high, len(y), *counted)


def _pair(
    dataset: str,
    headline: Headline,
    first: tuple[str, list[float]],
    second: tuple[str, list[float]],
    y: list[float],
    docs: list[str],
) -> PairFigure:
    a, b, labels, groups = np.asarray(first[1]), np.asarray(second[1]), np.asarray(y, float), np.asarray(docs)
    stat_a, stat_b = statistic(headline.measure, a, labels, groups), statistic(headline.measure, b, labels, groups)
    every = np.arange(len(y))
    low, high = metrics.bootstrap_ci(lambda idx: stat_b(idx) - stat_a(idx), len(y), groups=docs)
    p = swap_p_value(headline.measure, a, b, labels, groups)
    return PairFigure(
        dataset,
        headline.label.name,
        headline.measure,
        first[0],
        second[0],
        stat_b(every) - stat_a(every),
        low,
        high,
        p,
        p,
        len(set(docs)),
    )


def labelled_figures(runs: list[JudgeRun], dataset: str, ids: list[str]) -> tuple[list[Figure], list[PairFigure]]:
    """Each judge's headline figures on ``dataset``'s labels and the baselines' on the same items; each pair of
    judges' differences, Holm-corrected over the pairs of each figure."""
    items = {run.name: _items(run, dataset, ids) for run in runs}
    reference_items = items[runs[0].name]
    figures: list[Figure] = []
    pairs: list[PairFigure] = []
    for label in LABELS:
        keep = [k for k, item in enumerate(reference_items) if label.read(item) is not None]
        if not keep:
            continue
        y = metrics.known([label.read(reference_items[k]) for k in keep])
        docs = [reference_items[k].doc for k in keep]
        for headline in headlines(label, y):
            values = {run.name: [headline.read(items[run.name][k]) for k in keep] for run in runs}
            for name, these in values.items():
                figures.append(_figure(dataset, label.name, name, headline, these, y, docs))
            for baseline in BASELINES:
                base = baseline.values([reference_items[k] for k in keep])
                figures.append(_figure(dataset, label.name, baseline.name, headline, base, y, docs))
            found = [
                _pair(dataset, headline, (a.name, values[a.name]), (b.name, values[b.name]), y, docs)
                for i, a in enumerate(runs)
                for b in runs[i + 1 :]
            ]
            adjusted = _holm([f.p_value for f in found])
            pairs += [replace(f, p_holm=p) for f, p in zip(found, adjusted)]
    return figures, pairs


def _holm(p_values: list[float]) -> list[float]:
    """Holm's adjustment of the p-values a swap test could give (a NaN figure has none, and stays NaN)."""
    known = [p for p in p_values if not math.isnan(p)]
    adjusted = iter(holm(known)) if known else iter([])
    return [math.nan if math.isnan(p) else next(adjusted) for p in p_values]


def agreement(runs: list[JudgeRun], dataset: str, ids: list[str]) -> list[Agreement]:
    """Each judge against the reference on ``ids``: verdicts on the reference's own claims and questions, scores,
    and system rankings."""
    reference = {line.id: line for line in runs[0].lines[dataset]}
    found = []
    for run in runs[1:]:
        mine = {line.id: line for line in run.lines[dataset]}
        crossed = run.crossed.get(dataset, {})
        claims: tuple[list[bool], list[bool]] = ([], [])
        questions: tuple[list[bool], list[bool]] = ([], [])
        for i in ids:
            result, theirs = reference[i].result, crossed.get(i)
            if result is None or theirs is None:
                continue
            claims[0].extend(v.supported for v in result.preprocess_step_result.alignment)
            claims[1].extend(theirs["claims"])
            questions[0].extend(v.answered for v in result.analyze_step_result.coverage)
            questions[1].extend(theirs["questions"])
        a, b = [reference[i].score for i in ids], [mine[i].score for i in ids]
        systems, tau = _system_tau([reference[i] for i in ids], [mine[i] for i in ids])
        found.append(
            Agreement(
                dataset,
                run.name,
                runs[0].name,
                len(ids),
                len(claims[0]),
                len(questions[0]),
                metrics.cohen_kappa(*claims),
                metrics.cohen_kappa(*questions),
                metrics.pearson(a, b),
                metrics.spearman(a, b),
                systems,
                tau,
            )
        )
    return found


def _system_tau(reference: list[ResultLine], mine: list[ResultLine]) -> tuple[int, float]:
    """(systems, Kendall's tau between the two judges' system means), on the same items."""
    means: list[dict[str, float]] = []
    for lines in (reference, mine):
        by_system: dict[str, list[float]] = {}
        for line in lines:
            if line.system is not None:
                by_system.setdefault(line.system, []).append(line.score)
        means.append({s: statistics.fmean(v) for s, v in by_system.items()})
    systems = sorted(means[0])
    if len(systems) < 3:
        return len(systems), math.nan
    return len(systems), metrics.kendall([means[0][s] for s in systems], [means[1][s] for s in systems])


def cost(run: JudgeRun, price: Price | None) -> Cost:
    lines = [line for lines in run.lines.values() for line in lines]
    results = [line.result for line in lines if line.result is not None]
    new = [r for r in results if not r.provenance.shared_steps]
    later = [r for r in results if r.provenance.shared_steps]
    steps = [s for r in results for s in r.provenance.steps]
    prompt, completion = sum(s.prompt_tokens for s in steps), sum(s.completion_tokens for s in steps)
    dollars = None if price is None else (prompt * price.input + completion * price.output) / 1e6
    errors = [line.error for line in lines if line.error is not None]
    return Cost(
        run.name,
        len(results),
        len(errors),
        len(new),
        len(later),
        statistics.fmean(r.seconds for r in new) if new else math.nan,
        statistics.fmean(r.seconds for r in later) if later else math.nan,
        sum(s.calls for s in steps),
        sum(s.cached_calls for s in steps),
        prompt,
        completion,
        dollars,
        run.stopped,
        errors[:3],
    )


def disagreements(runs: list[JudgeRun], dataset: str, ids: list[str], most: int = DISAGREEMENTS) -> list[Disagreement]:
    """For each judge, the items where its score and the reference's differ most, with the verdicts that differ."""
    reference = {line.id: line for line in runs[0].lines[dataset]}
    found = []
    for run in runs[1:]:
        mine = {line.id: line for line in run.lines[dataset]}
        apart = sorted(ids, key=lambda i: -abs(reference[i].score - mine[i].score))[:most]
        for i in apart:
            if abs(reference[i].score - mine[i].score) < 1e-9:
                break
            found.append(_disagreement(dataset, run, reference[i], mine[i]))
    return found


def _disagreement(dataset: str, run: JudgeRun, reference: ResultLine, mine: ResultLine) -> Disagreement:
    result = reference.result
    assert result is not None and reference.id is not None
    theirs = run.crossed.get(dataset, {}).get(reference.id, {"claims": [], "questions": []})
    differ = [
        ("claim", v.claim, v.supported, b)
        for v, b in zip(result.preprocess_step_result.alignment, theirs["claims"])
        if v.supported != b
    ]
    differ += [
        ("question", v.question, v.answered, b)
        for v, b in zip(result.analyze_step_result.coverage, theirs["questions"])
        if v.answered != b
    ]
    return Disagreement(dataset, reference.id, run.name, reference.texts()[1], (reference.score, mine.score), differ)


def build_report(runs: list[JudgeRun], mode: str, prices: dict[str, Price]) -> JudgesReport:
    """The report of finished (or stopped) runs, from their results alone; ``prices`` by judge as named there."""
    figures: list[Figure] = []
    pairs: list[PairFigure] = []
    agreements: list[Agreement] = []
    apart: list[Disagreement] = []
    datasets = {}
    for dataset in runs[0].lines:
        ids = _common(runs, dataset)
        datasets[dataset] = len(ids)
        if not ids:
            continue
        found, paired = labelled_figures(runs, dataset, ids)
        figures += found
        pairs += paired
        agreements += agreement(runs, dataset, ids)
        apart += disagreements(runs, dataset, ids)
    costs = [cost(run, prices.get(run.name)) for run in runs]
    return JudgesReport([r.name for r in runs], mode, datasets, figures, pairs, agreements, costs, apart)


def shown(text: str, most: int = 300) -> str:
    """User text as the report shows it: printable, and cut at ``most`` characters."""
    text = printable(text)
    return text if len(text) <= most else text[: most - 1] + "…"
