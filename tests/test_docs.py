"""The docs that are generated from the code stay current."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Any

from .conftest import ROOT, load_script


def _cli_reference() -> ModuleType:
    return load_script("scripts/cli_reference.py")


def test_cli_reference_is_current() -> None:
    module = _cli_reference()
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert module.render() == committed, (
        "docs/cli.md differs from the CLI's help texts: run `python scripts/cli_reference.py` "
        "(from the repository root, in the project's venv) and commit docs/cli.md"
    )


DOCS = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    ROOT / "benchmarks" / "RESULTS.md",
    *sorted((ROOT / "docs").glob("*.md")),
]


def _headings(path: Path) -> set[str]:
    """GitHub's anchors for a file's headings (punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    titles = re.findall(r"^#+ (.*)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", title.replace("`", "").strip().lower()).replace(" ", "-") for title in titles}


def test_docs_links_resolve() -> None:
    broken = []
    for doc in DOCS:
        text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.DOTALL)
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            target = (doc.parent / path).resolve() if path else doc
            if not target.exists() or (anchor and target.suffix == ".md" and anchor not in _headings(target)):
                broken.append(f"{doc.relative_to(ROOT)}: {link}")
    assert not broken, "links to files or headings that do not exist:\n" + "\n".join(broken)


def _flags(command: Any, path: list[str]) -> set[str]:
    import click

    for name in path:
        command = command.get_command(click.Context(command), name)
        assert command is not None, f"no command localsumm {' '.join(path)}"
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def test_readme_commands_use_existing_flags() -> None:
    """Every `localsumm ...` line in the README's code blocks names a real command and real flags."""
    import typer.main

    from localsumm.cli import app

    root = typer.main.get_command(app)
    groups = {"models", "bench"}
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.DOTALL)
    checked = 0
    for line in "\n".join(blocks).splitlines():
        words = line.split("#")[0].split()
        if "localsumm" not in words:
            continue
        words = words[words.index("localsumm") + 1 :]
        path = words[:2] if words and words[0] in groups else words[:1]
        flags = _flags(root, path)
        unknown = [w for w in words if w.startswith("--") and w not in flags]
        assert not unknown, f"README: `localsumm {' '.join(path)}` has no {unknown}"
        checked += 1
    assert checked >= 10
