"""`localsumm bench systems` on a results file of the systems set, constructed from its own labels.

The shipped data's README states, from the labels alone, the figures the baselines and the experts' own
12-document means reach; the command must give them. A localsumm dimension built to equal an expert label
must rank the systems as the experts do (tau 1), and one built against it the other way round (tau -1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localsumm.bench.systems import CEILING, systems_report
from localsumm.errors import InputError
from localsumm.files import read_jsonl
from localsumm.runs.results import format_line

from .conftest import ROOT, run_cli
from .systems_data import result, write

DATA = ROOT / "benchmarks" / "data" / "summeval.systems.dev.jsonl"
EXPERTS = ROOT / "benchmarks" / "data" / "summeval.systems.experts100.json"
RECALL_DATA = ROOT / "benchmarks" / "data" / "realsumm.systems.dev.jsonl"
PYRAMID = ROOT / "benchmarks" / "data" / "realsumm.systems.pyramid100.json"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return read_jsonl(DATA)


def results_file(path: Path, records: list[dict], *, reverse_coverage: bool = False, failed: int = 0) -> Path:
    """Every record scored with its own labels as alignment and coverage (coverage 1 - label if reversed); the
    first ``failed`` lines failed."""
    lines = []
    for i, r in enumerate(records):
        coverage = 1 - r["label_coverage"] if reverse_coverage else r["label_coverage"]
        scored = None if i < failed else result(r["label_alignment"], coverage)
        lines.append(format_line(r, r["id"], result=scored, error=None if scored else "the judge failed"))
    return write(path, lines)


def figures(report) -> dict[tuple[str, str], float]:
    return {(f.expert, f.predictor): f.kendall for f in report.figures}


def test_the_data_readme_figures_and_a_perfect_predictor(tmp_path, records):
    report = systems_report(results_file(tmp_path / "r.jsonl", records), experts=EXPERTS)
    tau = figures(report)
    assert report.documents == 12 and len(report.systems) == 16
    assert tau[("relevance", "coverage")] == 1.0 and tau[("consistency", "alignment")] == 1.0
    # benchmarks/data/README.md: length 0.07 (relevance), the experts' 12 documents 0.73 against their 100.
    assert tau[("relevance", "length")] == pytest.approx(0.07, abs=0.005)
    assert tau[("relevance", CEILING + " against 100")] == pytest.approx(0.73, abs=0.005)
    # Bigram overlap, words split from punctuation: 0.27 / 0.30 (the README's 0.25 / 0.28 used its own tokens).
    assert tau[("relevance", "bigram overlap")] == pytest.approx(0.27, abs=0.01)
    assert tau[("consistency", "bigram overlap")] == pytest.approx(0.30, abs=0.01)
    for f in report.figures:
        assert f.kendall_interval is not None and f.accuracy_interval is not None
        assert -1 <= f.kendall_interval[0] <= f.kendall_interval[1] <= 1
        assert 0 <= f.accuracy_interval[0] <= f.accuracy_interval[1] <= 1
    perfect = next(f for f in report.figures if f.predictor == "coverage")
    assert perfect.accuracy == 1.0 and perfect.kendall_interval == (1.0, 1.0)
    assert all(experts == ours for experts, ours in report.ranks["relevance"].values())
    table = report.markdown()
    assert "| relevance | coverage | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] |" in table
    assert json.loads(report.to_json())["documents"] == 12


def test_a_reversed_predictor_and_failed_items(tmp_path, records):
    report = systems_report(results_file(tmp_path / "r.jsonl", records, reverse_coverage=True, failed=3))
    tau = figures(report)
    assert tau[("relevance", "coverage")] == -1.0
    assert report.excluded == {"failed": 3, "unscorable": 0}
    # The failed items' document is no longer every system's: 11 documents left, and no ceiling without --experts.
    assert report.documents == 11 and not any(CEILING in f.predictor for f in report.figures)
    ranks = report.ranks["relevance"]
    assert all(experts + ours == 17 for experts, ours in ranks.values())


def test_unlabelled_results_and_a_bad_experts_file_are_refused(tmp_path, records):
    path = results_file(tmp_path / "r.jsonl", records[:32])
    lines = [dict(line, label_coverage=None) for line in read_jsonl(path)]
    with pytest.raises(InputError, match="has no label_coverage: bench systems needs the experts' labels"):
        systems_report(write(tmp_path / "unlabelled.jsonl", [json.dumps(line) for line in lines]))
    (tmp_path / "experts.json").write_text('{"M0": {"relevance": 4}}')
    with pytest.raises(InputError, match="has no means of the systems"):
        systems_report(path, experts=tmp_path / "experts.json")


def test_the_command(tmp_path, records):
    path = results_file(tmp_path / "r.jsonl", records)
    out = tmp_path / "systems.json"
    done = run_cli("bench", "systems", "--results", str(path), "--resamples", "200", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "| mean rating | score |" in done.stdout and json.loads(out.read_text())["resamples"] == 200
    bad = run_cli("bench", "systems", "--results", str(DATA))
    assert bad.returncode == 3 and "no localsumm verdict" in bad.stderr and "Traceback" not in bad.stderr


def test_a_content_recall_set_gives_the_curators_figures(tmp_path):
    """REALSumm's systems, labelled with Lite-Pyramid recall only: coverage built to equal it ranks them as it
    does, and the baselines reach what benchmarks/data/README.md states from the labels alone."""
    records = read_jsonl(RECALL_DATA)
    fine = [f"Q{i}?" for i in range(100)]  # coverage in hundredths: the label, to two decimals
    lines = [
        format_line(r, r["id"], result=result(1.0, r["label_coverage"], questions=fine), error=None) for r in records
    ]
    report = systems_report(write(tmp_path / "r.jsonl", lines), experts=PYRAMID)
    tau = figures(report)
    assert report.documents == 12 and len(report.systems) == 24 and set(report.ranks) == {"content recall"}
    assert tau[("content recall", "coverage")] == 1.0
    assert tau[("content recall", "length")] == pytest.approx(0.475, abs=0.005)
    # Bigram overlap, words split from punctuation: 0.217 (the README's 0.225 used the curators' own tokens).
    assert tau[("content recall", "bigram overlap")] == pytest.approx(0.22, abs=0.01)
    # ROUGE-1 recall, counted, without stemming: 0.565 (the README's 0.572, its own tokens).
    assert tau[("content recall", "reference unigram recall")] == pytest.approx(0.57, abs=0.01)
    assert tau[("content recall", CEILING + " against 100")] == pytest.approx(0.529, abs=0.005)
    assert "| content recall | reference unigram recall | 0.57 [" in report.markdown()
    # A means file without a recall, and a file that mixes the two kinds of labels, are refused.
    (tmp_path / "means.json").write_text(json.dumps({s: {"relevance": 4} for s in report.systems}))
    with pytest.raises(InputError, match="has no recall"):
        systems_report(tmp_path / "r.jsonl", experts=tmp_path / "means.json")
    mixed = [json.loads(line) for line in lines]
    mixed[0]["label_alignment"] = 1.0
    with pytest.raises(InputError, match="some items have label_alignment and some do not"):
        systems_report(write(tmp_path / "mixed.jsonl", [json.dumps(line) for line in mixed]))
