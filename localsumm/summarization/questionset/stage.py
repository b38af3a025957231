"""The question-set stage: which set each source is asked, and from where.

One provider per scorer (one judge, one prompt version, one set of options) answers
"what does coverage ask every summary of this source?", in this order:

1. the set given with the run (the API's or a record's ``questions``);
2. the question file's line for the source (``Options.questions``);
3. otherwise the set the judge writes, once per source: kept by source hash and
   language, so every later summary of the source is asked the same set, which is
   what makes scores of one source's summaries comparable.

With ``questions_only``, a source the file lacks is refused instead of step 3.
"""

from __future__ import annotations

from collections import OrderedDict

from ...config.options import Options
from ...protocol import Judge
from ..plan import Plan
from ..result import QuestionSetOrigin
from ..steplog import StepLog
from .file import QUESTIONS_ONLY, QuestionFile
from .generate import Written, generate_question_set
from .model import ProvidedSet, QuestionSet, given_set, source_sha256

GIVEN = QuestionSetOrigin(origin="given")
GENERATED = QuestionSetOrigin(origin="generated")


class QuestionSetProvider:
    """The question set of each source, for one judge and one set of options."""

    def __init__(self, judge: Judge, options: Options, question_file: QuestionFile | None, kept: int = 1024) -> None:
        self.judge = judge
        self.options = options
        self.question_file = question_file
        self.kept = kept
        """How many judge-written sets are kept (a batch's sources), the least recently asked dropped first."""
        self._written: OrderedDict[tuple[str, str], Written] = OrderedDict()

    def lookup(self, source: str, given: list[str] | QuestionSet | None = None) -> ProvidedSet | None:
        """The set given with the run, else the question file's, else None (the judge will write it); a source
        the file lacks is refused with ``questions_only``. No judge call."""
        if given is not None:
            question_set = given_set(given, source)
            return ProvidedSet(question_set, GIVEN.model_copy(update={"written_by": question_set.provenance or None}))
        if self.question_file is None:
            return None
        if self.options.questions_only:
            return self.question_file.require(source, QUESTIONS_ONLY)
        return self.question_file.find(source)

    def generated(self, source: str, plan: Plan, log: StepLog) -> ProvidedSet:
        """The set the judge writes of ``source`` for a summary in ``plan.language``."""
        return ProvidedSet(self.written(source, plan, log).question_set, GENERATED)

    def written(self, source: str, plan: Plan, log: StepLog) -> Written:
        """The set the judge writes of ``source``, once: a later call for the source reuses it (``log.shared``)."""
        key = (source_sha256(source), plan.language)
        written = self._written.get(key)
        if written is not None:
            self._written.move_to_end(key)
            log.shared.update(written.steps)
            return written
        written = generate_question_set(self.judge, source, plan, self.options, log)
        self._written[key] = written
        if len(self._written) > self.kept:
            self._written.popitem(last=False)
        return written
