"""The docs that are generated from the code stay current."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _cli_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    module = _cli_reference()
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert module.render() == committed, (
        "docs/cli.md differs from the CLI's help texts: run `python scripts/cli_reference.py` "
        "(from the repository root, in the project's venv) and commit docs/cli.md"
    )
