"""The results file: one owner for its format.

``localsumm eval`` writes one JSON line per item: the user's record unchanged,
its ``id``, and our verdict under one key of our own::

    {...the record..., "id": "a1", "localsumm": {"status": "scored", "error": null,
     "run": "5f0c...", "source_sha256": "9f86...", "score": 0.5, "alignment_score": 1.0,
     "coverage_score": 0.5, "scorable": true, "result": {...SummarizationResult.to_dict()...}}}

``source_sha256`` names the source as a question file does, so ``localsumm compare`` pairs the summaries
of one source across systems and files (lines written before it existed: computed from the record).

A failed or skipped item has ``"status": "failed"`` and its ``error``. ``run``
names the process that wrote the line. Every reader (resume, the summary table,
the HTML report, bench quality, bench compare, calibrate, experiments) reads
lines through :func:`read_results`, which keeps one line per id
(:func:`unique_lines`), and :class:`ResultLine`, never by raw keys.
"""

from __future__ import annotations

import json
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._version import __version__
from ..config.options import Options
from ..errors import InputError, LocalsummWarning
from ..files import json_object, read_text
from ..summarization.inputs import resolve_source, resolve_summary
from ..summarization.prompts import PROMPT_VERSION
from ..summarization.questionset import QuestionFile, source_sha256
from ..summarization.result import SummarizationResult

KEY = "localsumm"
DIMENSIONS = ("score", "alignment_score", "coverage_score")
RUN = uuid.uuid4().hex[:16]
"""This process's stamp on the lines it writes. A file has one writer at a time (``runs.lock``) and a run
never writes an id twice except for an id its data repeats (a failed line), so lines of one id that share a
stamp are one run's: the first is its result."""


def format_line(
    fields: dict[str, Any],
    id: str | None,
    *,
    error: str | None = None,
    result: SummarizationResult | None = None,
    run: str = RUN,
) -> str:
    """The line for one item: ``fields`` (the user's record) unchanged, plus our verdict."""
    ours: dict[str, Any] = {"status": "failed" if error else "scored", "error": error, "run": run}
    source = ResultLine(fields).texts()[0]
    ours["source_sha256"] = source_sha256(source) if source else None
    if result is not None and not error:
        ours.update({d: getattr(result, d) for d in DIMENSIONS}, scorable=result.scorable, result=result.to_dict())
    line = dict(fields)
    line["id"] = id
    line[KEY] = ours
    return json.dumps(line, ensure_ascii=False)


@dataclass(frozen=True)
class ResultLine:
    """One line of a results file, as read."""

    fields: dict[str, Any]
    """The whole line: the user's record and our ``localsumm`` key."""
    number: int = 0
    """Its line number in the file (1-based; 0 when not read from a file)."""

    @property
    def id(self) -> str | None:
        return None if self.fields.get("id") is None else str(self.fields["id"])

    @property
    def _ours(self) -> dict[str, Any]:
        ours = self.fields.get(KEY)
        return ours if isinstance(ours, dict) else {}

    @property
    def scored(self) -> bool:
        return self._ours.get("status") == "scored"

    @property
    def run(self) -> str | None:
        """The process that wrote it (None in files written before lines named one)."""
        run = self._ours.get("run")
        return None if run is None else str(run)

    @property
    def error(self) -> str | None:
        return self._ours.get("error")

    @property
    def score(self) -> float:
        return float(self._ours["score"])

    @property
    def alignment_score(self) -> float:
        return float(self._ours["alignment_score"])

    @property
    def coverage_score(self) -> float:
        return float(self._ours["coverage_score"])

    @property
    def scorable(self) -> bool:
        return bool(self._ours.get("scorable"))

    @cached_property
    def result(self) -> SummarizationResult | None:
        """The full result of a scored line (None for a failed one)."""
        data = self._ours.get("result")
        if not self.scored or not data:
            return None
        try:
            return SummarizationResult.from_stored(data)
        except ValidationError as e:
            where = f"line {self.number}" if self.number else f"item {self.id}"
            raise InputError(
                f"{where} holds a result this version cannot read ({e.error_count()} problems, first: "
                f"{e.errors()[0]['loc']}): is it a localsumm eval results file?"
            ) from None

    # -- the user's record --------------------------------------------------------

    @property
    def doc(self) -> str:
        """The source document it belongs to: ``meta.doc_id``, else the start of its source."""
        meta = self.fields.get("meta") or {}
        return str(meta.get("doc_id") or self.texts()[0][:200])

    @property
    def system(self) -> str | None:
        """The summarizer that wrote the summary: the record's ``system``, else ``meta.system`` (SummEval's)."""
        meta = self.fields.get("meta")
        system = self.fields.get("system") or (meta.get("system") if isinstance(meta, dict) else None)
        return None if system is None else str(system)

    @property
    def source_sha256(self) -> str | None:
        """sha256 of the record's source text, as written (computed for a line written before it was); None
        when the record has no source."""
        written = self._ours.get("source_sha256")
        if isinstance(written, str):
            return written
        source = self.texts()[0]
        return source_sha256(source) if source else None

    @property
    def label_alignment(self) -> float | None:
        return self.fields.get("label_alignment")

    @property
    def label_coverage(self) -> float | None:
        return self.fields.get("label_coverage")

    def texts(self) -> tuple[str, str]:
        """(source, summary) of the record ("" where the record has none)."""
        if "source" in self.fields or "summary" in self.fields:
            return str(self.fields.get("source") or ""), str(self.fields.get("summary") or "")
        try:
            return resolve_source(self.fields.get("input"), self.fields.get("output")), resolve_summary(
                self.fields.get("output")
            )
        except Exception:  # the record itself was malformed: show what there is
            return "", ""


def read_results(path: Path) -> list[ResultLine]:
    """The lines of a results file, one per id (:func:`unique_lines`, whose warning says what it dropped); an
    error names the line that is not one of ours."""
    lines = []
    for number, text in enumerate(read_text(str(path), "results").splitlines(), 1):
        if not text.strip():
            continue
        fields = json_object(text, f"{path}: line {number}", hint="; is it a localsumm eval results file?")
        lines.append(ResultLine(fields, number))
    kept, warning = unique_lines(lines, str(path))
    if warning is not None:
        warnings.warn(warning, LocalsummWarning, stacklevel=2)
    return kept


_MEASURED = ("steps", "shared_steps", "model_path")
"""What a result's provenance records of how a run went (seconds, tokens, cache hits, where the weights lay):
two runs that judged an item alike differ there."""


def _judged(line: ResultLine) -> dict[str, Any]:
    """A line without what differs between two runs that judged alike: its run stamp and the measurements."""
    ours = {k: v for k, v in line._ours.items() if k != "run"}
    result = ours.get("result")
    if isinstance(result, dict) and isinstance(result.get("provenance"), dict):
        provenance = {k: v for k, v in result["provenance"].items() if k not in _MEASURED}
        ours["result"] = {**result, "provenance": provenance}
    return {**line.fields, KEY: ours}


def _listed(items: list[str], shown: int = 4) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def _complete(group: list[ResultLine]) -> ResultLine:
    """The first line of ``group`` that holds a result, else its first line."""
    return next((line for line in group if line.scored), group[0])


def unique_lines(lines: Sequence[ResultLine], where: str) -> tuple[list[ResultLine], str | None]:
    """One line per id: the first complete one (the first that holds a result, else the first), and a warning
    that says how many lines were dropped (None when none was).

    A line is dropped when it judged its item as the kept one did (the same results written twice, e.g. by two
    runs on one file) or was written by the same run (a record whose id the data repeats, reported as failed
    before the first one's result). Lines that disagree and came from different runs are refused, naming the
    ids and lines: no reader can tell which result is right, and counting both would count an item twice.
    """
    by_id: dict[str, list[ResultLine]] = {}
    for line in lines:
        if line.id is not None:
            by_id.setdefault(line.id, []).append(line)
    repeated = {key: group for key, group in by_id.items() if len(group) > 1}
    conflicts = []
    for key, group in repeated.items():
        runs: dict[object, list[ResultLine]] = {}  # an unstamped line is a run of its own
        for index, line in enumerate(group):
            runs.setdefault(line.run if line.run is not None else index, []).append(line)
        judged = [_judged(_complete(lines)) for lines in runs.values()]
        if any(other != judged[0] for other in judged[1:]):
            conflicts.append(f"{key} (lines {', '.join(str(line.number) for line in group)})")
    if conflicts:
        raise InputError(
            f"{where} holds different results for the same id, from different runs: {_listed(conflicts)}; keep one "
            "line per id, or score them again into a new --out"
        )
    if not repeated:
        return list(lines), None
    kept = {key: _complete(group) for key, group in by_id.items()}
    later = [
        f"{line.id} (line {line.number})" for key, group in repeated.items() for line in group if line is not kept[key]
    ]
    warning = (
        f"{where} repeats ids written before: {len(later)} line{'s' * (len(later) > 1)} ignored, {_listed(later)}; "
        "the first complete line of each id (its result, if one has) is kept"
    )
    return [line for line in lines if line.id is None or line is kept[line.id]], warning


def done_ids(out: Path) -> set[str]:
    """Ids already in a results file; a last line cut short by a crash is removed."""
    if not out.exists():
        return set()
    data = out.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):  # the item in flight when the run died: score it again
        out.write_bytes(keep)
    ids = set()
    for line in keep.decode("utf-8").splitlines():
        try:
            ids.add(str(json.loads(line)["id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return ids


def earlier_results(out: Path) -> list[ResultLine]:
    """The lines of a results file that hold a result (a failed or skipped item judged nothing): what a
    resumed run is checked against, read once."""
    return [line for line in read_results(out) if line.result is not None]


def _flag(name: str, value: Any) -> str:
    """A recorded setting as the command line gives it: each is the option of its own name."""
    option = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return option if value else "--no-" + option[2:]
    return f"{option} {value:g}" if isinstance(value, float) else f"{option} {value}"


def check_same_judge(out: Path, earlier: list[ResultLine], name: str, sha256: str | None) -> None:
    """A resumed file must hold one judge's results: the same weights (by sha256 where both sides have
    one, else by name)."""
    for line in earlier:
        provenance = line.result.provenance  # type: ignore[union-attr]
        was, was_sha = provenance.model, provenance.model_sha256
        if not (was_sha == sha256 if was_sha and sha256 else was == name):
            raise InputError(
                f"{out} holds results judged by {was} (item {line.id}), not {name}; resume it with "
                f"--model {was}, or give {name} its own --out"
            )


def check_same_questions(out: Path, earlier: list[ResultLine], question_file: QuestionFile | None) -> None:
    """A resumed file must ask its sources one question file's questions: the version of the file (by sha256)
    that its earlier results read, or none if they read none; and no source it holds was asked generated
    questions before."""
    now = question_file.sha256 if question_file else None
    for line in earlier:
        origin = line.result.provenance.questions  # type: ignore[union-attr]
        was = origin.file_sha256 if origin.origin == "file" else None
        generated = origin.origin == "generated"
        if generated and question_file is not None and question_file.find(line.texts()[0]) is not None:
            raise InputError(
                f"{out} holds results whose questions were generated (item {line.id}), and {question_file.path} "
                f"holds that source's questions: give this run its own --out, or resume it without --questions"
            )
        if was is not None and was != now:
            what = f"{question_file.path} (sha256 {now[:12]}...)" if question_file and now else "no question file"
            raise InputError(
                f"{out} holds results that read the question file {origin.file} (sha256 {was[:12]}..., "
                f"item {line.id}), and this run reads {what}: resume it with that file, or give this run its own --out"
            )


def check_resumable(out: Path, earlier: list[ResultLine], options: Options) -> None:
    """A resumed file must not mix settings a result depends on (``Options.recorded``), nor pipelines (the
    package and prompt versions): its figures would describe neither. Results written before a setting
    existed are read with what their version did (``SummarizationResult.from_stored``)."""
    wanted = options.recorded()
    pipeline = (__version__, PROMPT_VERSION)
    for line in earlier:
        provenance = line.result.provenance  # type: ignore[union-attr]
        was_pipeline = (provenance.localsumm_version, provenance.prompt_version)
        if was_pipeline != pipeline:
            raise InputError(
                f"{out} holds results of localsumm {was_pipeline[0]} with prompts {was_pipeline[1]} "
                f"(item {line.id}), and this is localsumm {pipeline[0]} with prompts {pipeline[1]}: the same input "
                f"can score differently, so give this run its own --out (or resume it with localsumm {was_pipeline[0]})"
            )
        for name, value in wanted.items():
            if getattr(provenance, name) != value:
                was, now = _flag(name, getattr(provenance, name)), _flag(name, value)
                raise InputError(
                    f"{out} holds results judged with {was} (item {line.id}), not {now}; resume it with {was}, "
                    f"or give {now} its own --out"
                )
