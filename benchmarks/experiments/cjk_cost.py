"""What a Chinese evaluation costs beside an English one of the same length in characters.

    .venv/bin/python benchmarks/experiments/cjk_cost.py [--rounds 2] [--model NAME]

The Chinese example (``examples/zh/``) and the English one (``examples/``) cut
to the same number of characters at a sentence end, source and summary alike,
scored alternately ``--rounds`` times by one judge, each time by a fresh scorer
with no cache (a new source, as a first evaluation is). Printed per language:
characters, judge tokens, tokens per character, judge calls, generated tokens
and seconds per evaluation (median), and the Chinese / English ratios.
"""

from __future__ import annotations

import argparse
import statistics

from common import ROOT

from localsumm import create_summarization_scorer
from localsumm.backends import open_judge
from localsumm.text import sentences


def cut_to(text: str, chars: int) -> str:
    """The first sentences of ``text`` whose length first reaches ``chars``."""
    kept: list[str] = []
    for sentence in sentences(text):
        if sum(map(len, kept)) >= chars:
            break
        kept.append(sentence)
    return " ".join(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--model", default=None, help="registry name or .gguf path (default: the default judge)")
    args = parser.parse_args()

    zh_source = (ROOT / "examples" / "zh" / "source.txt").read_text(encoding="utf-8")
    zh_summary = (ROOT / "examples" / "zh" / "summary.txt").read_text(encoding="utf-8").strip()
    en_source = cut_to((ROOT / "examples" / "source.txt").read_text(encoding="utf-8"), len(zh_source))
    en_summary = cut_to((ROOT / "examples" / "summary.txt").read_text(encoding="utf-8"), len(zh_summary))
    pairs = {"zh": (zh_source, zh_summary), "en": (en_source, en_summary)}

    judge = open_judge(args.model)
    runs: dict[str, list[tuple[float, int, int, int]]] = {lang: [] for lang in pairs}
    for _ in range(args.rounds):
        for lang, (source, summary) in pairs.items():
            scorer = create_summarization_scorer(judge, cache=False)
            result = scorer.run(input=source, output=summary)
            steps = result.provenance.steps
            runs[lang].append((
                result.seconds, sum(s.calls for s in steps), sum(s.completion_tokens for s in steps),
                sum(s.prompt_tokens for s in steps),
            ))

    print(f"judge: {judge.info.name}; {args.rounds} rounds, alternating; a fresh scorer per evaluation")
    print("| language | source chars | summary chars | source tokens | tokens per char | judge calls "
          "| generated tokens | evaluated prompt tokens | seconds per evaluation (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for lang, (source, summary) in pairs.items():
        seconds = statistics.median(r[0] for r in runs[lang])
        calls, generated, prompt = runs[lang][-1][1:]
        tokens = judge.count_tokens(source)
        medians[lang] = (seconds, tokens, generated, prompt)
        print(f"| {lang} | {len(source)} | {len(summary)} | {tokens} | {tokens / len(source):.2f} | {calls} "
              f"| {generated} | {prompt} | {seconds:.1f} |")
    (zs, zt, zg, zp), (es, et, eg, ep) = medians["zh"], medians["en"]
    print(f"zh / en: seconds {zs / es:.2f}x, source tokens {zt / et:.2f}x, generated tokens {zg / max(eg, 1):.2f}x, "
          f"evaluated prompt tokens {zp / max(ep, 1):.2f}x")


if __name__ == "__main__":
    main()
