"""Adapters for the test harnesses people already use, each over the public API and imported only when used.

- pytest: ``localsumm.testing.assert_summary`` and the plugin ``localsumm.pytest_plugin`` (no extra)
- DeepEval: ``localsumm.integrations.deepeval`` (extra ``deepeval``)
- Inspect AI: ``localsumm.integrations.inspect`` (extra ``inspect``)
- promptfoo: ``localsumm.integrations.promptfoo`` (no extra: promptfoo runs it as a Python assertion)
- LangSmith / openevals: ``localsumm.integrations.langsmith`` (extra ``langsmith`` for its ``evaluate``)

See docs/integrations.md.
"""
