"""`sidtui watch [SESSION]`: a plain streaming view of what agents write, for terminals/scripts.

One line per new record or event; ``--json`` prints JSON lines (records as
``{"event": "RecordAppended", session_id, path, line, uuid, type, record}``, other events as
:func:`sidtui.core.live.events.event_to_json`). Ctrl-C stops cleanly (exit 0).
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import sys
import threading
from typing import Any


def event_words(name: str) -> str:
    """An event's class name as words for a person (``CheckpointIndexChanged`` →
    ``checkpoint index changed``); ``--json`` keeps the class name as its ``event`` key."""
    return " ".join(w.lower() for w in re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name)) or name


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "watch",
        parents=parents,
        help="stream new records and events (new sessions, branches, live/stale, conflicts)",
        description="Follow the home (or one SESSION) as agents write: one line per new "
        "record or event. A half-written line is held until it completes.",
    )
    p.add_argument("session", nargs="?", help="session id, id prefix or path (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.add_argument(
        "--polling",
        action="store_true",
        help="poll instead of filesystem notifications (auto on network filesystems)",
    )
    p.set_defaults(func=run)


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    if isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                out.append(b["text"])
            elif b.get("type") == "tool_use":
                out.append(f"[{b.get('name')}]")
            elif b.get("type") == "tool_result":
                out.append("[result]")
            elif b.get("type") == "thinking":
                out.append("[thinking]")
    return " ".join(out)


def record_preview(rec: Any, width: int = 100) -> str:
    """One-line description of a record for the plain view."""
    if not isinstance(rec, dict):
        return repr(rec)[:width]
    t = rec.get("type")
    if t in ("user_message", "assistant_message", "tool_result", "user", "assistant"):
        msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        text = _texts(msg.get("content"))
    elif t == "message":
        text = f"{rec.get('role')}: {_texts(rec.get('content'))}"
    elif t == "metadata":
        text = f"{rec.get('key')}"
    elif t == "session_start":
        text = f"{rec.get('model')} in {rec.get('cwd')}"
    elif t == "session_end":
        text = f"cost ${rec.get('totalCostUSD')}  messages {rec.get('totalMessages')}"
    elif t == "sidechain_start":
        text = f"{rec.get('agentType')}: {rec.get('description')}"
    elif t == "sidechain_end":
        text = f"{rec.get('status')}"
    elif t == "system":  # Claude Code
        text = f"{rec.get('subtype')}"
    elif t == "progress":
        data = rec.get("data")
        text = f"{data.get('type')}" if isinstance(data, dict) else ""
    else:
        text = ""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def event_lines(batch, as_json: bool) -> list[str]:
    """The output lines of one watcher batch."""
    from sidtui.core.base.jsonout import dumps_lenient
    from sidtui.core.live import events as ev

    out: list[str] = []
    for e in batch:
        if isinstance(e, ev.RecordsAppended):
            for r in e.records:
                if as_json:
                    out.append(
                        dumps_lenient(
                            {
                                "event": "RecordAppended",
                                "session_id": e.session_id,
                                "path": e.path,
                                "line": r.ref.line,
                                "uuid": r.ref.uuid,
                                "type": r.ref.type,
                                "record": r.record,
                            },
                            default=str,
                        ).decode()
                    )
                else:
                    out.append(
                        f"{e.session_id}  line {r.ref.line:<5} {r.ref.type or '?':<18} "
                        f"{record_preview(r.record)}"
                    )
            continue
        if as_json:
            out.append(dumps_lenient(e.to_json(), default=str).decode())
            continue
        d = e.to_json()
        name = d.pop("event")
        if isinstance(e, ev.BadLineFound):
            detail = f"line {e.line.line}: {e.line.reason}"
        elif isinstance(e, ev.FileIntentConflictAppeared):
            c = e.conflict
            detail = (
                f"{c.severity}: {c.session_id} and {c.other_session_id} "
                f"({c.other_operation}) on {c.path}"
            )
        else:
            d.pop("path", None)
            sid = d.pop("session_id", "")
            detail = f"{sid}  " + "  ".join(f"{k}={v}" for k, v in d.items() if v is not None)
        out.append(f"-- {event_words(name)}: {detail}")
    return out


def run(args: argparse.Namespace) -> int:
    """Follow the homes (or one session) until Ctrl-C/SIGTERM; exit 0 (1: a watcher died).

    The watchers never write to stdout themselves: their lines are queued and written by
    the main thread, so a reader that stops reading never blocks a watcher, and on the
    first Ctrl-C everything already read is still written (the watchers stop reading
    first); a second Ctrl-C while that output waits for its reader gives up (exit 130).
    """
    from sidtui.cli.common import read_session, sources_from_args
    from sidtui.core.base.errors import UnreadableInput
    from sidtui.core.live.watcher import Watcher

    done = threading.Event()
    writing = threading.Event()  # the main thread is in a write to stdout
    out: queue.SimpleQueue[str] = queue.SimpleQueue()
    _on_stop_signals(done, writing, out)
    if args.session:
        source, sf = read_session(args)
        homes = [source.home]
    else:
        sources, _named = sources_from_args(args)  # every home there, or the ones named
        homes = [s.require().home for s in sources]
        sf = None

    own_ids: set[str] = set()
    if sf is not None:
        from sidtui.core.base.discover import session_ids
        from sidtui.core.resume.process import trace_session_ids_in_file

        own_ids = session_ids(sf) if source.name == "sid-code" else {sf.session_id}
        try:
            own_ids |= set(trace_session_ids_in_file(sf.path))
        except (OSError, UnreadableInput):
            pass

    def mine(e) -> bool:
        # registrations of other sessions are noise when following one session
        if sf is None or hasattr(e, "path") or not hasattr(e, "pid"):
            return True
        return e.session_id in own_ids or getattr(e, "logical_session_id", None) in own_ids

    def on_batch(batch) -> None:  # a watcher's thread: queue, never block on stdout
        lines = event_lines([e for e in batch if mine(e)], args.json)
        if lines:
            out.put("\n".join(lines) + "\n")

    polling = True if args.polling else None
    watchers = [Watcher(h, on_batch, session=sf, force_polling=polling) for h in homes]
    what = str(sf.path) if sf else ", ".join(str(h.root) for h in homes)
    said = [0] * len(watchers)  # warnings printed so far, per watcher

    def say_warnings() -> None:
        for k, w in enumerate(watchers):
            for line in w.warnings[said[k] :]:
                print(f"sidtui: warning: {line}", file=sys.stderr, flush=True)
            said[k] = len(w.warnings)

    code = 0
    try:
        for w in watchers:
            w.start()
        for w in watchers:
            while not w.ready.wait(0.2):
                if done.is_set():
                    return 0
                if not w.alive:
                    for e in w.errors:
                        print(f"sidtui: error: {e}", file=sys.stderr)
                    return 1
        how = "polling" if any(w.polling for w in watchers) else "notify"
        print(f"watching {what} ({how}); Ctrl-C to stop", file=sys.stderr, flush=True)
        while not done.is_set() and not code:
            try:
                chunk: str | None = out.get(timeout=0.2)
            except queue.Empty:
                chunk = None
            if chunk is not None:
                writing.set()
                ok = _write(chunk)
                writing.clear()
                if not ok:
                    return 0  # the reader went away (`| head`): stop quietly
            say_warnings()
            for w in watchers:
                if w.errors:
                    for e in w.errors:
                        print(f"sidtui: warning: {e}", file=sys.stderr)
                    w.errors.clear()
                    if not w.alive:
                        code = 1
    except KeyboardInterrupt:  # before the handlers are in place, or a second Ctrl-C
        return 130 if done.is_set() else 0
    finally:
        for w in watchers:
            w.stop(timeout=2.0)
        stuck = [w for w in watchers if w.alive]
        if stuck:  # stuck in a system call: the process exit ends it (sidtui.cli.entry)
            args.keep = stuck
    return _drain(out, code)


def _on_stop_signals(
    done: threading.Event, writing: threading.Event, out: queue.SimpleQueue[str]
) -> None:
    """Ctrl-C and `kill` only set ``done``: the main thread never waits in a call a
    KeyboardInterrupt could miss, so the watch always stops within a poll. A second one
    raises KeyboardInterrupt, which interrupts the writing of what was read (its reader
    may never come back)."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return

    def on_signal(*_: object) -> None:
        if done.is_set():
            raise KeyboardInterrupt
        done.set()
        if not out.empty() or writing.is_set():  # os.write: no buffered stream re-entered
            os.write(2, _STOPPING)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)


_STOPPING = b"sidtui: stopping: writing what was already read (Ctrl-C again to give up)\n"


def _write(chunk: str) -> bool:
    """Write ``chunk`` to stdout (blocking while its reader is behind); False when the
    reader went away.

    Written with ``os.write`` on the descriptor, partial writes looped here: CPython's
    buffered stdout drops the rest of a write to a full pipe that a signal interrupts
    after part of it was written (Ctrl-C while the reader is behind: 3.11, measured).
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        fd = None
    try:
        if fd is None:
            sys.stdout.write(chunk)
            sys.stdout.flush()
            return True
        sys.stdout.flush()  # what print() left in the buffer goes first
        data = memoryview(chunk.encode(sys.stdout.encoding or "utf-8", "replace"))
        while data:
            data = data[os.write(fd, data) :]
    except (BrokenPipeError, ValueError):
        return False
    return True


def _drain(out: queue.SimpleQueue[str], code: int) -> int:
    """Write what the stopped watchers had read and queued; ``code``, or 130 when a second
    Ctrl-C gives up on a reader that does not read."""
    try:
        while not out.empty():
            if not _write(out.get()):
                return code
    except KeyboardInterrupt:
        return 130
    return code
