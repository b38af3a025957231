"""The pytest plugin (entry point ``pytest11``): a session-scoped judge, and a report of every assertion.

Configured in ``pytest.ini`` / ``pyproject.toml`` ([tool.pytest.ini_options])::

    localsumm_model = qwen2.5-coder-1.5b            # registry name, .gguf path or openai:NAME
    localsumm_questions = tests/questions.jsonl     # a question file (optional)
    localsumm_options = max_questions=10 key_facts=true

``pytest --localsumm-report PATH`` writes every ``assert_summary`` of the session
to PATH (a results JSONL, as ``localsumm eval`` writes) and PATH with ``.html``
(the report). Nothing heavy is imported until a test asks for the fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .summarization.result import SummarizationResult
    from .summarization.scorer import SummarizationScorer


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("localsumm")
    group.addoption(
        "--localsumm-report",
        metavar="PATH",
        default=None,
        help="Write every assert_summary of the session to PATH (results JSONL) and PATH.html.",
    )
    parser.addini(
        "localsumm_model", "Judge of the summarization_scorer fixture (default: the default judge).", default=""
    )
    parser.addini("localsumm_questions", "Question file the fixture's scorer asks (localsumm questions).", default="")
    parser.addini(
        "localsumm_options", "Scorer options as key=value words, e.g. max_questions=5 key_facts=false.", default=""
    )


def parse_options(text: str) -> dict[str, Any]:
    """``key=value`` words as Options fields: true/false, whole numbers and decimals, else strings."""
    from .errors import ConfigError

    settings: dict[str, Any] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ConfigError(f"localsumm_options: {word!r} is not key=value")
        lowered = value.lower()
        if lowered in ("true", "false"):
            settings[key] = lowered == "true"
        else:
            try:
                settings[key] = int(value)
            except ValueError:
                try:
                    settings[key] = float(value)
                except ValueError:
                    settings[key] = value
    return settings


class _Report:
    """The session's asserted results, written at its end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []

    def add(self, source: str, summary: str, result: SummarizationResult) -> None:
        from .runs.results import format_line

        n = len(self.lines) + 1
        self.lines.append(format_line({"source": source, "summary": summary}, f"assertion-{n}", result=result))

    def write(self) -> None:
        from .reports.html import write_report

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(line + "\n" for line in self.lines), encoding="utf-8")
        write_report(self.path, self.path.with_suffix(".html"))


_REPORT = pytest.StashKey[_Report]()


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--localsumm-report")
    if path:
        from . import testing

        report = _Report(Path(path))
        testing._observers.append(report.add)
        config.stash[_REPORT] = report


def pytest_unconfigure(config: pytest.Config) -> None:
    report = config.stash.get(_REPORT, None)
    if report is not None:
        from . import testing

        testing._observers.remove(report.add)
        report.write()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    report = config.stash.get(_REPORT, None)
    if report is not None:
        terminalreporter.write_line(
            f"localsumm: {len(report.lines)} assertions -> {report.path} and {report.path.with_suffix('.html')}"
        )


@pytest.fixture(scope="session")
def summarization_scorer(pytestconfig: pytest.Config) -> Iterator[SummarizationScorer]:
    """One scorer for the session (the judge loads once), also the one ``assert_summary`` uses."""
    from . import testing
    from .errors import LocalsummError
    from .summarization.scorer import create_summarization_scorer

    settings = parse_options(pytestconfig.getini("localsumm_options"))
    questions = pytestconfig.getini("localsumm_questions")
    if questions:
        settings["questions"] = str(Path(pytestconfig.rootpath, questions))
    try:
        scorer = create_summarization_scorer(pytestconfig.getini("localsumm_model") or None, **settings)
    except LocalsummError as e:
        pytest.fail(f"localsumm: {e}", pytrace=False)
    testing.use_scorer(scorer)
    yield scorer
    testing.use_scorer(None)
