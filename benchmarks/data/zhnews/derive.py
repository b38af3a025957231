"""Derive the labelled Chinese set (benchmarks/data/zhnews.jsonl) from hand-written pairs, by rule.

    .venv/bin/python benchmarks/data/zhnews/derive.py           # writes benchmarks/data/zhnews.jsonl
    .venv/bin/python benchmarks/data/zhnews/derive.py --check   # fails if the file is not what the rules give

``pairs.jsonl`` holds 22 short news-style sources written for this project
(fictional places, people and firms) and a faithful summary of each, every
sentence of it stated in the source. Each pair gives one consistent item (the
summary as written) and up to three inconsistent ones, SummEdits-style: one
sentence of the summary changed by one rule, so that the label holds by
construction:

- ``number``: the first Arabic number of the last sentence that has one is
  changed (a year moves back two, a month forward three, a percentage by seven, any other number is
  multiplied by 1.5 or, for a decimal, raised by 0.5), to a value the source
  never states;
- ``name``: the person named in the summary (``names``) becomes one the
  source never mentions;
- ``antonym``: the first word of change found (增长/下降, 提高/降低, 缩短/延长,
  上涨/下跌, 扩大/缩小, 没有/有, 首次/再次) is replaced by its opposite;
- ``numeral``, where no antonym applies: a Chinese numeral is changed
  (五亿 -> 八亿), never a weekday's.

The rules skip an edit whose result the source would still support (the new
number or name occurs in it), so every inconsistent item is unsupported.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from localsumm.text import sentences

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "zhnews.jsonl"
STOCK_NAMES = ["罗斌", "钱芳", "秦川", "贺军", "姚静", "龚平", "温磊", "严梅"]
ANTONYMS = [
    ("增长", "下降"),
    ("下降", "增长"),
    ("提高", "降低"),
    ("缩短", "延长"),
    ("延长", "缩短"),
    ("上涨", "下跌"),
    ("下跌", "上涨"),
    ("扩大", "缩小"),
    ("没有发生", "发生了"),
    ("没有", "有"),
    ("增加", "减少"),
    ("首次", "再次"),
]
NUMERAL_SWAP = str.maketrans("二三四五六七八九", "五七八八九三二四")
_ARABIC = re.compile(r"\d+(?:\.\d+)?")
# Not a weekday (周四, 星期四): 周八 is no day at all.
_NUMERALS = re.compile(r"(?<![周期])[二三四五六七八九]")


def changed_number(sentence: str, source: str) -> str | None:
    match = _ARABIC.search(sentence)
    if not match:
        return None
    text, after = match.group(), sentence[match.end() : match.end() + 1]
    if "." in text:
        new = f"{float(text) + 0.5:g}"
    elif after == "年" and len(text) == 4:
        new = str(int(text) - 2)
    elif after == "月":
        new = str((int(text) + 2) % 12 + 1)
    elif after == "%":
        new = str(int(text) + 7 if int(text) <= 93 else int(text) - 7)
    else:
        new = str(int(text) * 3 // 2 if int(text) > 1 else int(text) + 2)
    if new in source:
        return None
    return sentence[: match.start()] + new + sentence[match.end() :]


def changed_name(sentence: str, names: list[str], source: str, index: int) -> str | None:
    for name in names:
        if name in sentence:
            stock = next(n for n in STOCK_NAMES[index % len(STOCK_NAMES) :] + STOCK_NAMES if n not in source)
            return sentence.replace(name, stock)
    return None


def changed_word(sentence: str, source: str) -> str | None:
    for word, opposite in ANTONYMS:
        if word in sentence:
            new = sentence.replace(word, opposite, 1)
            if new not in source:
                return new
    return None


def changed_numeral(sentence: str, source: str) -> str | None:
    match = _NUMERALS.search(sentence)
    if match:
        new = sentence[: match.start()] + match.group().translate(NUMERAL_SWAP) + sentence[match.end() :]
        if new[match.start() :][:3] not in source:
            return new
    return None


def variants(pair: dict, index: int) -> list[dict]:
    summary, source = pair["summary"], pair["source"]
    said = sentences(summary, "zh")
    items = [item(pair, "original", summary, None, 1.0)]
    edits = {
        "number": lambda s: changed_number(s, source),
        "name": lambda s: changed_name(s, pair["names"], source, index),
        "antonym": lambda s: changed_word(s, source),
        "numeral": lambda s: changed_numeral(s, source),
    }
    used: set[int] = set()
    for kind, edit in edits.items():
        if kind == "numeral" and any(it["meta"]["edit"] == "antonym" for it in items):
            continue  # the third edit is an antonym where the summary has one, else a Chinese numeral
        # The last sentences first, and one edit per sentence where the summary allows it.
        order = sorted(range(len(said)), key=lambda i: (i in used, -i))
        for i in order:
            new = edit(said[i])
            if new is not None and new != said[i]:
                used.add(i)
                changed = summary.replace(said[i], new, 1)
                items.append(item(pair, kind, changed, i, 0.0))
                break
    return items


def item(pair: dict, kind: str, summary: str, sentence: int | None, label: float) -> dict:
    return {
        "id": f"zhnews:{pair['doc_id']}:{kind}",
        "dataset": "zhnews",
        "source": pair["source"],
        "summary": summary,
        "label_alignment": label,
        "label_coverage": None,
        "meta": {"doc_id": pair["doc_id"], "edit": kind, "changed_sentence": sentence, "language": "zh"},
    }


def derive() -> str:
    pairs = [json.loads(line) for line in (HERE / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if line]
    lines = [json.dumps(it, ensure_ascii=False) for i, pair in enumerate(pairs) for it in variants(pair, i)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if zhnews.jsonl differs from what the rules give")
    args = parser.parse_args()
    text = derive()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is not what {Path(__file__).name} derives: run it without --check", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10))} items)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
