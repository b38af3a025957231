"""The typed result of a scorer run, serialisable in snake_case or the reference's camelCase."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..config.options import ClaimUnit, ScoringRule, Verification


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class SourceSentence(_Model):
    """A sentence of the source, by its character offsets in the source as given: ``source[start:end] == text``
    (the sentence without the whitespace around it). A sentence longer than 400 characters (a source with no
    sentence ends) is cut into pieces at clause marks, each one of these."""

    index: int
    """Its position among the source's sentences (and pieces), from 0."""
    start: int
    end: int
    text: str


class Evidence(SourceSentence):
    """A source sentence a verdict points at: where in the source its claim or question stands."""

    lexical_score: float
    """BM25 of the claim or question against the source's sentences (rare words shared count most; 0: none)."""
    probability: float | None = None
    """The judge's probability that this sentence alone supports the claim (``verification`` "evidence" or
    "both"); None for a pointer found by words alone."""
    ranked_by: Literal["lexical", "judge"] = "lexical"
    """What put it first: shared words ("lexical": a pointer for the reader, not part of the verdict), or the
    judge's probability ("judge")."""


class AlignmentVerdict(_Model):
    claim: str
    supported: bool
    reason: str
    probability: float | None = None
    """The judge's probability that the source supports the claim (None if the judge gives none)."""
    window: int | None = None
    """For a source judged in windows: the window that supports the claim, or if none does, the one
    that came closest. None when the source was judged whole."""
    unmatched: list[str] = []
    """Numbers and names of the claim found nowhere in the source (``literals``): a claim with any is
    not supported, whatever the judge's probability."""
    evidence: list[Evidence] = []
    """Where the claim stands in the source. With ``verification`` "whole": the sentence sharing most with it
    (in the window that supports it, for a windowed source), lexical, or none if it shares no word. With
    "evidence" or "both": the sentences the judge was asked about alone, the most supportive first."""
    whole_probability: float | None = None
    """With ``verification`` "both": the judge's probability against the whole source (its best window), which
    ``probability`` averages with the best evidence sentence's. None otherwise."""

    @property
    def support(self) -> float:
        """The claim's support as its verdict sees it: the judge's probability, or 0 for a claim the
        literal check refused (unsupported at any threshold, whatever the judge said)."""
        return 0.0 if self.unmatched else self.probability or 0.0


class CoverageVerdict(_Model):
    question: str
    answered: bool
    reason: str
    probability: float | None = None
    """The judge's probability that the summary answers the question "yes"."""
    evidence: list[Evidence] = []
    """The source sentence that answers the question (or states the key fact), by shared words; none if the
    question shares no word with the source. Found without the judge: coverage never sees the source."""


class DroppedQuestion(_Model):
    """A generated question or key fact coverage did not ask: the source itself does not answer it "yes", or it asks
    again what an earlier question or fact asks."""

    question: str
    reason: str
    probability: float | None = None
    """The judge's probability that the source answers the question "yes" (None for a repeat)."""


class PreprocessStepResult(_Model):
    alignment: list[AlignmentVerdict]
    questions: list[str]
    """The questions coverage asks (the first ``max_questions``), after the dropped ones are taken out."""
    dropped_questions: list[DroppedQuestion] = []
    """Generated questions, and key facts as coverage would ask them ("Is it true that ...?"), that the
    source itself does not answer "yes" (with ``question_check``): never asked of the summary."""
    highlights: list[str] = []
    """With ``key_facts``: the short summary the judge wrote of the source (its sentences)."""
    key_facts: list[str] = []
    """With ``key_facts``: the single facts of the highlights that the source answers "yes" (with
    ``question_check``; the others are in ``dropped_questions``). Coverage asks each ("Is it true that ...?")
    after the questions, so the coverage verdicts hold the questions' verdicts, then the facts'."""
    key_facts_failed: list[str] = []
    """With ``key_facts``: why the judge's highlights of the source (or of a window) failed, e.g. ran to
    their token cap. That part of the source gave no key facts; coverage asked its questions alone."""


class AnalyzeStepResult(_Model):
    coverage: list[CoverageVerdict]
    left_out: list[SourceSentence] = []
    """What the summary left out: the source's sentences that are the evidence of no answered question or key
    fact and of no supported claim, in source order."""


class SourceWindow(_Model):
    """One window of a source too long for the judge's context."""

    index: int
    start: int
    """Character offsets in the source: source[start:end]."""
    end: int
    tokens: int
    questions: int
    """Questions drawn from this window."""


class StepStats(_Model):
    """What one pipeline step cost; prompt tokens count only those the engine evaluated."""

    step: str
    calls: int = 0
    prompt_tokens: int = 0
    reused_prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached_calls: int = 0
    """Calls answered by the on-disk judge-call cache instead of the model."""


QuestionSetSource = Literal["generated", "file", "given"]


class QuestionSetOrigin(_Model):
    """Where a run got the question set coverage asked."""

    origin: QuestionSetSource
    """"generated" (by this judge, in this run), "file" (a question file) or "given" (the API's or a record's
    ``questions``)."""
    file: str | None = None
    """The question file, as given."""
    file_sha256: str | None = None
    """sha256 of the question file's text: which version of it was read."""
    line: int | None = None
    written_by: dict[str, Any] | None = None
    """The question set's own provenance: the judge, reference or person that wrote it."""


class Provenance(_Model):
    """Everything needed to reproduce the result: same input + this = same result."""

    localsumm_version: str
    model: str
    model_path: str | None
    model_sha256: str | None
    engine: str | None = None
    """The engine and its build (e.g. "llama-cpp-python 0.3.36, AVX2 AVX512 ..."): kernels differ by
    instruction set in the last bits, which can move a verdict probability."""
    prompt_version: str
    language: str | None
    """The summary's language (ISO 639-1): its claims and its coverage questions are written in it.
    None when nothing was judged."""
    seed: int
    thresholds: dict[str, float]
    max_questions: int
    scale: float
    literal_check: bool
    """Whether a claim naming a number or name absent from the source was refused (``literals``)."""
    scoring: ScoringRule
    """How verdicts made the dimensions: "count" (verdicts at their threshold), "graded" (a verdict near its
    threshold in proportion) or "facts" (questions counted, facts asked as statements by their probability)."""
    claims: ClaimUnit
    """What alignment judged: the summary's "sentences", or the claims the judge "extracted"."""
    question_check: bool
    """Whether questions and key facts the source does not answer "yes" were dropped."""
    key_facts: bool
    """Whether the source's key facts were asked beside its questions."""
    verification: Verification
    """What each claim was judged against: the "whole" source, its top "evidence" sentences alone, or "both"."""
    steps: list[StepStats]
    shared_steps: list[str] = []
    """Steps reused from an earlier evaluation in this process (e.g. the source's question set)."""
    source_windows: list[SourceWindow] | None = None
    """How a source longer than the judge's context was cut; None when it was judged whole."""
    questions: QuestionSetOrigin
    """Where the questions came from."""


class SummarizationResult(_Model):
    score: float
    reason: str
    alignment_score: float
    coverage_score: float
    scorable: bool
    preprocess_step_result: PreprocessStepResult
    analyze_step_result: AnalyzeStepResult
    provenance: Provenance

    @property
    def seconds(self) -> float:
        return sum(step.seconds for step in self.provenance.steps)

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> SummarizationResult:
        """A result as a results file stores it (snake_case), those of earlier versions upgraded first."""
        return cls.model_validate(upgrade(data))

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        """Plain data; ``camel=True`` uses the reference's keys (preprocessStepResult, ...)."""
        return self.model_dump(mode="json", by_alias=camel)

    def to_json(self, *, camel: bool = False, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(camel=camel), indent=indent, ensure_ascii=False)


# What a result written before each setting existed was scored with: the setting did not exist, so it was
# off, or (claims) the one way there was. Results of 0.3.0 and later record every one of them.
_BEFORE_THE_SETTING: dict[str, Any] = {
    "language": None,  # not told apart yet (they were English)
    "literal_check": False,
    "scoring": "count",
    "claims": "extracted",
    "question_check": False,
    "key_facts": False,
    "verification": "whole",
    "questions": {"origin": "generated"},
}


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A stored result (snake_case) with the provenance fields that results of earlier versions lack filled in
    with what those versions did; a result of this version is returned unchanged."""
    provenance = data.get("provenance")
    if not isinstance(provenance, dict):
        return data
    missing = {k: v for k, v in _BEFORE_THE_SETTING.items() if k not in provenance}
    if not missing:
        return data
    return {**data, "provenance": {**provenance, **missing}}
