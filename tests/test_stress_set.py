"""The paraphrase stress set keeps the rules it was written to (benchmarks/data/paraphrase/make.py): pure, no model."""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .conftest import load_script


def _make() -> ModuleType:
    return load_script("benchmarks/data/paraphrase/make.py")


def test_the_stress_set_passes_its_checks() -> None:
    make = _make()
    records = make.read_jsonl(make.OUT)
    bad, _ = make.check(records)
    assert bad == []
    assert len(make.pairs_of(records)) >= 24
    assert sum(r["meta"]["part"] == "facts" for r in records) == 96


def test_the_originals_are_the_systems_sets_summaries_and_the_file_is_what_make_builds() -> None:
    make = _make()
    assert make.SYSTEMS.exists(), f"the systems set is not at {make.SYSTEMS}"
    assert make.OUT.read_text(encoding="utf-8") == make.build(make.SYSTEMS)
    bad, _ = make.check(make.read_jsonl(make.OUT), make.read_jsonl(make.SYSTEMS))
    assert bad == []


def test_the_checks_catch_a_copied_paraphrase_a_lost_number_and_a_short_acu_list() -> None:
    make = _make()
    records = make.read_jsonl(make.OUT)
    pair = next(iter(make.pairs_of(records).values()))
    original, paraphrase = pair["original"], pair["paraphrase"]

    def violations(change: Callable[[list[dict[str, Any]]], None]) -> list[str]:
        changed = copy.deepcopy(records)
        change(changed)
        bad: list[str] = make.check(changed)[0]
        return bad

    def copy_original(rs: list[dict[str, Any]]) -> None:
        next(r for r in rs if r["id"] == paraphrase["id"])["summary"] = original["summary"]

    def lose_number(rs: list[dict[str, Any]]) -> None:
        r = next(r for r in rs if r["id"] == paraphrase["id"])
        r["summary"] = r["summary"].replace("2016", "next year's")

    def drop_acu(rs: list[dict[str, Any]]) -> None:
        next(r for r in rs if r["meta"]["part"] == "facts")["meta"]["reference_acus_general"].pop()

    assert any("does not fall" in v for v in violations(copy_original))
    assert any("lacks the original's 2016" in v for v in violations(lose_number))
    assert any("general ACUs for" in v for v in violations(drop_acu))
