"""The HTML report, opened in a real headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from localsumm.reports.html import write_report
from localsumm.runs.evaluate import evaluate_file

from .conftest import SOURCE, SUMMARY, run_cli
from .scripted import ScriptedJudge

HOSTILE = (
    "Founded in 1995. <script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\"> & more"
)


def chromium(*args: str, tmp_path) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("Chromium is not installed; `make test` installs Debian's chromium package")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ]
    done = subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture
def results(tmp_path):
    data = tmp_path / "data.jsonl"
    rows = [
        {"id": "plain", "source": SOURCE, "summary": SUMMARY},
        {"id": "hostile <b>id</b>", "source": SOURCE + " <script>alert(1)</script>", "summary": HOSTILE},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{not json\n")
    judge = ScriptedJudge(
        claims=["Harbor Lights was founded in 1995.", "It was sold in 2021 <i>quietly</i>."],
        questions=["Was it founded in 1995?", "Did it open a brewery in Burlington?"],
        claim_probabilities=[0.93, 0.07] * 2,
        question_probabilities=[0.91, 0.12] * 2,
    )
    out = tmp_path / "results.jsonl"
    evaluate_file(data, out, model=judge, claims="extracted")
    return out


def test_report_renders_in_a_real_browser_and_escapes_everything(results, tmp_path):
    page = tmp_path / "report.html"
    assert write_report(results, page) == 3
    dom = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    # Nothing from the data ran: no script element, the title is ours, the handler never fired.
    assert "<script" not in dom
    assert re.search(r"<title>localsumm report: results.jsonl</title>", dom)
    assert "pwned" not in dom.split("<body>")[0]
    # ... and it shows as text.
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom
    assert "hostile &lt;b&gt;id&lt;/b&gt;" in dom
    assert "sold in 2021 &lt;i&gt;quietly&lt;/i&gt;" in dom
    # The overview and the verdicts are there.
    assert "3 items: 2 scored, 0 unscorable, 1 failed." in dom
    assert dom.count('alt="score histogram"') == 1 and dom.count("data:image/svg+xml;base64,") == 3
    assert '<li class="no">✘ It was sold in 2021' in dom and "p=0.07" in dom
    assert '<li class="yes">✔ Was it founded in 1995?' in dom
    assert "line 3 is not JSON" in dom
    screenshot = tmp_path / "report.png"
    chromium(f"--screenshot={screenshot}", "--window-size=1000,1400", page.as_uri(), tmp_path=tmp_path)
    assert screenshot.stat().st_size > 10_000


def test_report_command_errors_cleanly_on_a_file_that_is_not_results(tmp_path):
    bad = tmp_path / "notes.jsonl"
    bad.write_text("hello\n")
    done = run_cli("report", str(bad), "--html", str(tmp_path / "r.html"))
    assert done.returncode == 3 and "line 1 is not JSON" in done.stderr and "Traceback" not in done.stderr


def test_terminal_output_shows_hostile_text_as_itself():
    import io

    from rich.console import Console

    from localsumm import create_summarization_scorer
    from localsumm.reports.terminal import print_result

    hostile = "It was sold [bold red]in 2021[/] \x1b[2J\x1b]0;pwned\x07 quietly."
    judge = ScriptedJudge(
        claims=[hostile], questions=["Was it [red]founded[/]?"], claim_probabilities=[0.1], question_probabilities=[0.9]
    )
    result = create_summarization_scorer(judge).run(input=SOURCE, output=SUMMARY + " " + hostile)
    buffer = io.StringIO()
    print_result(result, Console(file=buffer, force_terminal=True, width=200))
    shown = buffer.getvalue()
    assert "\x1b[2J" not in shown and "\x1b]0;" not in shown and "\x07" not in shown
    assert "\\x1b[2J" in shown and "[bold red]in 2021[/]" in shown and "[red]founded[/]" in shown


def test_report_marks_each_source_sentence_and_links_each_verdict_to_it(tmp_path):
    import html

    from localsumm.text import pieces

    source = SOURCE + "\n\nIt said <b>cheers</b> & left."
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "source": source, "summary": SUMMARY}) + "\n")
    judge = ScriptedJudge(
        questions=["Did it open a brewery in Burlington?", "Did Foghorn IPA win a gold medal?"],
        claim_probabilities=[0.9, 0.9, 0.1],  # the summary's sentences: the third (sold in 2021) is not supported
        question_probabilities=[0.1, 0.9],
    )
    out = tmp_path / "results.jsonl"
    evaluate_file(data, out, model=judge)
    page = tmp_path / "report.html"
    write_report(out, page)
    item = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path).split('<section class="item">')[1]
    assert '<mark class="unsupported">The company was sold to a national beverage group in 2021.</mark>' in item
    # Every sentence of the source is marked, by the offsets of the result, and the marks cut nothing.
    spans = re.findall(r'<span id="i1-s(\d+)" class="(\w+)" title="([^"]*)">(.*?)</span>', item)
    assert [html.unescape(text) for *_, text in spans] == [source[a:b] for a, b in pieces(source)]
    pre = re.search(r'<pre class="source">(.*?)</pre>', item, re.DOTALL).group(1)
    assert html.unescape(re.sub(r"<[^>]+>", "", pre)) == source
    marks = {int(i): (kind, title) for i, kind, title, _ in spans}
    assert marks[0] == marks[1] == ("supports", "supports claim 1")  # the first claim joins sentences 1 and 2
    assert marks[2] == ("misses", "left out of the summary; answers question 1 (missed)")
    assert marks[3] == ("supports", "supports claim 2; answers question 2")
    assert marks[4] == ("unsupported", "left out of the summary; closest to claim 3")  # "remains family-owned"
    assert marks[7] == ("untouched", "left out of the summary")
    assert "It said &lt;b&gt;cheers&lt;/b&gt; &amp; left." in item and "<b>" not in item
    # Each claim and question links to its sentence (a fragment link: the page has no script).
    assert 'p=0.90</span><a class="ev" href="#i1-s0">source sentence 1</a><a class="ev" href="#i1-s1">' in item
    assert '✘ Did it open a brewery in Burlington?<span class="p">p=0.10</span><a class="ev" href="#i1-s2">' in item
    assert "source (" in item and "5 sentences left out of the summary)" in item
