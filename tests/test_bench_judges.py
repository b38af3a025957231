"""`bench judges`' logic with rule-following judges: a pair's difference is significant where one judge is clearly
better, and not where the judges are the same. The llama.cpp and hosted paths of the command are tested for real in
test_openai.py (a local and a loopback hosted judge); these judges only make the verdicts' relation to the labels
known in advance."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from localsumm.bench.judges import Price, parse_price, run_judges, swap_p_value
from localsumm.bench.judges_page import html_page, markdown, write_report
from localsumm.errors import ConfigError, ModelError
from localsumm.protocol import JudgeCall, JudgeInfo, Messages, T, content_text

MARK = "zebra"
"""The word that makes a summary unfaithful in the data below; the careful judge refuses claims that hold it."""


class RuleJudge:
    """A judge whose verdicts follow a rule: "careful" refuses what mentions ``MARK``; "coin" answers by a hash of
    the prompt (a judge that has learnt nothing)."""

    def __init__(self, name: str, rule: str) -> None:
        self.info = JudgeInfo(name=name)
        self.context_size = 32768
        self.rule = rule

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _call(self, step: str, messages: Messages, output: str) -> JudgeCall:
        prompt = "\n".join(content_text(m["content"]) for m in messages)
        return JudgeCall(step, prompt, output, self.count_tokens(prompt), 0, 3, 0.01)

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        fields = output_type.model_fields
        data = {"claims": ["A claim."]} if "claims" in fields else {"questions": ["What did the mill make?"]}
        if "summary" in fields:
            data = {"summary": ["The mill made paper."]}
        elif "facts" in fields:
            data = {"facts": ["The mill made paper."]}
        value = output_type.model_construct(**data)
        return value, self._call(step, messages, value.model_dump_json())

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        last = content_text(messages[-1]["content"])
        if step == "answerable":
            p = 0.9
        elif self.rule == "careful":
            p = 0.1 if MARK in last else 0.9
        else:
            p = (zlib.crc32(last.encode()) % 100) / 100
        return p, self._call(step, messages, f"{p:.2f}")


def labelled(path: Path, documents: int = 12, per_document: int = 4) -> Path:
    """SummEdits-like rows: per document, half the summaries faithful (1) and half naming the zebra (0)."""
    rows = []
    for d in range(documents):
        source = f"Mill {d} opened in 18{d:02d}. It made paper. It had {d + 2} workers."
        for k in range(per_document):
            faithful = k % 2 == 0
            summary = f"Mill {d} made paper." if faithful else f"Mill {d} made a {MARK} in version {k}."
            rows.append(
                {
                    "id": f"d{d}s{k}",
                    "source": source,
                    "summary": summary,
                    "label_alignment": 1.0 if faithful else 0.0,
                    "meta": {"doc_id": f"doc{d}", "system": f"sys{k}"},
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


SETTINGS = {"claims": "sentences", "key_facts": False, "literal_check": False, "cache": False}


def test_a_clearly_better_judge_is_significant_and_the_same_judge_twice_is_not(tmp_path):
    data = labelled(tmp_path / "summedits.dev.jsonl")
    judges = [RuleJudge("careful", "careful"), RuleJudge("coin", "coin"), RuleJudge("careful", "careful")]
    report = run_judges(judges, [data], tmp_path / "out", prices={"coin": Price(1.0, 2.0)}, **SETTINGS)
    assert report.judges == ["careful", "coin", "careful #2"]
    auc = {f.predictor: f.value for f in report.figures if f.measure == "ROC-AUC"}
    assert auc["careful"] == 1.0 and auc["careful #2"] == 1.0 and auc["coin"] < 0.8
    assert "baseline: summary length" in auc  # the baselines, on the same items
    pairs = {(p.first, p.second): p for p in report.pairs}
    worse = pairs[("careful", "coin")]
    assert worse.difference < 0 and worse.high < 0 and worse.significant and worse.documents == 12
    same = pairs[("careful", "careful #2")]
    assert same.difference == 0 and same.p_value == 1.0 and not same.significant
    assert pairs[("coin", "careful #2")].significant

    # Against the reference: the same judge agrees perfectly on the reference's own claims; the coin does not.
    kappa = {a.judge: a for a in report.agreement}
    assert kappa["careful #2"].kappa_claims == 1.0 and kappa["careful #2"].claims == 48
    assert kappa["coin"].kappa_claims < 0.5 and kappa["coin"].systems == 4
    costs = {c.judge: c for c in report.costs}
    assert costs["careful"].items == 48 and costs["careful"].dollars is None and costs["careful"].new_sources == 12
    coin = costs["coin"]
    assert coin.dollars == pytest.approx((coin.prompt_tokens * 1.0 + coin.completion_tokens * 2.0) / 1e6)
    # Where they disagree most: an unfaithful summary the coin let through, with both verdicts.
    apart = [d for d in report.disagreements if d.judge == "coin"]
    assert apart and all(abs(d.scores[0] - d.scores[1]) > 0 for d in apart)
    assert any(kind == "claim" and ref != theirs for d in apart for kind, _, ref, theirs in d.verdicts)

    text = markdown(report)
    assert "| summedits | label_alignment | ROC-AUC | coin - careful |" in text and "**significant**" in text
    written = write_report(report, tmp_path / "out")
    assert json.loads(written[1].read_text())["judges"] == report.judges
    assert "Where the judges disagree most" in html_page(report)


def test_a_rerun_scores_nothing_again_and_a_price_for_no_judge_is_refused_first(tmp_path):
    data = labelled(tmp_path / "summedits.dev.jsonl", documents=3)
    judges = [RuleJudge("careful", "careful"), RuleJudge("coin", "coin")]
    run_judges(judges, [data], tmp_path / "out", **SETTINGS)
    files = sorted((tmp_path / "out" / "results").glob("*.jsonl"))
    before = {f.name: f.read_text() for f in files}
    again = run_judges(judges, [data], tmp_path / "out", **SETTINGS)
    assert {f.name: f.read_text() for f in files} == before  # resumed: nothing scored or asked twice
    assert again.datasets == {"summedits": 12}
    with pytest.raises(ConfigError, match="--price for cion: not a --judge given"):
        run_judges(judges, [data], tmp_path / "other", prices={"cion": Price(1, 1)}, **SETTINGS)
    assert not (tmp_path / "other").exists() or not any((tmp_path / "other").rglob("*.jsonl"))


def test_a_judge_that_cannot_be_opened_is_refused_before_any_judge_scores(tmp_path):
    data = labelled(tmp_path / "summedits.dev.jsonl", documents=2)
    with pytest.raises(ModelError, match="no-such-judge"):
        run_judges([RuleJudge("careful", "careful"), "no-such-judge"], [data], tmp_path / "out", **SETTINGS)
    assert not (tmp_path / "out").exists()


def test_prices_are_read_or_refused_plainly():
    assert parse_price("openai:gpt-4o=2.5/10") == ("openai:gpt-4o", Price(2.5, 10.0))
    for wrong in ("gpt", "gpt=2.5", "gpt=a/b", "=1/2", "gpt=-1/2"):
        with pytest.raises(ConfigError, match="write NAME=IN/OUT"):
            parse_price(wrong)


def test_the_document_swap_test_on_known_values():
    rng = np.random.default_rng(1)
    labels = np.tile([1.0, 0.0, 1.0, 0.0], 10)
    docs = np.repeat([f"d{k}" for k in range(10)], 4)
    good = labels * 0.8 + rng.random(40) * 0.1
    noise = rng.random(40)
    assert swap_p_value("ROC-AUC", noise, good, labels, docs) < 0.01
    assert swap_p_value("ROC-AUC", good, good, labels, docs) == 1.0
    # Per-document correlations: the same, document by document.
    assert swap_p_value("pearson per document", noise, good, labels, docs) < 0.01
    # A judge that orders the items alike on another scale is the same judge to a rank measure, and to Pearson
    # when the scale is linear: the swap compares the judges, not their scales.
    squeezed = 0.9 + good / 10
    assert swap_p_value("ROC-AUC", good, squeezed, labels, docs) == 1.0
    assert swap_p_value("spearman", good, squeezed**3, labels, docs) == 1.0
    assert swap_p_value("pearson", good, squeezed, labels, docs) == 1.0
