"""What the constraint layer costs to prepare: outlines' token index per output schema.

    .venv/bin/python benchmarks/experiments/grammar_cost.py [--model NAME] [--bounded]

Times, for the claims and questions schemas as localsumm builds them (string
lengths kept out of the grammar): building the index from the vocabulary, and
loading it back from a pickle as the on-disk cache does. ``--bounded`` also
times the claims schema with its string maxLength inside the grammar, the
variant localsumm avoids.
"""

from __future__ import annotations

import argparse
import json
import pickle
import time

from outlines_core import Index
from outlines_core.json_schema import build_regex_from_schema


def timed(label: str, fn):
    start = time.perf_counter()
    value = fn()
    print(f"{label}: {time.perf_counter() - start:.2f} s", flush=True)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--bounded", action="store_true")
    args = parser.parse_args()

    from localsumm.backends import open_judge
    from localsumm.backends.grammar import JSON_WHITESPACE, schema_regex
    from localsumm.summarization.schemas import ClaimList, question_list

    judge = open_judge(args.model)
    vocabulary = timed(f"{args.model}: outlines vocabulary", judge.outlines_vocabulary)
    for name, output_type in (("claims", ClaimList), ("questions (10)", question_list(10))):
        index = timed(f"index for {name}", lambda: Index(schema_regex(output_type), vocabulary))
        data = pickle.dumps(index)
        timed(f"  load from a {len(data) / 1e6:.0f} MB pickle", lambda: pickle.loads(data))
    if args.bounded:
        regex = build_regex_from_schema(json.dumps(ClaimList.model_json_schema()), JSON_WHITESPACE)
        timed("index for claims with maxLength in the grammar", lambda: Index(regex, vocabulary))


if __name__ == "__main__":
    main()
