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


PANEL_QUESTIONS = [
    "Who chaired it?",
    "Was the vote unanimous?",
    "When is it due?",
    "Did the council approve the budget?",
]
PANEL_CLAIMS = ["The council met.", "It approved the budget.", "The vote was 5-4.", "Taxes were cut."]


def two_systems(path):
    """Two systems of 6 sources in one file: A answers every question; B misses the budget question everywhere, one
    more question on source 4, and states two unsupported claims on source 2."""
    from .systems_data import line, result, write

    lines = []
    for doc in range(6):
        a = result(1.0, 1.0, questions=PANEL_QUESTIONS, claims=PANEL_CLAIMS)
        b = result(0.5 if doc == 2 else 1.0, 0.5 if doc == 4 else 0.75, questions=PANEL_QUESTIONS, claims=PANEL_CLAIMS)
        lines.append(line(doc, f"summary A{doc}", a, system="A", id=f"A{doc}"))
        lines.append(line(doc, f"summary B{doc}", b, system="B <i>new</i>", id=f"B{doc}"))
    return write(path, lines)


def test_the_systems_panel_renders_in_a_real_browser(tmp_path):
    page = tmp_path / "report.html"
    assert write_report(two_systems(tmp_path / "systems.jsonl"), page) == 12
    dom = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    panel = dom.split('<section class="systems" id="systems">')[1].split("</section>")[0]
    assert "2 systems on 6 shared sources, ranked by mean score" in panel
    # A bar and an interval whisker per system and dimension, parsed by the browser as SVG.
    assert panel.count('<rect class="mean"') == 6 and panel.count('<g class="interval"') == 6
    assert '<td>1</td><td class="name">A</td><td><svg class="bar"' in panel
    assert '<td class="name">B &lt;i&gt;new&lt;/i&gt;</td>' in panel and "<i>new</i></td>" not in panel
    # Each system's summary length beside its means ("summary A0": 2 words).
    assert "<th>coverage</th><th>words</th>" in panel and panel.count("</td><td>2</td></tr>") == 2
    # The pair, its paired difference, and the sources where they differ most with the verdicts that differ.
    head = "A − B &lt;i&gt;new&lt;/i&gt;: score +0.33 [+0.25, +0.42] · p 0.0323 · won/tied/lost 6/0/0"
    assert f'<summary>{head} <span class="sig">significant</span></summary>' in panel
    sources = re.findall(r'<div class="diff"><h4>(.*?)</h4>', panel)
    b = "B &lt;i&gt;new&lt;/i&gt;"
    assert sources == [f"A2: A 1.00 · {b} 0.50", f"A4: A 1.00 · {b} 0.50", f"A0: A 1.00 · {b} 0.75"]
    said = "B &lt;i&gt;new&lt;/i&gt; does not answer 'Did the council approve the budget?', which A answers"
    assert f"<li>{said}</li>" in panel
    assert "<li>B &lt;i&gt;new&lt;/i&gt;'s claim 'Taxes were cut.' is unsupported</li>" in panel
    assert "<li>B &lt;i&gt;new&lt;/i&gt; does not answer 'When is it due?', which A answers</li>" in panel
    # The items follow, as in a one-system report.
    assert dom.count('<section class="item">') == 12
    screenshot = tmp_path / "panel.png"
    chromium(f"--screenshot={screenshot}", "--window-size=1000,900", page.as_uri(), tmp_path=tmp_path)
    assert screenshot.stat().st_size > 10_000


def test_no_panel_for_one_system_and_a_note_when_systems_cannot_be_compared(results, tmp_path):
    from localsumm.reports.html import render
    from localsumm.runs.results import read_results

    assert write_report(results, tmp_path / "one.html") == 3
    assert 'class="systems"' not in (tmp_path / "one.html").read_text(encoding="utf-8")
    path = two_systems(tmp_path / "systems.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    unnamed = json.loads(lines[-1])
    del unnamed["system"]
    path.write_text("\n".join([*lines[:-1], json.dumps(unnamed)]) + "\n", encoding="utf-8")
    write_report(path, tmp_path / "two.html")
    shown = (tmp_path / "two.html").read_text(encoding="utf-8")
    assert "systems not compared:" in shown and "has no system field" in shown
    assert shown.count('<section class="item">') == 12 == render(read_results(path), "t").count('class="item"')


def test_compare_writes_the_panel_with_html(tmp_path):
    from .systems_data import system_file

    a = system_file(tmp_path / "old.jsonl", [(1.0, 1.0)] * 3 + [(1.0, 0.75)] * 3)
    b = system_file(tmp_path / "new.jsonl", [(1.0, 0.75)] * 3 + [(1.0, 0.5)] * 3)
    page = tmp_path / "compare.html"
    done = run_cli("compare", str(a), str(b), "--html", str(page), "--fail-if-worse")
    assert done.returncode == 1 and f"wrote {page}" in done.stderr, done.stderr
    shown = page.read_text(encoding="utf-8")
    assert "<title>localsumm compare: old.jsonl, new.jsonl</title>" in shown and shown.count('<rect class="mean"') == 6
    assert "<li>new does not answer &#x27;Q4?&#x27;, which old answers</li>" in shown
    assert "<script" not in shown and "http" not in shown.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_panel_without_intervals_says_why(tmp_path):
    from localsumm.compare.systems import compare_tables
    from localsumm.compare.tables import read_tables
    from localsumm.reports.panel import systems_panel

    from .systems_data import system_file

    tables = read_tables(
        [system_file(tmp_path / "a.jsonl", [(1.0, 1.0)] * 3), system_file(tmp_path / "b.jsonl", [(1.0, 0.5)] * 3)]
    )
    shown = systems_panel(compare_tables(tables), tables)
    assert shown.count('<rect class="mean"') == 6 and '<g class="interval"' not in shown
    assert "no intervals: 3 shared sources" in shown and "<td>1.00</td>" not in shown and "1.00</td>" in shown


def test_a_question_left_out_as_a_repeat_shows_what_it_repeats(tmp_path):
    from localsumm.reports.html import render
    from localsumm.runs.results import read_results
    from localsumm.summarization.result import DroppedQuestion

    from .systems_data import line, result, write

    r = result(1.0, 0.5)
    dropped = [
        DroppedQuestion(question="Q0?", reason='the source does not answer it "yes"', probability=0.2),
        DroppedQuestion(question="Did Q1 happen?", reason='asks again what "Q1?" asks'),
    ]
    pre = r.preprocess_step_result.model_copy(update={"dropped_questions": dropped})
    r = r.model_copy(update={"preprocess_step_result": pre})
    shown = render(read_results(write(tmp_path / "r.jsonl", [line(0, "s", r)])), "t")
    assert "or they ask again what another asks</h4>" in shown
    assert "✘ Q0?<span" in shown and "✘ Did Q1 happen? (asks again what &quot;Q1?&quot; asks)</li>" in shown
