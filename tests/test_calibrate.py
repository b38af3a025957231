"""Threshold calibration: fitted on half the documents, reported on the other half, stored per model file."""

import json

import pytest

from localsumm.bench.calibrate import LabelledItem, calibrate, split_documents
from localsumm.config.thresholds import store_override, threshold_override
from localsumm.protocol import Thresholds

from .conftest import run_cli
from .test_quality import labelled


def synthetic(n_docs: int = 8) -> list[LabelledItem]:
    items = []
    for d in range(n_docs):
        for k in range(4):
            consistent = k % 2 == 0
            items.append(
                LabelledItem(
                    doc=f"doc{d}",
                    # Consistent items' weakest claim sits at 0.6-0.7, inconsistent ones' at 0.2-0.3.
                    claim_probabilities=[0.95, (0.6 if consistent else 0.2) + 0.01 * d],
                    # k of 4 questions sit above 0.3; the label follows k.
                    question_probabilities=[0.35] * k + [0.1] * (4 - k),
                    label_alignment=1.0 if consistent else 0.0,
                    label_coverage=k / 4,
                )
            )
    return items


def test_documents_split_in_two_stable_disjoint_halves():
    docs = [f"d{i}" for i in range(10)] * 3
    fit, held = split_documents(docs)
    assert len(fit) == len(held) == 5 and not fit & held
    assert (fit, held) == split_documents(list(reversed(docs)))


def test_thresholds_fitted_on_half_improve_the_other_half():
    c = calibrate(synthetic(), Thresholds(alignment=0.9, coverage=0.5))
    assert 0.3 < c.fitted.alignment <= 0.61  # between the inconsistent and the consistent items' weakest claims
    assert 0.1 < c.fitted.coverage <= 0.35
    assert c.fit_documents == c.held_out_documents == 4 and c.held_out_items == 16
    assert c.held_out["alignment balanced accuracy"] == {"current": 0.5, "fitted": 1.0}
    assert c.held_out["coverage Pearson"]["fitted"] == pytest.approx(1.0)
    assert (
        c.held_out["coverage Pearson"]["current"] != c.held_out["coverage Pearson"]["current"]
    )  # nan: constant coverage


def test_without_labels_the_thresholds_stay():
    items = [LabelledItem("d", [0.4], [0.4], None, None), LabelledItem("e", [0.6], [0.6], None, None)]
    assert calibrate(items, Thresholds(0.5, 0.5)).fitted == Thresholds(0.5, 0.5)


def test_stored_thresholds_apply_to_that_model_file_only(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCALSUMM_CONFIG", str(tmp_path))
    store_override("abc", {"model": "m", "alignment": 0.3, "coverage": 0.7})
    assert threshold_override("abc") == Thresholds(0.3, 0.7)
    assert threshold_override("other") is None
    assert json.loads((tmp_path / "thresholds.json").read_text())["abc"]["model"] == "m"


def test_calibrate_on_the_real_engine_stores_what_open_judge_then_uses(tmp_path):
    from localsumm.backends import open_judge

    data, _ = labelled(tmp_path, n_docs=2, per_doc=2)
    env = {"LOCALSUMM_CONFIG": str(tmp_path / "config")}
    done = run_cli("calibrate", "--data", str(data), "--model", "smollm2-135m", "--out", str(tmp_path / "out"), env=env)
    assert done.returncode == 0, done.stderr
    assert "fitted on 1 documents" in done.stdout and "held-out" in done.stdout
    stored = json.loads((tmp_path / "config" / "thresholds.json").read_text())
    (entry,) = stored.values()
    assert entry["model"] == "smollm2-135m" and entry["calibrated_on"] == "toy.dev.jsonl"
    import os

    os.environ["LOCALSUMM_CONFIG"], previous = env["LOCALSUMM_CONFIG"], os.environ["LOCALSUMM_CONFIG"]
    try:
        assert open_judge("smollm2-135m").info.thresholds == Thresholds(entry["alignment"], entry["coverage"])
    finally:
        os.environ["LOCALSUMM_CONFIG"] = previous


def test_no_threshold_leaves_almost_every_verdict_on_one_side():
    from localsumm.bench.calibrate import MIN_SIDE, _candidates

    ps = [i / 100 for i in range(100)]
    candidates = _candidates(ps)
    assert candidates and all(
        sum(p < t for p in ps) >= MIN_SIDE * len(ps) and sum(p >= t for p in ps) >= MIN_SIDE * len(ps)
        for t in candidates
    )
    assert min(candidates) < 0.1 and max(candidates) > 0.9
