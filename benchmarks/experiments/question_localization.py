"""Do passage questions stay in their passage?

    LOCALSUMM_CACHE=... .venv/bin/python benchmarks/experiments/question_localization.py DATA.jsonl [--docs 12] [--model NAME] [--threads N]

(DATA.jsonl: a dev set, e.g. ``benchmarks/data/summeval.dev.jsonl``.)

For the first source of each of the first ``--docs`` documents that takes the
passage path, the scorer's questions step is asked passage by passage (through
the judge-call cache, so a source a scorer run already asked costs nothing).
Each question is assigned to the passage it shares the most content words
with; the figure is the share of questions whose closest passage is the one
they were asked about (chance is about 1/passages), and how many distinct
questions the source got.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from localsumm import create_summarization_scorer
from localsumm.files import read_jsonl
from localsumm.summarization import prompts
from localsumm.summarization.plan import QUESTIONS_PER_PASSAGE, question_passages, questions_token_budget
from localsumm.summarization.schemas import question_list
from localsumm.summarization.steplog import StepLog
from localsumm.text import content_words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--docs", type=int, default=12)
    parser.add_argument("--model", default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    judge = create_summarization_scorer(args.model, n_threads=args.threads, cache=True).judge
    seen: set[str] = set()
    own = asked = distinct = 0
    log, start = StepLog(None), time.perf_counter()
    for item in read_jsonl(args.data):
        doc = item["meta"]["doc_id"]
        parts = question_passages(item["source"], 10, judge.count_tokens, judge.context_size)
        if doc in seen or len(parts) < 2:
            continue
        if len(seen) == args.docs:
            break
        seen.add(doc)
        found = set()
        for i, passage in enumerate(parts):
            messages = prompts.passage_questions_messages(item["source"], passage, QUESTIONS_PER_PASSAGE)
            value, call = judge.generate(
                "questions", messages, question_list(QUESTIONS_PER_PASSAGE), questions_token_budget(QUESTIONS_PER_PASSAGE)
            )
            log.add(call)
            for question in value.questions:
                overlap = [len(content_words(question) & content_words(p)) for p in parts]
                closest = max(range(len(parts)), key=overlap.__getitem__)  # ties go to the earlier passage
                own += closest == i
                asked += 1
                found.add(question.strip().lower())
                print(f"{doc} passage {i + 1}/{len(parts)} closest {closest + 1} {overlap} {question}")
        distinct += len(found)
    print(
        f"\nquestions prompt {prompts.step_version('questions')}: {own}/{asked} questions ({own / max(asked, 1):.0%}) closest "
        f"to their own passage; {distinct} distinct; {len(seen)} sources; "
        f"{sum(s.prompt_tokens for s in log.steps.values())} prompt tokens evaluated, {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
