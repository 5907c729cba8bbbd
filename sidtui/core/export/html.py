"""A session as one self-contained HTML page, written as it is read.

The page needs nothing from the network (no fonts, scripts or images from elsewhere; a
Content-Security-Policy that allows only its own inline style and the one inline script,
by hash), follows the reader's light or dark preference, and shows: the session's facts,
the conversation as the agent will resume it — what it will not load set apart in a
``lost`` box with the reason, the turns it adds itself marked ``added`` —, tool calls and
results in ``<details>``, edits as diffs, thinking collapsed, sub-agents nested under the
call that spawned them, and a find box.

A transcript is untrusted input: every piece of text from it goes through
:func:`html.escape` (quotes included) and is only ever element content or a quoted
attribute value; no link or URL is made from it; the machine-readable head is embedded as
``application/json`` with ``<``, ``>``, ``&`` and U+2028/9 escaped, so a ``</script>`` in
it stays text. Output goes to a binary stream in pieces of :data:`CHUNK` characters.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from typing import Any, BinaryIO

from sidtui.core.export.blocks import (
    IMAGE,
    TEXT,
    THINKING,
    TOOL_RESULT,
    TOOL_USE,
    edits_of,
    input_summary,
    json_text,
    kind_of,
    one_line,
    result_text,
    text_of,
    tool_name,
)
from sidtui.core.export.document import Document, Tally
from sidtui.core.export.sink import Sink

STYLE = """
:root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d1d1f;--dim:#6b6b70;--line:#d9d9de;
--user:#eef4ff;--asst:#f7f7f5;--lost:#fff1f0;--lostb:#d9534f;--add:#eefaf1;--addb:#2e8b57;
--del:#ffe6e6;--ins:#e3f7e3;--code:#f1f1f3;--mark:#ffe58a}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#e6e6e9;--dim:#9a9aa3;
--line:#34343b;--user:#1c2636;--asst:#1f1f24;--lost:#3a1f1f;--lostb:#e0605b;--add:#1b3024;
--addb:#5fc48a;--del:#4a2222;--ins:#1f3d25;--code:#25252b;--mark:#6b5a10}}
*{box-sizing:border-box}body{margin:0 auto;max-width:70rem;padding:1rem;background:var(--bg);
color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.35rem;margin:.2rem 0 .6rem;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0 0 1rem}
dl.facts dt{color:var(--dim)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.find{position:sticky;top:0;background:var(--bg);padding:.4rem 0;border-bottom:1px solid var(--line);z-index:1}
.find input{width:min(30rem,70%);padding:.3rem .5rem;font:inherit;color:inherit;background:var(--code);
border:1px solid var(--line);border-radius:4px}.find span{color:var(--dim);margin-left:.6rem}
.msg{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.4rem .7rem;background:var(--asst)}
.msg.user{background:var(--user)}.msg.added{background:var(--add);border-color:var(--addb);border-style:dashed}
.msg>header{font-size:.82rem;color:var(--dim);margin-bottom:.25rem}
.msg>header .role{font-weight:600;color:var(--fg);text-transform:uppercase;letter-spacing:.03em}
.badge{display:inline-block;padding:0 .35rem;border-radius:3px;margin-left:.4rem;font-size:.75rem;border:1px solid currentColor}
.lost{border-left:4px solid var(--lostb);background:var(--lost);padding:.3rem .7rem;margin:.8rem 0;border-radius:4px}
.lost>p.why{margin:.2rem 0;color:var(--lostb);font-weight:600}
.lost .msg{opacity:.8}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);padding:.4rem .6rem;border-radius:4px;
margin:.3rem 0;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details{margin:.3rem 0}summary{cursor:pointer;color:var(--dim)}summary code{color:var(--fg)}
details.tool>summary b,details.result>summary b{color:var(--fg)}
details.result.error>summary{color:var(--lostb)}
.diff .d{background:var(--del);display:block}.diff .i{background:var(--ins);display:block}
.diff .h{color:var(--dim);display:block}.diff .c{display:block}
details.subagent{border-left:3px solid var(--line);padding-left:.7rem;margin-left:.3rem}
.miss{display:none}mark{background:var(--mark);color:inherit}
footer{color:var(--dim);margin:1.5rem 0;font-size:.85rem}
ul.warn{color:var(--dim);font-size:.85rem}
"""

SCRIPT = """(function(){var box=document.getElementById('find'),out=document.getElementById('found');
var msgs=Array.prototype.slice.call(document.querySelectorAll('.msg'));var t=null;
function run(){var q=box.value.toLowerCase(),n=0,first=null;msgs.forEach(function(m){
var hit=!q||m.textContent.toLowerCase().indexOf(q)>=0;m.classList.toggle('miss',!hit);
if(hit&&q){n++;if(!first)first=m;Array.prototype.forEach.call(m.querySelectorAll('details'),
function(d){if(d.textContent.toLowerCase().indexOf(q)>=0)d.open=true;});}});
out.textContent=q?(n+(n==1?' message matches':' messages match')):'';if(first)first.scrollIntoView({block:'nearest'});}
box.addEventListener('input',function(){clearTimeout(t);t=setTimeout(run,150);});
try{var d=JSON.parse(document.getElementById('sidtui-session').textContent);
box.placeholder='Find in '+d.session_id;}catch(e){}})();"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
#: Nothing but the page's own style and its one script (by hash) may run or load.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)

_JSON_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def e(s: Any) -> str:
    """Text from the transcript as HTML text (quotes escaped too: safe in an attribute)."""
    return escape(s) if type(s) is str else escape(json_text(s))  # quote=True: the default


def script_json(value: Any) -> str:
    """``value`` as JSON that cannot end a ``<script>`` element (or open a comment)."""
    return json_text(value, indent=False).translate(_JSON_ESCAPES)


def write_html(doc: Document, out: BinaryIO) -> Tally:
    """Write ``doc`` as one HTML page to ``out``; returns what was counted."""
    sink = Sink(out)
    h = doc.head
    f = h.facts
    title = f.title or h.session_id
    w = sink.write
    w(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{e(one_line(title, 100))} — sidtui export</title><style>{STYLE}</style></head>\n<body>"
    )
    w(f"<h1>{e(one_line(title, 300))}</h1>")
    _facts(w, doc)
    w(
        '<div class="find"><input id="find" type="search" placeholder="Find" '
        'aria-label="Find in this session"><span id="found"></span></div>\n<main>'
    )
    tally = Tally()
    _conversation(sink, doc, tally)
    w("</main>")
    w(
        f'<footer id="summary">{tally.messages:,} messages: {tally.loaded:,} loaded on resume, '
        f"{tally.lost:,} not loaded, {tally.added:,} added by the agent on resume; "
        f"{tally.tool_uses:,} tool calls, {tally.subagents:,} sub-agents. "
        f"Exported by sidtui from {e(h.path)}.</footer>"
    )
    w(f'<script type="application/json" id="sidtui-session">{script_json(h.to_json())}</script>')
    w(f"<script>{SCRIPT}</script></body></html>\n")
    sink.close()
    return tally


def _facts(w, doc: Document) -> None:
    h = doc.head
    f = h.facts
    rows: list[tuple[str, str]] = [("Agent", e(h.source_label)), ("Session", e(h.session_id))]
    for label, v in (
        ("Project", f.project),
        ("Folder", f.cwd),
        ("Model", f.model),
        ("Started", f.created_at),
        ("Last activity", f.updated_at),
        ("Agent version", f.agent_version),
        ("Git branch", f.git_branch),
    ):
        if v:
            rows.append((label, e(v)))
    end = h.interruption or "—"
    if h.interruption_tools:
        end += f" ({', '.join(h.interruption_tools)})"
    rows.append(("On resume", e(end)))
    if f.resume_error:
        rows.append(("Resume fails", e(f.resume_error)))
    u = h.usage
    if u is not None:
        rows.append(
            (
                "Tokens",
                f"{u.total_tokens:,} (input {u.input_tokens:,}, output {u.output_tokens:,}, "
                f"cache write {u.cache_creation_tokens:,}, cache read {u.cache_read_tokens:,})",
            )
        )
        cost = (
            f"${u.cost_usd:,.2f}"
            if u.cost_usd is not None
            else "unknown (no price for " + e(", ".join(u.unpriced)) + ")"
        )
        rows.append(("Cost", f"{cost} (prices of {e(u.prices_date)})"))
    if h.usage_gaps:
        rows.append(("Not recorded", e(h.usage_gaps)))
    if h.live:
        rows.append(("Live", "a running agent writes this session now"))
    w('<dl class="facts">')
    for k, v in rows:
        w(f"<dt>{k}</dt><dd>{v}</dd>")
    w("</dl>")
    if h.warnings:
        w('<details><summary>Warnings</summary><ul class="warn">')
        for x in h.warnings:
            w(f"<li>{e(x)}</li>")
        w("</ul></details>")


def _conversation(sink: Sink, doc: Document, tally: Tally) -> None:
    w = sink.write
    names: dict[Any, str] = {}
    spawns = doc.spawn_ids()
    lost_open: str | None = None
    n = 0
    for item in doc.items():
        tally.count(item)
        if item.status == "lost":
            if lost_open != item.reason:
                if lost_open is not None:
                    w("</div>")
                w(
                    '<div class="lost"><p class="why">Not loaded on resume: '
                    f"{e(item.reason or '')}</p>"
                )
                lost_open = item.reason or ""
        elif lost_open is not None:
            w("</div>")
            lost_open = None
        n += 1
        role = item.role if isinstance(item.role, str) else "context"
        cls = "user" if role == "user" else "assistant"
        if item.status == "added":
            cls += " added"
        anchor = f' id="m{n}"' if doc.depth == 0 else ""
        w(f'<section class="msg {e(cls)}"{anchor}><header><span class="role">{e(role)}</span>')
        if item.line is not None:
            w(f" · line {int(item.line)}")
        if item.timestamp:
            w(f" · {e(item.timestamp)}")
        if item.model:
            w(f" · {e(item.model)}")
        if item.status == "added":
            w(f'<span class="badge">added on resume</span> {e(item.reason or "")}')
        if item.note:
            w(f'<span class="badge">{e(item.note)}</span>')
        w("</header>")
        for b in item.blocks:
            _block(sink, doc, b, names, spawns, tally)
        w("</section>\n")
        sink.maybe_flush()
    if lost_open is not None:
        w("</div>")
    rest = doc.unlinked()
    if rest:
        w("<h2>Sub-agents</h2>" if doc.depth == 0 else "")
        for link, sub in rest:
            _subagent(sink, link, sub, tally)
    for err in doc.errors:
        w(f'<p class="why">{e(err)}</p>')


def _block(sink: Sink, doc: Document, b: Any, names, spawns, tally: Tally) -> None:
    w = sink.write
    k = kind_of(b)
    if k == TEXT:
        t = text_of(b)
        if t.strip():  # an empty part of a reply says nothing
            w(f'<div class="text">{e(t)}</div>')
    elif k == THINKING:
        w(
            f'<details class="thinking"><summary>thinking</summary><pre>{e(text_of(b))}</pre></details>'
        )
    elif k == TOOL_USE:
        tally.tool_uses += 1
        name = tool_name(b)
        names[b.get("id")] = name
        inp = b.get("input")
        w(
            f'<details class="tool"><summary>call <b>{e(name)}</b> '
            f"<code>{e(input_summary(inp))}</code></summary>"
        )
        edits = edits_of(inp)
        if edits:
            for ed in edits:
                _diff(w, ed)
            w(f"<details><summary>input</summary><pre>{e(json_text(inp))}</pre></details>")
        else:
            w(f"<pre>{e(json_text(inp))}</pre>")
        w("</details>")
        tid = b.get("id")
        if isinstance(tid, str) and tid in spawns:
            for link, sub in doc.subagents_of(tid):
                _subagent(sink, link, sub, tally)
    elif k == TOOL_RESULT:
        text = result_text(b)
        err = b.get("is_error") is True
        name = names.get(b.get("tool_use_id"), "")
        lines = text.count("\n") + 1 if text else 0
        w(
            f'<details class="result{" error" if err else ""}"><summary>'
            f"{'error from' if err else 'result of'} <b>{e(name or 'a tool')}</b> "
            f"({lines:,} line{'s' if lines != 1 else ''})</summary><pre>{e(text)}</pre></details>"
        )
    elif k == IMAGE:
        src = b.get("source")
        media = src.get("media_type") if isinstance(src, dict) else None
        w(f"<p><i>[image{': ' + e(media) if isinstance(media, str) else ''}]</i></p>")
    else:
        bt = b.get("type") if isinstance(b, dict) else None
        label = bt if isinstance(bt, str) else "value"
        w(f"<details><summary>{e(label)}</summary><pre>{e(json_text(b))}</pre></details>")


def _diff(w, ed) -> None:
    w(f'<p>edit <code>{e(ed.path or "")}</code></p><pre class="diff">')
    cls = {"-": "d", "+": "i", "@": "h", " ": "c"}
    for tag, text in ed.lines:
        mark = "" if tag == "@" else tag
        w(f'<span class="{cls[tag]}">{mark}{e(text)}</span>')
    w("</pre>")


def _subagent(sink: Sink, link, sub: Document | None, tally: Tally) -> None:
    w = sink.write
    tally.subagents += 1
    what = " ".join(x for x in (link.agent_type, link.description) if isinstance(x, str))
    status = f" — {link.status}" if link.status else ""
    w(
        f'<details class="subagent"><summary>sub-agent <b>{e(link.label)}</b> '
        f"{e(what)}{e(status)}</summary>"
    )
    if sub is None:
        w("<p><i>its transcript is not read here (not on disk, or nested too deep)</i></p>")
    else:
        _conversation(sink, sub, Tally())
    w("</details>")
