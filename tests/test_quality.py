"""`bench quality`: figures from labelled data, with a scripted judge and on the real engine."""

import json

import pytest

from localsumm.bench.items import bigram_overlap
from localsumm.bench.quality import run_quality
from localsumm.runs.results import read_results

from .conftest import SOURCE, SUMMARY, run_cli
from .scripted import ScriptedJudge


def labelled(tmp_path, n_docs: int = 3, per_doc: int = 4):
    rows = []
    for d in range(n_docs):
        for k in range(per_doc):
            rows.append(
                {
                    "id": f"d{d}-{k}",
                    "dataset": "toy",
                    "source": f"Document {d}. {SOURCE}",
                    "summary": f"{SUMMARY} Version {k}.",
                    "label_alignment": float(k % 2),
                    "label_coverage": k / per_doc,
                    "meta": {"doc_id": f"d{d}"},
                }
            )
    path = tmp_path / "toy.dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, rows


def test_figures_follow_a_judge_that_agrees_with_the_labels(tmp_path):
    data, rows = labelled(tmp_path)
    judge = ScriptedJudge(
        claims=["A claim."],
        questions=["Is it one?", "Is it two?", "Is it three?", "Is it four?"],
        # One claim per item: supported exactly when the label says so.
        claim_probabilities=[0.9 if r["label_alignment"] else 0.1 for r in rows],
        # Coverage rises with the coverage label: k of 4 questions answered.
        question_probabilities=[
            p for r in rows for p in [1.0] * int(r["label_coverage"] * 4) + [0.0] * (4 - int(r["label_coverage"] * 4))
        ],
    )
    figures, written = run_quality([data], tmp_path / "out", model=judge, claims="extracted")
    by = {(f.label, f.predictor, f.measure): f for f in figures}
    assert by[("label_alignment", "weakest claim probability", "ROC-AUC")].value == pytest.approx(1.0)
    assert by[("label_alignment", "all claims supported (threshold 0.5)", "balanced accuracy")].value == pytest.approx(
        1.0
    )
    assert by[("label_alignment", "alignment", "spearman")].value == pytest.approx(1.0)
    assert by[("label_coverage", "coverage", "pearson")].value == pytest.approx(1.0)
    # Verdicts of 0 or 1: their mean probability is the count's share.
    assert by[("label_coverage", "mean verdict probability (diagnostic, not the score)", "pearson")].value == (
        pytest.approx(1.0)
    )
    assert not [f for f in figures if "minus mean verdict" in f.predictor]  # only baselines are subtracted
    per_doc = by[("label_coverage", "coverage", "spearman per document")]
    assert per_doc.value == pytest.approx(1.0)
    docs = len({r["meta"]["doc_id"] for r in rows})
    assert per_doc.documents == docs and per_doc.constant_documents == 0
    assert by[("label_coverage", "coverage", "spearman")].documents is None  # pooled: no document count
    assert ("label_mean", "score", "spearman") in by
    assert ("label_alignment", "baseline: bigram overlap", "ROC-AUC") in by
    for f in figures:
        assert f.n == 12 and (f.low <= f.value <= f.high or f.value != f.value)
    names = {p.name for p in written}
    assert {"quality.md", "quality.json", "quality-toy.png"} <= names
    assert (tmp_path / "out" / "quality-toy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (
        "| toy | label_alignment | weakest claim probability | ROC-AUC | 1.000 |"
        in (tmp_path / "out" / "quality.md").read_text()
    )


def test_a_claim_the_literal_check_refused_ranks_as_unsupported(tmp_path):
    # Every claim gets 0.9 from the judge, but the inconsistent items name a year the source lacks:
    # the ranking figures must follow the verdicts, not the judge's probability alone.
    data, rows = labelled(tmp_path)
    for r in rows:
        r["summary"] = "It was founded in 1995." if r["label_alignment"] else "It was founded in 1897."
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    judge = ScriptedJudge(
        questions=["Is it one?"], claim_probabilities=[0.9] * len(rows), question_probabilities=[1.0] * len(rows)
    )
    figures, _ = run_quality([data], tmp_path / "out", model=judge)
    by = {(f.label, f.predictor, f.measure): f.value for f in figures}
    assert by[("label_alignment", "weakest claim probability", "ROC-AUC")] == pytest.approx(1.0)
    assert by[("label_alignment", "all claims supported (threshold 0.5)", "balanced accuracy")] == pytest.approx(1.0)


def test_a_verification_mode_is_measured_into_results_of_its_own(tmp_path):
    data, rows = labelled(tmp_path)
    judge = ScriptedJudge(questions=["Is it one?"], claim_probabilities=[0.9] * 100, evidence_probabilities=[0.8] * 400)
    out = tmp_path / "out"
    run_quality([data], out, model=judge)
    run_quality([data], out, model=judge, verification="both")  # refused as a resume if it shared the file
    whole, both = sorted(out.glob("toy.*.jsonl"))
    assert (whole.name, both.name) == ("toy.scripted.jsonl", "toy.scripted.verification-both.jsonl")
    [first, *_] = read_results(both)
    assert first.result is not None and first.result.provenance.verification == "both"
    assert first.result.preprocess_step_result.alignment[0].whole_probability == 0.9


def test_bigram_overlap():
    assert bigram_overlap("the cat sat", "the cat sat on the mat") == 1.0
    assert bigram_overlap("the dog sat", "the cat sat on the mat") == 0.0
    assert bigram_overlap("one", "anything") == 0.0


def test_bench_quality_on_the_real_engine(tmp_path):
    data, _ = labelled(tmp_path, n_docs=1, per_doc=2)
    out = tmp_path / "out"
    done = run_cli(
        "bench",
        "quality",
        "--data",
        str(data),
        "--model",
        "smollm2-135m",
        "--limit",
        "2",
        "--out",
        str(out),
        "--no-cache",
    )
    assert done.returncode == 0, done.stderr
    assert "| toy | label_coverage | coverage | pearson |" in done.stdout
    lines = (out / "toy.smollm2-135m.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["localsumm"]["status"] == "scored" for line in lines)


def test_agreement_of_two_judges_on_the_same_claims_and_questions(tmp_path):
    from localsumm.bench.agree import run_agree

    data, rows = labelled(tmp_path, n_docs=1, per_doc=2)
    common = dict(claims=["Claim one.", "Claim two."], questions=["Is it one?", "Is it two?"])
    # Per item, judge A rules on its own claims; B rules on its own, then on A's (its second batch).
    a = ScriptedJudge(**common, claim_probabilities=[0.9, 0.1] * 2, question_probabilities=[0.9, 0.1] * 2)
    b = ScriptedJudge(
        **common, claim_probabilities=[0.9, 0.1, 0.9, 0.1] * 2, question_probabilities=[0.9, 0.1, 0.1, 0.9] * 2
    )
    agreement = run_agree(data, a, b, claims="extracted")
    assert (agreement.items, agreement.claims, agreement.questions) == (2, 4, 4)
    assert agreement.kappa_claims == pytest.approx(1.0)
    assert agreement.kappa_questions == pytest.approx(-1.0)


def test_the_chinese_set_is_what_its_rules_derive_and_each_edit_changes_one_sentence():
    import importlib.util
    from pathlib import Path

    from localsumm.text import sentences

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("derive_zhnews", root / "benchmarks/data/zhnews/derive.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    text = derive.derive()
    assert (root / "benchmarks/data/zhnews.jsonl").read_text(encoding="utf-8") == text
    rows = [json.loads(line) for line in text.splitlines()]
    originals = {r["meta"]["doc_id"]: r for r in rows if r["meta"]["edit"] == "original"}
    assert len(originals) >= 20 and all(r["label_alignment"] == 1.0 for r in originals.values())
    for row in rows:
        if row["meta"]["edit"] == "original":
            continue
        before, after = sentences(originals[row["meta"]["doc_id"]]["summary"], "zh"), sentences(row["summary"], "zh")
        assert row["label_alignment"] == 0.0 and len(before) == len(after)
        assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [row["meta"]["changed_sentence"]]


def test_localsumm_is_compared_with_each_baseline_on_the_same_resamples():
    from localsumm.bench.items import Item
    from localsumm.bench.quality import dataset_figures

    # Coverage follows the label; length follows it less; bigram overlap runs against it.
    items = [
        Item(
            doc=f"d{d}",
            score=0.5,
            alignment=0.5,
            coverage=k / 6 + d / 10,
            weakest_claim=0.5,
            label_alignment=None,
            label_coverage=k / 6 + (k % 2) / 12,
            bigram_overlap=(k * 5 % 6) / 6,
            length=float(k % 3),
        )
        for d in range(4)
        for k in range(6)
    ]
    by = {(f.predictor, f.measure): f for f in dataset_figures("toy", items, 0.5)}
    for baseline in ("baseline: summary length", "baseline: bigram overlap"):
        for measure in ("pearson", "pearson per document"):
            versus = by[(f"coverage minus {baseline}", measure)]
            assert versus.value == pytest.approx(by[("coverage", measure)].value - by[(baseline, measure)].value)
            assert versus.value > 0 and versus.low <= versus.value <= versus.high
            assert (versus.documents is None) == (measure == "pearson")
