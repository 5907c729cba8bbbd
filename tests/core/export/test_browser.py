"""The HTML export in a real headless Chromium (the distribution's package; `.ci/run`
installs it): it renders (a screenshot that is not blank, the first prompt on screen), a
``<details>`` opens on a real click, the page's own script runs under its CSP (the find
box), and the transcript's ``<script>`` never runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.export.chromium import Browser, find_chromium, png_colours
from tests.core.export.support import CC_SESSION, HOSTILE_PROMPT, claude_doc, render

EXE = find_chromium()
pytestmark = pytest.mark.skipif(
    EXE is None,
    reason="no Chromium at /usr/bin/chromium (`.ci/run` installs the distribution's package "
    "with apt-get; where apt is unavailable this browser test cannot run)",
)


@pytest.fixture
def browser():
    assert EXE is not None
    b = Browser(EXE)
    try:
        yield b
    finally:
        b.close()


def _poll(b: Browser, condition: str) -> object:
    """Evaluate ``condition`` in the page until it is truthy (5 s at most)."""
    expr = (
        "new Promise(function(done){var t0=Date.now();(function again(){var v=(" + condition + ");"
        "if(v||Date.now()-t0>5000)done(v);else setTimeout(again,20);})();})"
    )
    r = b.call(
        "Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True}
    )
    return r["result"].get("value")


def test_page_renders_and_details_open_on_click(tmp_path: Path, browser: Browser) -> None:
    page = tmp_path / "s.html"
    page.write_text(render(claude_doc(tmp_path / "cc"), "html"), encoding="utf-8")
    browser.open(page)
    # rendered: not blank, the first prompt on screen as text
    assert png_colours(browser.screenshot()) > 20
    first = browser.js(
        "(function(){var el=document.querySelector('main .msg.user .text');"
        "var r=el.getBoundingClientRect();"
        "return {text: el.textContent, top: r.top, bottom: r.bottom, h: innerHeight};})()"
    )
    assert first["text"] == HOSTILE_PROMPT
    assert 0 <= first["top"] < first["h"] and first["bottom"] > first["top"]
    # nothing from the transcript ran: no dialog, only the page's two scripts
    assert not any(ev.get("method") == "Page.javascriptDialogOpening" for ev in browser.events)
    assert browser.js("document.scripts.length") == 2
    # a real click on a call's summary opens it
    box = browser.js(
        "(function(){var s=document.querySelector('details.tool>summary');"
        "s.scrollIntoView({block:'center'});var r=s.getBoundingClientRect();"
        "return [r.left+10, r.top+r.height/2, s.parentElement.open];})()"
    )
    assert box[2] is False
    browser.click(box[0], box[1])
    assert _poll(browser, "document.querySelector('details.tool').open") is True
    assert browser.js("document.querySelector('details.tool pre.diff').offsetHeight") > 0
    # the page's script runs (the CSP allows it by hash): the find box hides what misses
    assert browser.js("document.getElementById('find').placeholder") == f"Find in {CC_SESSION}"
    browser.js(
        "(function(){var f=document.getElementById('find');f.value='second prompt';"
        "f.dispatchEvent(new Event('input'));})()"
    )
    assert _poll(browser, "document.getElementById('found').textContent") == "1 message matches"
    assert browser.js("document.querySelectorAll('main .msg:not(.miss)').length") == 1


def test_blank_page_counts_as_blank(tmp_path: Path, browser: Browser) -> None:
    """The control for the screenshot check: an empty page has one colour."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body></body></html>")
    browser.open(page)
    assert png_colours(browser.screenshot()) <= 2
