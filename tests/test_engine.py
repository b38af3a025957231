"""scripts/engine.py, the set-up step that picks the llama.cpp build: flags, probe, fallback."""

from __future__ import annotations

import importlib.util
import platform
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("engine", ROOT / "scripts" / "engine.py")
engine = importlib.util.module_from_spec(spec)
sys.modules["engine"] = engine  # dataclasses look their module up while the class is made
spec.loader.exec_module(engine)

AVX2 = "sse4_2 avx avx2 fma f16c bmi2"
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the flag sets are x86-64's")


def test_a_cpu_without_avx512_gets_the_portable_build_only():
    assert engine.fast(set(AVX2.split())) is None
    assert engine.fast(set(f"{AVX2} avx_vnni".split())) is None


def test_avx512_extensions_are_enabled_only_where_the_cpu_reports_them():
    flags = set(f"{AVX2} avx512f avx512cd avx512bw avx512dq avx512vl avx512_vnni amx_tile amx_int8".split())
    build = engine.fast(flags)
    assert build.name == "avx512-vnni"
    assert "GGML_AVX512=ON" in build.options and "GGML_AVX512_VNNI=ON" in build.options
    assert not any("BF16" in o or "VBMI" in o or "AMX" in o for o in build.options)  # AMX is never enabled
    assert engine.fast(flags - {"avx512vl"}) is None  # GGML_AVX512 compiles for F, CD, BW, DQ and VL together


def test_a_probe_that_dies_of_sigill_is_reported_as_such(tmp_path):
    # The child process really dies of the signal a refused instruction raises.
    wheel = installed_wheel()
    ok, note = engine.probe(
        wheel,
        sys.executable,
        [],
        command=[sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"],
    )
    assert not ok and "SIGILL" in note


def test_a_fast_build_that_fails_its_probe_falls_back_to_the_portable_one(tmp_path, monkeypatch):
    installed = []
    monkeypatch.setattr(engine, "wheel_of", lambda build, python: tmp_path / f"{build.name}.whl")
    monkeypatch.setattr(engine, "probe", lambda wheel, python, models: (False, "the probe died of signal 4 (SIGILL)"))
    monkeypatch.setattr(engine, "install", lambda build, wheel, python, venv, note: installed.append(build.name))
    flags = set(f"{AVX2} avx512f avx512cd avx512bw avx512dq avx512vl".split())
    chosen = engine.choose(sys.executable, tmp_path, [tmp_path / "judge.gguf"], flags)
    assert chosen.name == "avx2" and installed == ["avx2"]


def test_the_installed_build_is_the_one_this_cpu_runs(small_judge):
    # What set-up chose: the marker file and the library loaded in this process agree.
    marker = Path(sys.prefix) / "localsumm-engine.json"
    if not marker.exists():
        pytest.skip("this venv was not set up by the Makefile")
    chosen = engine.installed_build(Path(sys.prefix))
    assert chosen in {engine.portable().name, getattr(engine.fast(engine.cpu_flags()), "name", None)}
    assert ("AVX512" in small_judge.build.split()) == chosen.startswith("avx512")


def installed_wheel() -> Path:
    wheels = sorted(engine.portable().wheels.glob("*.whl"))
    if not wheels:
        pytest.skip("no cached portable wheel (set up by the Makefile)")
    return wheels[-1]
